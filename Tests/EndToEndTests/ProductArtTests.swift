// A product's own art from an Xcode package (C8), in a real terminal and through `catalog check`.
import Foundation
import TerminalUI
import TestSupport
import Testing

@Suite("Product art from .storekit packages", .serialized)
struct ProductArtTests {
    @Test("C8 catalog check names the truncated file and lists the asset no product names")
    func catalogCheck() async throws {
        let session = try await Session()
        let package = try ArtPackage.write(in: session.stateDirectory)
        let check = try await session.run(["catalog", "check", package.path])
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("1 warning(s)"), "\(check)")
        #expect(check.stderr.contains("Gallery.storekit/Assets/torn.png: not a usable picture ("), "\(check)")
        #expect(check.stdout.contains("assets no product names (not loaded):\n  Gallery.storekit/Assets/leftover.png"))
        let strict = try await session.run(["catalog", "check", package.path, "--strict"])
        #expect(strict.status == 2)
        let json = try await session.run(["catalog", "check", package.path, "--json"]).object()
        #expect(json["unusedAssets"] as? [String] == ["Gallery.storekit/Assets/leftover.png"])
    }

    @Test("C8 T4 each product's art draws in its own colours in the terminal; the torn one says why")
    func drawnInTmux() async throws {
        let session = try await Session()
        let package = try ArtPackage.write(in: session.stateDirectory)
        let tmux = try await TmuxSession(command: session.screenCommand(arguments: ["--catalog", package.path]))
        try await tmux.waitFor("Sign in")
        try await tmux.send("Escape")
        let list = try await tmux.waitFor("Torn Ticket")
        // ▪ marks every product with art.
        #expect(list.components(separatedBy: "\n").filter { $0.contains("▪") }.count == ArtPackage.arts.count)
        for (index, art) in ArtPackage.arts.enumerated() {
            if index > 0 { try await tmux.send("Down") }
            try await tmux.send("Enter")
            if art.file == "torn.png" {
                _ = try await tmux.waitUntil(description: "the torn ticket's reason") { screen in
                    screen.contains("picture unavailable") && screen.contains("Gallery.storekit/Assets/torn.png")
                }
                try await tmux.send("q")
                continue
            }
            let expected = Int(Palette.nearest256(art.colour.r, art.colour.g, art.colour.b))
            // Its own colour is the one most cells are drawn in.
            _ = try await tmux.waitUntil(colors: true, description: "\(art.title) in colour \(expected)") { screen in
                guard screen.contains(art.title), screen.contains("▀") else { return false }
                let counts = ArtPackage.colourCounts(screen)
                return counts[expected, default: 0] >= 10 && counts.max { $0.value < $1.value }?.key == expected
            }
            try await tmux.send("q")
            _ = try await tmux.waitFor("Torn Ticket")
        }
    }

    /// The tests run the debug build, whose screen alone peaks near 51 MB (the release build's is
    /// under 30 MB: BENCHMARKS.md; at 8a86700 the screen held this catalog near 40 MB). So
    /// the bound here is against the same screen showing two 16-pixel pictures, in the same run:
    /// one 30,000² picture decoded would be 3.6 GB, and even the largest allowed one 256 MB.
    @Test("C8 a 30,000 × 30,000 PNG and JPEG are refused before allocating: the screen's peak stays flat")
    func hugeHeaders() async throws {
        let session = try await Session()
        let huge = try ArtPackage.huge(in: session.stateDirectory)
        let small = try ArtPackage.write(
            in: session.stateDirectory, name: "Small.storekit",
            arts: ["Huge PNG", "Huge JPEG"].map { title in
                ArtPackage.Art(title: title, imageID: title, file: title + ".png", colour: RGBA(0, 0, 0)) {
                    try PNGCodec.encode(ArtPackage.flat(16, RGBA(10, 20, 30)))
                }
            })
        let baseline = try await peakShowingBoth(session, small, shows: "▀")
        let peak = try await peakShowingBoth(session, huge, shows: "30000×30000 is too large")
        #expect(peak - baseline < 8 * 1024, "peak RSS \(peak) kB against \(baseline) kB")
        let check = try await session.run(["catalog", "check", huge.path])
        #expect(check.stderr.contains("huge-png.png: 30000×30000 is larger than a picture can be"), "\(check)")
        #expect(check.stderr.contains("huge-jpeg.jpg: 30000×30000 is larger than a picture can be"), "\(check)")
    }

    /// The screen's peak RSS in kB once it has shown the detail views of "Huge PNG" and "Huge JPEG".
    func peakShowingBoth(_ session: Session, _ package: URL, shows: String) async throws -> Int {
        let tmux = try await TmuxSession(command: session.screenCommand(arguments: ["--catalog", package.path]))
        try await tmux.waitFor("Sign in")
        try await tmux.send("Escape")
        try await tmux.waitFor("Huge JPEG")
        for (index, title) in ["Huge PNG", "Huge JPEG"].enumerated() {
            if index > 0 { try await tmux.send("q", "Down") }
            try await tmux.send("Enter")
            _ = try await tmux.waitUntil(description: "\(title) showing \(shows)") {
                $0.contains("› \(title)") && $0.contains(shows)
            }
        }
        let pane = try await tmux.tmux(["display-message", "-p", "#{pane_pid}"])
        let root = try #require(Int32(pane.trimmingCharacters(in: .whitespacesAndNewlines)))
        let program = try #require(descendant(of: root, named: "storefront"), "no storefront under \(root)")
        return try #require(peakKilobytes(program))
    }

    /// The first process named `name` at or under `pid`, through /proc's children lists.
    func descendant(of pid: Int32, named name: String) -> Int32? {
        let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if command == name { return pid }
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ Int32($0) }) {
            if let found = descendant(of: child, named: name) { return found }
        }
        return nil
    }

    /// The process's peak resident set (VmHWM), in kB.
    func peakKilobytes(_ pid: Int32) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }
}

extension ProductArtTests {
    @Test("C8 the shipped product-art scenario plays a developer's own package and ends on its picture")
    func shippedDemo() async throws {
        let session = try await Session()
        let tmux = try await TmuxSession(
            command: session.screenCommand(arguments: ["scenario", "play", "product-art", "--speed", "8"]))
        let end = try await tmux.waitUntil(colors: true, description: "the finished demo on the poster") { screen in
            screen.contains("Scenario finished: 2 passed, 0 failed") && screen.contains("› Gallery Poster")
                && screen.contains("▀") && screen.contains("38;5;")
        }
        #expect(!end.contains("picture unavailable"))
    }
}

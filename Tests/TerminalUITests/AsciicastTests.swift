// `scenario play --cast` — frames written as an asciicast v2 recording.
import Foundation
import Testing

@testable import TerminalUI

@Suite("asciicast recordings")
struct AsciicastTests {
    @Test(
        "a header line, then one output event per frame with only the rows that changed, a resize event, times from the clock"
    )
    func recording() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cast-\(UUID().uuidString).cast")
        defer { try? FileManager.default.removeItem(at: url) }
        var time = Date(timeIntervalSince1970: 1_800_000_000)
        let writer = try AsciicastWriter(url: url, size: Size(columns: 20, rows: 3), title: "Demo", now: { time })
        let terminal = RecordingTerminal(ScriptedTerminal(size: Size(columns: 20, rows: 3), events: []), writer: writer)
        var screen = Screen(size: Size(columns: 20, rows: 3))
        screen.write("Comics", x: 1, y: 0, style: Style(foreground: .indexed(2), bold: true))
        screen.write("Night Shift", x: 1, y: 1)
        terminal.render(screen)
        time += 1.5
        terminal.render(screen)  // nothing changed: no event
        screen.write("✓", x: 18, y: 1)
        terminal.render(screen)
        time += 0.25
        var bigger = Screen(size: Size(columns: 30, rows: 4))
        bigger.write("Resized", x: 0, y: 3)
        terminal.render(bigger)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(header["version"] as? Int == 2 && header["width"] as? Int == 20 && header["height"] as? Int == 3)
        #expect(header["title"] as? String == "Demo" && header["timestamp"] as? Int == 1_800_000_000)
        let events = try lines.dropFirst().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any])
        }
        #expect(events.map { $0[1] as? String } == ["o", "o", "r", "o"])
        #expect(events.map { $0[0] as? Double } == [0, 1.5, 1.75, 1.75])
        let first = try #require(events[0][2] as? String)
        #expect(
            first.hasPrefix("\u{1B}[0m\u{1B}[2J\u{1B}[1;1H") && first.contains("\u{1B}[0;1;32mComics")
                && first.contains("\u{1B}[2;1H Night Shift"))
        let second = try #require(events[1][2] as? String)
        #expect(second == "\u{1B}[2;1H Night Shift      ✓ ", "only the changed row: \(second.debugDescription)")
        #expect(events[2][2] as? String == "30x4")
        #expect((events[3][2] as? String)?.contains("\u{1B}[4;1HResized") == true)
    }

    @Test("a path that cannot be written is one clear error")
    func unwritable() {
        #expect(throws: AsciicastWriter.Failure.self) {
            try AsciicastWriter(
                url: URL(fileURLWithPath: "/nonexistent-folder/x.cast"), size: Size(columns: 10, rows: 2), title: "x")
        }
    }
}

// PNG decoding, scaling, quantisation and drawing (T4).
import Foundation
import TestSupport
import Testing

@testable import TerminalUI

/// A 4×2 test picture: red, green, blue, white / black, half-transparent red, grey, transparent.
let sample = RGBAImage(
    width: 4, height: 2,
    pixels: [
        255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255,
        0, 0, 0, 255, 255, 0, 0, 128, 128, 128, 128, 255, 0, 0, 0, 0,
    ])

func temporaryFile(_ data: Data, name: String = "image.png") throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pictures-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try data.write(to: url)
    return url
}

@Suite("PNG decoding")
struct DecodingTests {
    @Test("every layout decodes to the pixels that were written", arguments: PNGCodec.Layout.allCases)
    func roundTrip(layout: PNGCodec.Layout) throws {
        let data = try PNGCodec.encode(sample, layout: layout)
        let url = try temporaryFile(data)
        let decoded = try PNGCodec.decode(contentsOf: url)
        #expect(decoded.width == 4 && decoded.height == 2)
        for index in 0..<8 {
            let original = sample[index]
            let got = decoded[index]
            switch layout {
            case .rgba, .palette:
                #expect(got == original, "pixel \(index)")
            case .rgb:
                #expect(got == RGBA(original.r, original.g, original.b, 255), "pixel \(index)")
            case .gray, .grayAlpha:
                let luma = Palette.luma(original)
                #expect(abs(Int(got.r) - Int(luma)) <= 1 && got.r == got.g && got.g == got.b, "pixel \(index)")
                #expect(got.a == (layout == .gray ? 255 : original.a))
            case .rgba16:
                #expect(abs(Int(got.a) - Int(original.a)) <= 1, "pixel \(index)")
                if original.a == 255 {
                    #expect(
                        abs(Int(got.r) - Int(original.r)) <= 1 && abs(Int(got.g) - Int(original.g)) <= 1
                            && abs(Int(got.b) - Int(original.b)) <= 1, "pixel \(index): \(got)")
                }
            }
        }
    }

    @Test("the shipped comics decode")
    func shipped() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appendingPathComponent("assets/comics")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }
        #expect(files.count >= 8)
        for file in files {
            let image = try PNGCodec.decode(contentsOf: folder.appendingPathComponent(file))
            #expect(image.width == 240 && image.height == 160)
        }
    }

    struct BadFile: Sendable, CustomTestStringConvertible {
        let name: String
        let data: @Sendable () throws -> Data
        let reason: String
        var testDescription: String { name }
    }

    static let badFiles: [BadFile] = [
        BadFile(name: "empty", data: { Data() }, reason: "the file is empty"),
        BadFile(name: "not a PNG", data: { Data("GIF89a, or rather a text file".utf8) }, reason: "Not a PNG file"),
        BadFile(name: "truncated", data: { try PNGCodec.encode(sample).prefix(40) }, reason: ""),
        BadFile(
            name: "corrupt pixel data",
            data: {
                var data = try PNGCodec.encode(RGBAImage(width: 64, height: 64, fill: RGBA(10, 200, 30)))
                let idat = data.range(of: Data("IDAT".utf8))!.upperBound
                for offset in 2..<12 { data[idat + offset] ^= 0xA5 }
                return data
            }, reason: ""),
    ]

    @Test("a bad file is a typed error with libpng's message, never a crash", arguments: badFiles)
    func badFile(_ example: BadFile) throws {
        let url = try temporaryFile(try example.data(), name: "bad.png")
        do {
            _ = try PNGCodec.decode(contentsOf: url)
            Issue.record("decoded \(example.name)")
        } catch {
            guard case .notDecodable(let file, let reason) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(file == "bad.png")
            #expect(!reason.isEmpty)
            if !example.reason.isEmpty { #expect(reason.contains(example.reason), "\(reason)") }
            #expect(error.description.hasPrefix("bad.png: not a usable picture ("))
        }
    }

    @Test("a missing file says so")
    func missing() {
        #expect(throws: ImageError.unreadable(file: "nowhere.png", reason: "no such file")) {
            try PNGCodec.decode(contentsOf: URL(fileURLWithPath: "/nonexistent/nowhere.png"))
        }
    }

    @Test("a forged header asking for gigabytes is refused before allocating")
    func forgedHeader() throws {
        let data = try ArtPackage.forgedPNG(side: 60_000)
        let url = try temporaryFile(data, name: "forged.png")
        #expect(throws: ImageError.tooLarge(file: "forged.png", width: 60_000, height: 60_000)) {
            try PNGCodec.decode(contentsOf: url)
        }
    }
}

@Suite("Quantisation")
struct QuantisationTests {
    @Test(
        "xterm 256: cube corners, mid-cube levels and the grey ramp",
        arguments: [(RGBA, UInt8)](
            arrayLiteral: (RGBA(0, 0, 0), UInt8(16)), (RGBA(255, 255, 255), 231), (RGBA(255, 0, 0), 196),
            (RGBA(0, 255, 0), 46),
            (RGBA(0, 0, 255), 21), (RGBA(95, 135, 175), 67), (RGBA(128, 128, 128), 244), (RGBA(238, 238, 238), 255),
            (RGBA(8, 8, 8), 232), (RGBA(100, 100, 100), 241), (RGBA(255, 135, 0), 208), (RGBA(250, 250, 245), 231)
        ))
    func palette256(color: RGBA, expected: UInt8) {
        #expect(Palette.nearest256(color.r, color.g, color.b) == expected)
        // Never the theme's sixteen.
        #expect(Palette.nearest256(color.r, color.g, color.b) >= 16)
    }

    @Test("every colour maps to a palette entry no farther than its cube neighbour")
    func nearestIsNearest() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let (r, g, b) = (
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator)
            )
            let chosen = Palette.rgb(of: Palette.nearest256(r, g, b))
            let distance = Palette.distance((Int(r), Int(g), Int(b)), chosen)
            for candidate in 16...255 {
                let other = Palette.rgb(of: UInt8(candidate))
                #expect(distance <= Palette.distance((Int(r), Int(g), Int(b)), other) * 2 + 3000)
            }
        }
    }

    @Test(
        "eight colours: by hue, with darks to black and lights to white",
        arguments: [(RGBA, UInt8)](
            arrayLiteral: (RGBA(200, 30, 30), UInt8(1)), (RGBA(40, 40, 40), 0), (RGBA(250, 250, 245), 7),
            (RGBA(30, 30, 200), 4),
            (RGBA(220, 220, 40), 3), (RGBA(40, 180, 60), 2), (RGBA(40, 180, 200), 6), (RGBA(180, 40, 180), 5),
            (RGBA(128, 128, 128), 0)
        ))
    func eight(color: RGBA, expected: UInt8) {
        #expect(Palette.nearest8(color.r, color.g, color.b) == expected)
    }

    @Test("the character ramp runs dark to bright")
    func ramp() {
        #expect(Palette.rampCharacter(0) == " ")
        #expect(Palette.rampCharacter(255) == "@")
        #expect(Palette.rampCharacter(128) == "+")
    }
}

@Suite("Scaling")
struct ScalingTests {
    @Test(
        "fitting keeps the aspect ratio and never leaves the rectangle",
        arguments: [
            (240, 160, 80, 20), (240, 160, 20, 4), (1024, 1024, 80, 24), (1024, 1024, 200, 60), (10, 1000, 80, 24),
            (1000, 10, 80, 24), (1, 1, 5, 5), (240, 160, 1, 1), (3000, 2000, 200, 60),
        ])
    func fits(width: Int, height: Int, columns: Int, rows: Int) {
        let fitted = Scaler.fittedSize(width: width, height: height, columns: columns, rows: rows)
        #expect(fitted.width >= 1 && fitted.width <= columns)
        #expect(fitted.height >= 1 && fitted.height <= rows * 2)
        let wanted = Double(width) / Double(height)
        let got = Double(fitted.width) / Double(fitted.height)
        // Within one pixel of rounding on the shorter side.
        let tolerance = max(1 / Double(min(fitted.width, fitted.height)), 0.02) * wanted + 0.5 / Double(fitted.height)
        if fitted.width > 1, fitted.height > 1 { #expect(abs(wanted - got) <= tolerance * 2, "\(fitted)") }
        #expect(fitted.width == columns || fitted.height == rows * 2 || fitted.width == 1 || fitted.height == 1)
    }

    @Test("the box filter averages exactly, weighting colour by alpha")
    func boxFilter() {
        var image = RGBAImage(width: 2, height: 2)
        image[0, 0] = RGBA(200, 0, 0)
        image[1, 0] = RGBA(0, 0, 100)
        image[0, 1] = RGBA(100, 100, 100)
        image[1, 1] = RGBA(0, 255, 0, 0)
        let one = Scaler.scale(image, toWidth: 1, height: 1)[0, 0]
        // The transparent pixel adds no colour, only a quarter of no coverage.
        #expect(one == RGBA(100, 33, 67, 191))
        let flat = RGBAImage(width: 6, height: 4, fill: RGBA(10, 20, 30))
        #expect(Scaler.scale(flat, toWidth: 4, height: 3) == RGBAImage(width: 4, height: 3, fill: RGBA(10, 20, 30)))
    }

    @Test("a picture is drawn centred, as half blocks, inside its rectangle")
    func drawnInside() {
        var screen = Screen(size: Size(columns: 10, rows: 5))
        let picture = Picture(RGBAImage(width: 4, height: 4, fill: RGBA(255, 0, 0)))
        let area = Rect(x: 1, y: 1, width: 8, height: 3)
        screen.draw(picture, in: area, depth: .palette256)
        for y in 0..<5 {
            for x in 0..<10 where screen[x, y].text == "▀" {
                #expect(area.contains(x: x, y: y))
            }
        }
        // 4×4 pixels fit 8×3 cells as 6×6 pixels: 6 columns, 3 rows, centred.
        #expect(screen.lines == ["          ", "  ▀▀▀▀▀▀  ", "  ▀▀▀▀▀▀  ", "  ▀▀▀▀▀▀  ", "          "])
        #expect(screen[2, 1].style == Style(foreground: .indexed(196), background: .indexed(196)))
    }

    @Test("a known image renders to its expected grid: colours and the density ramp")
    func knownGrid() {
        var image = RGBAImage(width: 2, height: 4)
        image[0, 0] = RGBA(255, 255, 255)
        image[1, 0] = RGBA(0, 0, 0)
        image[0, 1] = RGBA(255, 255, 255)
        image[1, 1] = RGBA(0, 0, 0)
        image[0, 2] = RGBA(0, 0, 0)
        image[1, 2] = RGBA(255, 0, 0)
        image[0, 3] = RGBA(0, 0, 0)
        image[1, 3] = RGBA(0, 0, 255)
        var plain = Screen(size: Size(columns: 2, rows: 2))
        plain.draw(Picture(image), in: plain.bounds, depth: .none)
        #expect(plain.lines == ["@ ", " :"])
        var colour = Screen(size: Size(columns: 2, rows: 2))
        colour.draw(Picture(image), in: colour.bounds, depth: .palette256)
        #expect(colour[0, 0].style == Style(foreground: .indexed(231), background: .indexed(231)))
        #expect(colour[1, 1].style == Style(foreground: .indexed(196), background: .indexed(21)))
        var eight = Screen(size: Size(columns: 2, rows: 2))
        eight.draw(Picture(image), in: eight.bounds, depth: .eight)
        #expect(eight[1, 1].style == Style(foreground: .indexed(1), background: .indexed(4)))
    }
}

// JPEG beside PNG, the file's content choosing the decoder, scaling while decoding, and the limits
// checked before any pixel memory is taken (T4, C8).
import Foundation
import TestSupport
import Testing

@testable import TerminalUI

/// Four flat quadrants: red, green, blue, yellow. Flat areas survive JPEG's loss nearly exactly.
func quadrants(side: Int = 64) -> RGBAImage {
    var image = RGBAImage(width: side, height: side)
    let colours = [RGBA(220, 30, 30), RGBA(30, 200, 40), RGBA(30, 40, 210), RGBA(230, 220, 40)]
    for y in 0..<side {
        for x in 0..<side { image[x, y] = colours[(y < side / 2 ? 0 : 2) + (x < side / 2 ? 0 : 1)] }
    }
    return image
}

/// A smooth picture with detail everywhere, for comparing scalers exactly.
func gradient(width: Int, height: Int) -> RGBAImage {
    var image = RGBAImage(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            image[x, y] = RGBA(
                UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x * y) % 256), UInt8(128 + x % 128))
        }
    }
    return image
}

func close(_ a: RGBA, _ b: RGBA, within tolerance: Int) -> Bool {
    abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
        && abs(Int(a.b) - Int(b.b)) <= tolerance
}

@Suite("JPEG and the choice of decoder")
struct ImageFormatTests {
    @Test("every JPEG layout decodes to the colours that were written", arguments: JPEGCodec.Layout.allCases)
    func jpegLayouts(layout: JPEGCodec.Layout) throws {
        let source = quadrants()
        let data = try JPEGCodec.encode(source, layout: layout, quality: 95)
        #expect(ImageFormat.of(data) == .jpeg)
        let decoded = try ImageDecoder.decode(data, name: "q.jpg")
        #expect(decoded.width == 64 && decoded.height == 64)
        for (x, y) in [(16, 16), (48, 16), (16, 48), (48, 48)] {
            let original = source[x, y]
            let expected =
                layout == .gray
                ? RGBA(Palette.luma(original), Palette.luma(original), Palette.luma(original)) : original
            #expect(close(decoded[x, y], expected, within: 10), "\(layout) at \(x),\(y): \(decoded[x, y])")
            #expect(decoded[x, y].a == 255)
        }
    }

    @Test("the file's content chooses the decoder, whatever its name says")
    func contentDecides() throws {
        let jpeg = try JPEGCodec.encode(quadrants())
        let png = try PNGCodec.encode(quadrants())
        for (data, name) in [(jpeg, "really-a-jpeg.png"), (png, "UPPER.PNG"), (png, "no-extension")] {
            let picture = try Picture(contentsOf: try temporaryFile(data, name: name), columns: 80, rows: 24)
            #expect(picture.width == 64 && picture.height == 64)
        }
        #expect(throws: ImageError.notDecodable(file: "notes.jpg", reason: "not a PNG or JPEG file")) {
            try Picture(contentsOf: try temporaryFile(Data("GIF89a...".utf8), name: "notes.jpg"), columns: 80, rows: 24)
        }
    }

    @Test("a PNG scaled row by row as it is decoded is exactly the whole picture scaled")
    func streamingMatchesWhole() throws {
        let source = gradient(width: 97, height: 61)
        let data = try PNGCodec.encode(source)
        for (width, height) in [(13, 9), (40, 25), (97, 61), (150, 100)] {
            let streamed = try ImageDecoder.decode(data, name: "g.png", toWidth: width, height: height)
            #expect(streamed == Scaler.scale(source, toWidth: width, height: height), "\(width)×\(height)")
        }
    }

    @Test("libjpeg scales in the decoder to the smallest eighth that still has enough pixels")
    func jpegScale() {
        #expect(JPEGCodec.scaledSize(width: 1024, height: 1024, atLeast: (80, 48)) == (128, 128))
        #expect(JPEGCodec.scaledSize(width: 1024, height: 768, atLeast: (200, 150)) == (256, 192))
        #expect(JPEGCodec.scaledSize(width: 100, height: 100, atLeast: (100, 100)) == (100, 100))
        // Larger than the picture: the picture's own size, never an upscale in the decoder.
        #expect(JPEGCodec.scaledSize(width: 64, height: 64, atLeast: (200, 120)) == (64, 64))
    }

    @Test("a JPEG decoded for the terminal matches the whole JPEG scaled, within a little")
    func jpegScaledMatches() throws {
        let source = quadrants(side: 512)
        let data = try JPEGCodec.encode(source, quality: 95)
        let scaled = try ImageDecoder.decode(data, name: "q.jpg", toWidth: 40, height: 40)
        let whole = Scaler.scale(try JPEGCodec.decode(data), toWidth: 40, height: 40)
        for (x, y) in [(5, 5), (35, 5), (5, 35), (35, 35)] { #expect(close(scaled[x, y], whole[x, y], within: 6)) }
    }

    @Test("a 30,000 × 30,000 header is refused before allocating, as PNG and as JPEG")
    func forgedSizes() throws {
        let jpeg = ArtPackage.forgedJPEG(try JPEGCodec.encode(quadrants()), width: 30_000, height: 30_000)
        let refusal = ImageError.tooLarge(file: "huge.jpg", width: 30_000, height: 30_000)
        #expect(throws: refusal) { try Picture(decoding: jpeg, name: "huge.jpg", columns: 80, rows: 24) }
        #expect(refusal.description.contains("at most 8192 pixels a side"))
        let png = try ArtPackage.forgedPNG(side: 30_000)
        #expect(throws: ImageError.tooLarge(file: "huge.png", width: 30_000, height: 30_000)) {
            try Picture(decoding: png, name: "huge.png", columns: 80, rows: 24)
        }
    }

    @Test("a truncated file is an error with its reason, as PNG and as JPEG")
    func truncated() throws {
        let picture = gradient(width: 200, height: 200)
        let files = [("half.jpg", try JPEGCodec.encode(picture)), ("half.png", try PNGCodec.encode(picture))]
        for (name, data) in files {
            let error = #expect(throws: ImageError.self) {
                try Picture(decoding: data.prefix(data.count / 2), name: name, columns: 80, rows: 24)
            }
            guard case .notDecodable(name, let reason)? = error else {
                Issue.record("\(name): \(String(describing: error))")
                continue
            }
            // libjpeg calls it a premature end of the file; libpng names what it could not read.
            #expect(name.hasSuffix("png") || reason.contains("Premature end"), "\(reason)")
            #expect(!reason.isEmpty)
        }
    }

    @Test("a picture keeps the pixels its terminal needs, and decodes again for a larger one")
    func keepsWhatIsNeeded() throws {
        for data in [
            try PNGCodec.encode(gradient(width: 1024, height: 1024)), try JPEGCodec.encode(quadrants(side: 1024)),
        ] {
            let picture = try Picture(decoding: data, name: "big", columns: 80, rows: 24)
            #expect(picture.width == 1024 && picture.height == 1024)
            #expect(picture.workingSize == (48, 48))
            #expect(picture.scaled(columns: 80, rows: 24).width == 48)
            // Smaller: from what is kept. Larger: from the file's bytes again.
            #expect(picture.scaled(columns: 40, rows: 12).width == 24)
            #expect(picture.workingSize == (48, 48))
            #expect(picture.scaled(columns: 200, rows: 60).width == 120)
            #expect(picture.workingSize == (120, 120))
        }
    }
}

// A `.storekit` package of the tests' own making, as Xcode keeps one (C8): Configuration.storekit
// beside Assets/, with the kinds of art real packages hold.
import Foundation
import TerminalUI

public struct ArtPackage {
    public struct Art: Sendable {
        public let title: String
        public let imageID: String
        /// The asset's file name, nil when the ID names no file.
        public let file: String?
        /// The picture's one colour, on the xterm cube, so that the cells' colours can be checked.
        public let colour: RGBA
        public let data: @Sendable () throws -> Data

        public init(
            title: String, imageID: String, file: String?, colour: RGBA, data: @escaping @Sendable () throws -> Data
        ) {
            (self.title, self.imageID, self.file, self.colour, self.data) = (title, imageID, file, colour, data)
        }
    }

    public static func flat(_ side: Int, _ colour: RGBA) -> RGBAImage {
        RGBAImage(width: side, height: side, fill: colour)
    }

    public static let arts: [Art] = [
        Art(title: "Big Poster", imageID: "big-poster", file: "big-poster.png", colour: RGBA(215, 0, 0)) {
            try PNGCodec.encode(flat(1024, RGBA(215, 0, 0)), layout: .rgb)
        },
        Art(title: "Small Poster", imageID: "small-poster", file: "small-poster.png", colour: RGBA(0, 175, 0)) {
            try PNGCodec.encode(flat(512, RGBA(0, 175, 0)))
        },
        Art(title: "Baseline Photo", imageID: "baseline", file: "baseline.jpg", colour: RGBA(0, 0, 215)) {
            try JPEGCodec.encode(flat(600, RGBA(0, 0, 215)), layout: .baseline)
        },
        Art(title: "Progressive Photo", imageID: "progressive", file: "progressive.jpg", colour: RGBA(215, 215, 0)) {
            try JPEGCodec.encode(flat(600, RGBA(215, 215, 0)), layout: .progressive)
        },
        Art(title: "Shouting Banner", imageID: "shouting", file: "shouting.PNG", colour: RGBA(0, 175, 175)) {
            try PNGCodec.encode(flat(300, RGBA(0, 175, 175)))
        },
        Art(title: "Torn Ticket", imageID: "torn", file: "torn.png", colour: RGBA(0, 0, 0)) {
            let whole = try PNGCodec.encode(
                RGBAImage(
                    width: 400, height: 400, pixels: (0..<(400 * 400 * 4)).map { UInt8(truncatingIfNeeded: $0 * 7) }))
            return whole.prefix(whole.count / 2)
        },
    ]

    /// Writes the package into `folder` as `name` (with an asset no product names) and returns it.
    public static func write(in folder: URL, name: String = "Gallery.storekit", arts: [Art] = arts) throws -> URL {
        let package = folder.appendingPathComponent(name)
        let assets = package.appendingPathComponent("Assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        var products: [[String: Any]] = []
        for (index, art) in arts.enumerated() {
            if let file = art.file { try art.data().write(to: assets.appendingPathComponent(file)) }
            products.append([
                "displayPrice": "1.99", "familyShareable": false, "internalID": "A\(index)",
                "localizations": [["description": "Art \(index)", "displayName": art.title, "locale": "en_US"]],
                "productID": "art.\(art.imageID)", "promotionalImageID": art.imageID, "referenceName": art.title,
                "type": "NonConsumable",
            ])
        }
        try PNGCodec.encode(flat(64, RGBA(255, 255, 255))).write(to: assets.appendingPathComponent("leftover.png"))
        let configuration: [String: Any] = [
            "identifier": "ART", "products": products, "settings": [:], "subscriptionGroups": [],
            "nonRenewingSubscriptions": [], "version": ["major": 3, "minor": 0],
        ]
        try JSONSerialization.data(withJSONObject: configuration, options: [.prettyPrinted, .sortedKeys])
            .write(to: package.appendingPathComponent("Configuration.storekit"))
        return package
    }

    /// How many times each xterm-256 index is set as a foreground or background in a capture.
    public static func colourCounts(_ capture: String) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        let pattern = try! NSRegularExpression(pattern: "[34]8;5;(\\d+)")
        let range = NSRange(capture.startIndex..., in: capture)
        for match in pattern.matches(in: capture, range: range) {
            if let found = Range(match.range(at: 1), in: capture), let index = Int(capture[found]) {
                counts[index, default: 0] += 1
            }
        }
        return counts
    }
}

/// PNG's CRC-32 (ISO 3309), for headers the tests forge.
public func crc32(_ bytes: Data) -> UInt32 {
    let crc = bytes.reduce(UInt32.max) { crc, byte in
        (0..<8).reduce(crc ^ UInt32(byte)) { value, _ in value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
    }
    return ~crc
}

extension ArtPackage {
    /// A PNG whose header says `side`×`side`, its CRC made good so that only the size is wrong.
    public static func forgedPNG(side: Int) throws -> Data {
        var png = try PNGCodec.encode(flat(16, RGBA(10, 20, 30)))
        for offset in [16, 20] {
            for byte in 0..<4 { png[offset + byte] = UInt8((UInt32(side) >> (24 - 8 * UInt32(byte))) & 0xFF) }
        }
        let crc = crc32(png[12..<29])
        for byte in 0..<4 { png[29 + byte] = UInt8((crc >> (24 - 8 * UInt32(byte))) & 0xFF) }
        return png
    }

    /// `data`, a JPEG, with its frame header (SOF0 or SOF2) saying `width`×`height`.
    public static func forgedJPEG(_ data: Data, width: Int, height: Int) -> Data {
        var data = data
        var index = 2
        while index + 9 < data.count, data[index] == 0xFF {
            let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
            if data[index + 1] == 0xC0 || data[index + 1] == 0xC2 {
                data[index + 5] = UInt8(height >> 8)
                data[index + 6] = UInt8(height & 0xFF)
                data[index + 7] = UInt8(width >> 8)
                data[index + 8] = UInt8(width & 0xFF)
                return data
            }
            index += 2 + length
        }
        return data
    }

    /// A package of two products whose art declares 30,000 × 30,000 pixels, PNG and JPEG.
    public static func huge(in folder: URL) throws -> URL {
        let png = try forgedPNG(side: 30_000)
        let jpeg = forgedJPEG(try JPEGCodec.encode(flat(16, RGBA(10, 20, 30))), width: 30_000, height: 30_000)
        let arts = [
            Art(title: "Huge PNG", imageID: "huge-png", file: "huge-png.png", colour: RGBA(0, 0, 0)) { png },
            Art(title: "Huge JPEG", imageID: "huge-jpeg", file: "huge-jpeg.jpg", colour: RGBA(0, 0, 0)) { jpeg },
        ]
        return try write(in: folder, name: "Huge.storekit", arts: arts)
    }
}

// From pixels to cells: area-averaging scale, colour quantisation to what the terminal has, and
// upper-half-block cells (two pixels a cell) or a character-density ramp without colour.
import Foundation

/// What the terminal can show.
public enum ColorDepth: Sendable, Equatable {
    /// No colour (or NO_COLOR): a density ramp of characters.
    case none
    /// The eight basic colours.
    case eight
    /// The xterm 256-colour palette: the 6×6×6 cube and the grey ramp (never the theme's 16).
    case palette256
}

public enum Palette {
    /// The cube's channel levels in xterm.
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// The nearest colour of the xterm cube (16–231) or grey ramp (232–255).
    public static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let (ri, gi, bi) = (cubeIndex(r), cubeIndex(g), cubeIndex(b))
        let cube = (cubeLevels[ri], cubeLevels[gi], cubeLevels[bi])
        let cubeDistance = distance((Int(r), Int(g), Int(b)), cube)
        // Grey ramp: 8, 18, …, 238.
        let average = (Int(r) + Int(g) + Int(b)) / 3
        let greyIndex = min(23, max(0, (average - 3) / 10))
        let greyLevel = 8 + 10 * greyIndex
        let greyDistance = distance((Int(r), Int(g), Int(b)), (greyLevel, greyLevel, greyLevel))
        if greyDistance < cubeDistance { return UInt8(232 + greyIndex) }
        return UInt8(16 + 36 * ri + 6 * gi + bi)
    }

    static func cubeIndex(_ value: UInt8) -> Int {
        let v = Int(value)
        if v < 48 { return 0 }
        if v < 115 { return 1 }
        return min(5, (v - 35) / 40)
    }

    /// The RGB an xterm palette index stands for (16–255), for tests and the 8-colour mapping.
    public static func rgb(of index: UInt8) -> (Int, Int, Int) {
        let i = Int(index)
        if i >= 232 {
            let level = 8 + 10 * (i - 232)
            return (level, level, level)
        }
        if i >= 16 {
            let c = i - 16
            return (cubeLevels[c / 36], cubeLevels[(c / 6) % 6], cubeLevels[c % 6])
        }
        return basic[i % 8]
    }

    /// The eight basic colours as most terminals draw them.
    static let basic: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
    ]

    /// The nearest of the eight basic colours, by hue rather than distance alone: a dark red is
    /// still red, not black, unless it is nearly black.
    public static func nearest8(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let (ri, gi, bi) = (Int(r), Int(g), Int(b))
        let maximum = max(ri, gi, bi)
        let minimum = min(ri, gi, bi)
        if maximum < 50 { return 0 }
        if maximum - minimum < 40 { return maximum < 140 ? 0 : 7 }
        let threshold = (maximum + minimum) / 2
        let bits = (ri > threshold ? 1 : 0) | (gi > threshold ? 2 : 0) | (bi > threshold ? 4 : 0)
        return UInt8(bits == 7 ? 7 : bits)
    }

    static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let (dr, dg, db) = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
        // Weighted for the eye: green counts most, blue least.
        return 3 * dr * dr + 4 * dg * dg + 2 * db * db
    }

    /// Perceived brightness, 0–255 (Rec. 601 weights).
    public static func luma(_ pixel: RGBA) -> UInt8 {
        let red: Int = 299 * Int(pixel.r)
        let green: Int = 587 * Int(pixel.g)
        let blue: Int = 114 * Int(pixel.b)
        return UInt8((red + green + blue) / 1000)
    }

    /// sRGB channel to linear light, 0–1.
    static func linear(_ value: UInt8) -> Double {
        let c = Double(value) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// Darkest to brightest.
    public static let ramp: [Character] = Array(" .:-=+*#%@")

    public static func rampCharacter(_ brightness: UInt8) -> Character {
        ramp[min(ramp.count - 1, Int(brightness) * ramp.count / 256)]
    }
}

/// A picture ready to be drawn at any size. A generated one holds its pixels; one from a file
/// holds the file's bytes and a working copy decoded for the largest size asked of it so far (at
/// first, the terminal's), never the full-size pixels unless a terminal is that large. Scaled
/// results are cached by size, so that a redraw costs only the cell writes.
public final class Picture: @unchecked Sendable {
    /// The picture's own size.
    public let width: Int
    public let height: Int
    private let encoded: (data: Data, name: String)?
    private var working: RGBAImage
    private var cache: [Size: RGBAImage] = [:]
    private let lock = NSLock()

    public init(_ image: RGBAImage) {
        (width, height) = (image.width, image.height)
        encoded = nil
        working = image
    }

    /// Decodes `data` (a PNG or a JPEG, whatever its name says) for a terminal of `columns`×`rows`:
    /// any error in the file surfaces here, not when it is drawn.
    public init(decoding data: Data, name: String, columns: Int, rows: Int) throws(ImageError) {
        let decoded = try ImageDecoder.decode(data, name: name) { width, height in
            Scaler.fittedSize(width: width, height: height, columns: max(1, columns), rows: max(1, rows))
        }
        (width, height, working) = (decoded.width, decoded.height, decoded.image)
        encoded = (data, name)
    }

    /// The file at `url`, refused before it is read when it is larger than a picture may be.
    public convenience init(contentsOf url: URL, name: String? = nil, columns: Int, rows: Int) throws(ImageError) {
        let name = name ?? url.lastPathComponent
        try self.init(decoding: try ImageFile.read(url, name: name), name: name, columns: columns, rows: rows)
    }

    /// The pixels held now (for tests and the benchmarks: how much is kept).
    public var workingSize: (width: Int, height: Int) { lock.withLock { (working.width, working.height) } }

    public func scaled(columns: Int, rows: Int) -> RGBAImage {
        let fitted = Scaler.fittedSize(width: width, height: height, columns: columns, rows: rows)
        let key = Size(columns: fitted.width, rows: fitted.height)
        return lock.withLock {
            if let cached = cache[key] { return cached }
            // A larger window than any before: decode again from the bytes, at the new size.
            if let encoded, fitted.width > working.width || fitted.height > working.height,
                let larger = try? ImageDecoder.decode(
                    encoded.data, name: encoded.name, toWidth: fitted.width, height: fitted.height)
            {
                working = larger
            }
            let scaled = Scaler.scale(working, toWidth: fitted.width, height: fitted.height)
            if cache.count > 8 { cache.removeAll() }
            cache[key] = scaled
            return scaled
        }
    }
}

extension Screen {
    /// Draws `picture` centred in `area`: upper half blocks (top pixel the foreground, bottom the
    /// background) in colour, or the density ramp without. Transparent pixels show `background`.
    public mutating func draw(_ picture: Picture, in area: Rect, depth: ColorDepth, background: RGBA = RGBA(0, 0, 0)) {
        guard area.width > 0, area.height > 0 else { return }
        let scaled = picture.scaled(columns: area.width, rows: area.height)
        let cellRows = (scaled.height + 1) / 2
        let left = area.x + (area.width - scaled.width) / 2
        let top = area.y + (area.height - cellRows) / 2
        for row in 0..<cellRows {
            for column in 0..<scaled.width {
                let upper = composite(scaled[column, row * 2], over: background)
                let lower =
                    row * 2 + 1 < scaled.height ? composite(scaled[column, row * 2 + 1], over: background) : background
                let cell: Cell
                switch depth {
                case .palette256:
                    cell = Cell(
                        "▀",
                        style: Style(
                            foreground: .indexed(Palette.nearest256(upper.r, upper.g, upper.b)),
                            background: .indexed(Palette.nearest256(lower.r, lower.g, lower.b))
                        ))
                case .eight:
                    cell = Cell(
                        "▀",
                        style: Style(
                            foreground: .indexed(Palette.nearest8(upper.r, upper.g, upper.b)),
                            background: .indexed(Palette.nearest8(lower.r, lower.g, lower.b))
                        ))
                case .none:
                    let brightness = UInt8((Int(Palette.luma(upper)) + Int(Palette.luma(lower))) / 2)
                    cell = Cell(String(Palette.rampCharacter(brightness)))
                }
                put(cell, x: left + column, y: top + row)
            }
        }
    }

    func composite(_ pixel: RGBA, over background: RGBA) -> RGBA {
        if pixel.a == 255 { return pixel }
        let alpha = Int(pixel.a)
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) * alpha + Int(b) * (255 - alpha) + 127) / 255) }
        return RGBA(mix(pixel.r, background.r), mix(pixel.g, background.g), mix(pixel.b, background.b))
    }
}

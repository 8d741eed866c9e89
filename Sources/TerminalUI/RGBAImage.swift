// Pixels as every decoder gives them and the scaler takes them, and the errors of reading them.
import Foundation

/// 8-bit RGBA pixels, row by row, not premultiplied.
public struct RGBAImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "pixel buffer does not match \(width)×\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, fill: RGBA = RGBA(0, 0, 0, 0)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
        if fill != RGBA(0, 0, 0, 0) {
            for index in 0..<(width * height) { self[index] = fill }
        }
    }

    subscript(index: Int) -> RGBA {
        get { RGBA(pixels[index * 4], pixels[index * 4 + 1], pixels[index * 4 + 2], pixels[index * 4 + 3]) }
        set {
            pixels[index * 4] = newValue.r
            pixels[index * 4 + 1] = newValue.g
            pixels[index * 4 + 2] = newValue.b
            pixels[index * 4 + 3] = newValue.a
        }
    }

    public subscript(x: Int, y: Int) -> RGBA {
        get { self[y * width + x] }
        set { self[y * width + x] = newValue }
    }
}

public struct RGBA: Hashable, Sendable {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        (self.r, self.g, self.b, self.a) = (r, g, b, a)
    }
}

public enum ImageError: Error, Equatable, CustomStringConvertible, Sendable {
    case unreadable(file: String, reason: String)
    case notDecodable(file: String, reason: String)
    case tooLarge(file: String, width: Int, height: Int)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(file): cannot be read (\(reason))"
        case .notDecodable(let file, let reason): "\(file): not a usable picture (\(reason))"
        case .tooLarge(let file, let width, let height):
            "\(file): \(width)×\(height) is larger than a picture can be (at most \(ImageLimits.maximumSide) pixels a side, \(ImageLimits.maximumPixels / 1_048_576) megapixels)"
        }
    }

    /// The reason alone, for a placeholder that already shows the file name.
    public var reason: String {
        switch self {
        case .unreadable(_, let reason), .notDecodable(_, let reason): reason
        case .tooLarge(_, let width, let height): "\(width)×\(height) is too large"
        }
    }
}

/// What a picture may be, checked from its header before any pixel memory is allocated, so that a
/// forged header cannot ask for gigabytes; and from the file's size before it is read.
public enum ImageLimits {
    public static let maximumSide = 8192
    public static let maximumPixels = 32 * 1024 * 1024
    public static let maximumFileBytes = 64 * 1024 * 1024

    static func check(width: Int, height: Int, name: String) throws(ImageError) {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide, width * height <= maximumPixels else {
            throw ImageError.tooLarge(file: name, width: width, height: height)
        }
    }
}

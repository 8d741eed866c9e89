// Pictures: decoding and encoding PNG with libpng's simplified API (safe from Swift: it reports
// errors in the image structure instead of longjmp-ing through Swift frames).
import CPNG
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
        case .notDecodable(let file, let reason): "\(file): not a usable PNG (\(reason))"
        case .tooLarge(let file, let width, let height):
            "\(file): \(width)×\(height) is larger than a comic can be (at most \(PNGCodec.maximumSide) pixels a side)"
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

public enum PNGCodec {
    /// The largest side accepted: checked from the header, before any pixel memory is allocated,
    /// so that a forged header cannot ask for gigabytes.
    public static let maximumSide = 8192
    public static let maximumPixels = 32 * 1024 * 1024

    /// `name` is how errors name the file: the file's name by default, the path as typed where a
    /// person typed one.
    public static func decode(contentsOf url: URL, name: String? = nil) throws(ImageError) -> RGBAImage {
        let name = name ?? url.lastPathComponent
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw ImageError.unreadable(
                file: name,
                reason: FileManager.default.fileExists(atPath: url.path) ? "permission denied" : "no such file")
        }
        guard (attributes[.size] as? Int ?? 0) > 0 else {
            throw ImageError.notDecodable(file: name, reason: "the file is empty")
        }
        var image = png_image()
        image.version = sf_png_image_version
        guard png_image_begin_read_from_file(&image, url.path) != 0 else {
            throw failure(&image, name: name)
        }
        return try finish(&image, name: name)
    }

    public static func decode(_ data: Data, name: String = "image") throws(ImageError) -> RGBAImage {
        guard !data.isEmpty else { throw ImageError.notDecodable(file: name, reason: "the file is empty") }
        var image = png_image()
        image.version = sf_png_image_version
        // libpng keeps a pointer to the bytes until the read is finished, so both happen in here.
        let result: Result<RGBAImage, ImageError> = data.withUnsafeBytes { bytes in
            guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
                return .failure(failure(&image, name: name))
            }
            return Result { () throws(ImageError) -> RGBAImage in try finish(&image, name: name) }
        }
        return try result.get()
    }

    /// Checks the header's size, then reads the pixels as 8-bit RGBA.
    private static func finish(_ image: inout png_image, name: String) throws(ImageError) -> RGBAImage {
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide, width * height <= maximumPixels else {
            png_image_free(&image)
            throw ImageError.tooLarge(file: name, width: width, height: height)
        }
        image.format = sf_png_format_rgba
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, nil, buffer.baseAddress, Int32(width * 4), nil)
        }
        guard finished != 0 else { throw failure(&image, name: name) }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    private static func failure(_ image: inout png_image, name: String) -> ImageError {
        let reason = message(of: &image)
        png_image_free(&image)
        return ImageError.notDecodable(file: name, reason: reason)
    }

    /// libpng's own message, kept in the image structure.
    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng could not read it" : text
    }

    /// The pixel layouts PNG files come in; the encoder writes any of them (for tests and tools).
    public enum Layout: String, CaseIterable, Sendable {
        case gray, grayAlpha, rgb, rgba, palette, rgba16
    }

    /// Encodes `image` as a PNG in the given layout (grey layouts take the green channel's luma).
    public static func encode(_ image: RGBAImage, layout: Layout = .rgba) throws(ImageError) -> Data {
        var png = png_image()
        png.version = sf_png_image_version
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        var buffer: [UInt8] = []
        var wide: [UInt16] = []
        var colormap: [UInt8] = []
        var stride = image.width
        switch layout {
        case .gray, .grayAlpha:
            png.format = layout == .gray ? sf_png_format_gray : sf_png_format_ga
            let channels = layout == .gray ? 1 : 2
            stride = image.width * channels
            for index in 0..<(image.width * image.height) {
                let pixel = image[index]
                buffer.append(Palette.luma(pixel))
                if channels == 2 { buffer.append(pixel.a) }
            }
        case .rgb:
            png.format = sf_png_format_rgb
            stride = image.width * 3
            for index in 0..<(image.width * image.height) {
                let pixel = image[index]
                buffer += [pixel.r, pixel.g, pixel.b]
            }
        case .rgba:
            png.format = sf_png_format_rgba
            stride = image.width * 4
            buffer = image.pixels
        case .rgba16:
            // Linear 16-bit: libpng expects linear light, premultiplied by alpha.
            png.format = sf_png_format_rgba | sf_png_format_flag_linear
            stride = image.width * 4
            for index in 0..<(image.width * image.height) {
                let pixel = image[index]
                let alpha = Double(pixel.a) / 255
                for channel in [pixel.r, pixel.g, pixel.b] {
                    wide.append(UInt16((Palette.linear(channel) * alpha * 65535).rounded()))
                }
                wide.append(UInt16(pixel.a) * 257)
            }
        case .palette:
            png.format = sf_png_format_rgba | sf_png_format_flag_colormap
            var indexOf: [RGBA: UInt8] = [:]
            for index in 0..<(image.width * image.height) {
                let pixel = image[index]
                if let known = indexOf[pixel] {
                    buffer.append(known)
                } else {
                    guard indexOf.count < 256 else {
                        throw ImageError.notDecodable(file: "palette", reason: "more than 256 colours")
                    }
                    let next = UInt8(indexOf.count)
                    indexOf[pixel] = next
                    colormap += [pixel.r, pixel.g, pixel.b, pixel.a]
                    buffer.append(next)
                }
            }
            png.colormap_entries = UInt32(indexOf.count)
        }
        var size = 0
        let rowStride = Int32(stride)
        let probe: Int32 =
            layout == .rgba16
            ? wide.withUnsafeBytes { png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, rowStride, nil) }
            : buffer.withUnsafeBytes { pixels in
                colormap.withUnsafeBytes { map in
                    png_image_write_to_memory(&png, nil, &size, 0, pixels.baseAddress, rowStride, map.baseAddress)
                }
            }
        guard probe != 0, size > 0 else {
            let reason = message(of: &png)
            throw ImageError.notDecodable(file: "encoder", reason: reason)
        }
        var output = Data(count: size)
        let written: Int32 = output.withUnsafeMutableBytes { out in
            layout == .rgba16
                ? wide.withUnsafeBytes {
                    png_image_write_to_memory(&png, out.baseAddress, &size, 0, $0.baseAddress, rowStride, nil)
                }
                : buffer.withUnsafeBytes { pixels in
                    colormap.withUnsafeBytes { map in
                        png_image_write_to_memory(
                            &png, out.baseAddress, &size, 0, pixels.baseAddress, rowStride, map.baseAddress)
                    }
                }
        }
        guard written != 0 else { throw ImageError.notDecodable(file: "encoder", reason: message(of: &png)) }
        return output.prefix(size)
    }
}

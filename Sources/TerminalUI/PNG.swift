// PNG: decoding row by row through libpng's classic API (its longjmp lands in C, in
// CImageCodecs), and encoding with its simplified API (for tests and tools).
import CImageCodecs
import Foundation

public enum PNGCodec {
    /// The whole picture at its own size.
    public static func decode(contentsOf url: URL, name: String? = nil) throws(ImageError) -> RGBAImage {
        let name = name ?? url.lastPathComponent
        return try decode(try ImageFile.read(url, name: name), name: name)
    }

    public static func decode(_ data: Data, name: String = "image") throws(ImageError) -> RGBAImage {
        let sink = try decodeRows(data, name: name) { width, height in FullImage(width: width, height: height) }
        guard let full = sink as? FullImage else { preconditionFailure("the sink made is the sink given") }
        return RGBAImage(width: full.width, height: full.height, pixels: full.pixels)
    }

    /// Decodes `data` row by row into what `sink(width, height)` makes once the header is read and
    /// its size checked: only one row of the file's pixels is held at a time (two for Adam7 files,
    /// which libpng gives whole).
    /// `sink` may answer nil, to stop at the header.
    static func decodeRows(
        _ data: Data, name: String, sink: @escaping (Int, Int) -> (any RowSink)?
    ) throws(ImageError) -> (any RowSink)? {
        guard !data.isEmpty else { throw ImageError.notDecodable(file: name, reason: "the file is empty") }
        let reader = RowReader(name: name, makeSink: sink)
        var message = [CChar](repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(reader).toOpaque()
        let result = data.withUnsafeBytes { bytes in
            message.withUnsafeMutableBufferPointer { text in
                sf_png_decode_rows(
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, context,
                    { context, width, height in
                        Unmanaged<RowReader>.fromOpaque(context!).takeUnretainedValue().begin(Int(width), Int(height))
                    },
                    { context, row, y in
                        Unmanaged<RowReader>.fromOpaque(context!).takeUnretainedValue().sink?.add(row: row!, y: Int(y))
                    }, text.baseAddress, text.count)
            }
        }
        if let refusal = reader.refusal { throw refusal }
        if result == 1 { return nil }
        guard result == 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageError.notDecodable(file: name, reason: text.isEmpty ? "libpng could not read it" : text)
        }
        guard let sink = reader.sink else { throw ImageError.notDecodable(file: name, reason: "libpng gave no pixels") }
        return sink
    }

    /// Between C and the sink: checks the size before the sink allocates anything.
    private final class RowReader {
        let name: String
        let makeSink: (Int, Int) -> (any RowSink)?
        var sink: (any RowSink)?
        var refusal: ImageError?

        init(name: String, makeSink: @escaping (Int, Int) -> (any RowSink)?) {
            self.name = name
            self.makeSink = makeSink
        }

        func begin(_ width: Int, _ height: Int) -> Int32 {
            do throws(ImageError) {
                try ImageLimits.check(width: width, height: height, name: name)
            } catch {
                refusal = error
                return 0
            }
            sink = makeSink(width, height)
            return sink == nil ? 0 : 1
        }
    }

    /// Rows copied into one full-size image.
    private final class FullImage: RowSink {
        let width: Int
        let height: Int
        var pixels: [UInt8]

        init(width: Int, height: Int) {
            (self.width, self.height) = (width, height)
            pixels = [UInt8](repeating: 0, count: width * height * 4)
        }

        func add(row: UnsafePointer<UInt8>, y: Int) {
            let stride = width * 4
            pixels.withUnsafeMutableBufferPointer { pixels in
                (pixels.baseAddress! + y * stride).update(from: row, count: stride)
            }
        }
    }

    /// libpng's own message, kept in the image structure.
    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng could not write it" : text
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

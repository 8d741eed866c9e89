// JPEG through libjpeg-turbo's TurboJPEG API, which catches libjpeg's errors itself. Scaling in
// the decoder (the DCT's 1/8 to 1 steps) gives no more pixels than the terminal needs; grey files
// come out as RGB, and CMYK ones as the CMYK libjpeg gives, turned into RGB here.
import CImageCodecs
import Foundation

public enum JPEGCodec {
    /// The header's size and colour space, without decoding a pixel.
    static func header(_ data: Data, name: String) throws(ImageError) -> (width: Int, height: Int, cmyk: Bool) {
        try withDecoder(name: name) { (handle) throws(ImageError) in
            var width: Int32 = 0
            var height: Int32 = 0
            var subsampling: Int32 = 0
            var colorspace: Int32 = 0
            let status = data.withUnsafeBytes { bytes in
                tjDecompressHeader3(
                    handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), &width, &height,
                    &subsampling, &colorspace)
            }
            guard status == 0 else { throw failure(handle, name: name) }
            let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
            return (Int(width), Int(height), cmyk)
        }
    }

    /// The whole picture at its own size.
    public static func decode(_ data: Data, name: String = "image") throws(ImageError) -> RGBAImage {
        try decode(data, name: name, atLeast: nil).image
    }

    /// The picture at the smallest of libjpeg's scales that still gives at least the pixels
    /// `atLeast` asks for its own size, each way (the whole size when none does, or when nil),
    /// with its own size.
    static func decode(_ data: Data, name: String, atLeast: ((Int, Int) -> (width: Int, height: Int))?)
        throws(ImageError) -> (image: RGBAImage, width: Int, height: Int)
    {
        let (width, height, cmyk) = try header(data, name: name)
        try ImageLimits.check(width: width, height: height, name: name)
        let (scaledWidth, scaledHeight) =
            atLeast.map { scaledSize(width: width, height: height, atLeast: $0(width, height)) }
            ?? (width, height)
        return try withDecoder(name: name) { (handle) throws(ImageError) -> (RGBAImage, Int, Int) in
            let channels = 4
            var pixels = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * channels)
            let format = cmyk ? TJPF_CMYK : TJPF_RGBA
            // At most 500 scans of a progressive file: a forged one cannot make the decode endless.
            let flags = TJFLAG_LIMITSCANS
            let status = data.withUnsafeBytes { bytes in
                pixels.withUnsafeMutableBytes { out in
                    tjDecompress2(
                        handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(scaledWidth), 0,
                        Int32(scaledHeight), Int32(format.rawValue), Int32(flags))
                }
            }
            // A warning (a stray byte between markers) still gives the whole picture; a file that
            // ends early does not, although libjpeg calls it a warning and fills the rest in grey.
            if status != 0 {
                let warning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
                let error = failure(handle, name: name)
                if !warning || error.reason.localizedCaseInsensitiveContains("premature end") { throw error }
            }
            if cmyk { convertCMYK(&pixels) }
            return (RGBAImage(width: scaledWidth, height: scaledHeight, pixels: pixels), width, height)
        }
    }

    /// The size libjpeg decodes to at the smallest scale (n/8) that is at least `atLeast` each way.
    static func scaledSize(width: Int, height: Int, atLeast: (width: Int, height: Int)) -> (Int, Int) {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return (width, height) }
        var best = (width, height)
        for index in 0..<Int(count) {
            let factor = factors[index]
            let (num, denom) = (Int(factor.num), Int(factor.denom))
            guard num <= denom else { continue }
            let scaled = ((width * num + denom - 1) / denom, (height * num + denom - 1) / denom)
            if scaled.0 >= atLeast.width, scaled.1 >= atLeast.height, scaled.0 * scaled.1 < best.0 * best.1 {
                best = scaled
            }
        }
        return best
    }

    /// libjpeg-turbo's own reading of CMYK (as Adobe's files store it, inverted): R = C·K/255.
    static func convertCMYK(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                let k = UInt32(buffer[index + 3])
                for channel in 0..<3 {
                    buffer[index + channel] = UInt8((UInt32(buffer[index + channel]) * k + 127) / 255)
                }
                buffer[index + 3] = 255
                index += 4
            }
        }
    }

    /// How the encoder stores colour: for tests and the fixtures the tests make.
    public enum Layout: Sendable, CaseIterable {
        case baseline, progressive, gray, cmyk
    }

    /// Encodes `image` (its alpha dropped) as a JPEG at `quality`.
    public static func encode(_ image: RGBAImage, layout: Layout = .baseline, quality: Int = 90) throws(ImageError)
        -> Data
    {
        guard let handle = tjInitCompress() else {
            throw ImageError.notDecodable(file: "encoder", reason: "TurboJPEG did not start")
        }
        defer { tjDestroy(handle) }
        var pixels = image.pixels
        if layout == .cmyk {
            // The inverse of convertCMYK: K from the brightest channel, C, M and Y inverted.
            for index in stride(from: 0, to: pixels.count, by: 4) {
                let (r, g, b) = (Int(pixels[index]), Int(pixels[index + 1]), Int(pixels[index + 2]))
                let k = max(r, g, b)
                for (channel, value) in [r, g, b].enumerated() {
                    pixels[index + channel] = k == 0 ? 0 : UInt8(min(255, (value * 255 + k / 2) / k))
                }
                pixels[index + 3] = UInt8(k)
            }
        }
        let format = layout == .cmyk ? TJPF_CMYK : TJPF_RGBA
        let subsampling = layout == .gray ? TJSAMP_GRAY : TJSAMP_420
        let flags = layout == .progressive ? TJFLAG_PROGRESSIVE : 0
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { buffer in
            tjCompress2(
                handle, buffer.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(format.rawValue),
                &output, &size, Int32(subsampling.rawValue), Int32(quality), Int32(flags))
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw failure(handle, name: "encoder") }
        return Data(bytes: output, count: Int(size))
    }

    private static func withDecoder<T>(name: String, _ body: (tjhandle) throws(ImageError) -> T) throws(ImageError)
        -> T
    {
        guard let handle = tjInitDecompress() else {
            throw ImageError.notDecodable(file: name, reason: "TurboJPEG did not start")
        }
        defer { tjDestroy(handle) }
        return try body(handle)
    }

    private static func failure(_ handle: tjhandle?, name: String) -> ImageError {
        let text = tjGetErrorStr2(handle).map { String(cString: $0) } ?? ""
        return ImageError.notDecodable(file: name, reason: text.isEmpty ? "libjpeg could not read it" : text)
    }
}

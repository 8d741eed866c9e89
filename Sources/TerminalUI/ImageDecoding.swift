// Any picture file to the pixels a terminal needs: the file's first bytes choose the decoder (not
// its name), and the decoder scales as it goes, so that no full-size copy of a large picture is
// kept to fill an 80-column window.
import Foundation

public enum ImageFormat: String, Sendable, Equatable {
    case png = "PNG"
    case jpeg = "JPEG"

    /// From the file's signature: `89 50 4E 47 0D 0A 1A 0A` or `FF D8 FF`.
    public static func of(_ data: Data) -> ImageFormat? {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        return nil
    }
}

enum ImageFile {
    /// The file's bytes, refused before reading when it is larger than any picture may be.
    static func read(_ url: URL, name: String) throws(ImageError) -> Data {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw ImageError.unreadable(
                file: name,
                reason: FileManager.default.fileExists(atPath: url.path) ? "permission denied" : "no such file")
        }
        let size = attributes[.size] as? Int ?? 0
        guard attributes[.type] as? FileAttributeType != .typeDirectory else {
            throw ImageError.unreadable(file: name, reason: "a folder, not a file")
        }
        guard size <= ImageLimits.maximumFileBytes else {
            throw ImageError.unreadable(
                file: name,
                reason:
                    "\(size / 1_048_576) MB, over the \(ImageLimits.maximumFileBytes / 1_048_576) MB a picture may be")
        }
        guard size > 0 else { throw ImageError.notDecodable(file: name, reason: "the file is empty") }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ImageError.unreadable(file: name, reason: "permission denied")
        }
    }
}

public enum ImageDecoder {
    /// The whole picture at its own size.
    public static func decode(_ data: Data, name: String) throws(ImageError) -> RGBAImage {
        switch try format(data, name: name) {
        case .png: try PNGCodec.decode(data, name: name)
        case .jpeg: try JPEGCodec.decode(data, name: name)
        }
    }

    /// The picture scaled to `width`×`height` pixels as it is decoded.
    public static func decode(_ data: Data, name: String, toWidth width: Int, height: Int) throws(ImageError)
        -> RGBAImage
    {
        try decode(data, name: name) { _, _ in (width, height) }.image
    }

    /// The picture scaled, as it is decoded, to the size `target` gives for the picture's own size
    /// (read from the header once, checked against the limits first), with that own size: a PNG
    /// row by row into the area average, a JPEG at the smallest DCT scale that still has enough
    /// pixels, then averaged.
    public static func decode(
        _ data: Data, name: String, to target: @escaping (Int, Int) -> (width: Int, height: Int)
    ) throws(ImageError) -> (image: RGBAImage, width: Int, height: Int) {
        switch try format(data, name: name) {
        case .png:
            var source = (width: 0, height: 0)
            let sink = try PNGCodec.decodeRows(data, name: name) { sourceWidth, sourceHeight in
                source = (sourceWidth, sourceHeight)
                let size = target(sourceWidth, sourceHeight)
                return StreamingScaler(
                    sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: size.width, height: size.height)
            }
            guard let scaler = sink as? StreamingScaler else { preconditionFailure("the sink made is the sink given") }
            return (scaler.result(), source.width, source.height)
        case .jpeg:
            let decoded = try JPEGCodec.decode(data, name: name, atLeast: target)
            let size = target(decoded.width, decoded.height)
            return (
                Scaler.scale(decoded.image, toWidth: size.width, height: size.height), decoded.width, decoded.height
            )
        }
    }

    private static func format(_ data: Data, name: String) throws(ImageError) -> ImageFormat {
        guard !data.isEmpty else { throw ImageError.notDecodable(file: name, reason: "the file is empty") }
        guard let format = ImageFormat.of(data) else {
            throw ImageError.notDecodable(file: name, reason: "not a PNG or JPEG file")
        }
        return format
    }
}

/// Takes a decoder's rows, in order, as 8-bit RGBA.
protocol RowSink: AnyObject {
    func add(row: UnsafePointer<UInt8>, y: Int)
}

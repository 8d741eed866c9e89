// Area averaging (a box filter), as a sink for a decoder's rows: each output pixel is the
// coverage-weighted mean of the input pixels under it, colours weighted by alpha so that
// transparent pixels do not darken edges. Rows are narrowed as they arrive and added into the
// output rows they cover, so the source is never held whole.
import Foundation

public enum Scaler {
    /// The pixel size that fits `image` in `columns`×`rows` cells at two pixels a cell (cells
    /// about twice as tall as wide, so each half-block pixel is square), keeping the aspect ratio.
    public static func fittedSize(width: Int, height: Int, columns: Int, rows: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0, columns > 0, rows > 0 else { return (0, 0) }
        let maxWidth = Double(columns)
        let maxHeight = Double(rows * 2)
        let scale = min(maxWidth / Double(width), maxHeight / Double(height))
        let w = max(1, min(columns, Int((Double(width) * scale).rounded())))
        let h = max(1, min(rows * 2, Int((Double(height) * scale).rounded())))
        return (w, h)
    }

    /// `image` scaled to `width`×`height` pixels.
    public static func scale(_ image: RGBAImage, toWidth width: Int, height: Int) -> RGBAImage {
        guard width > 0, height > 0, image.width > 0, image.height > 0 else {
            return RGBAImage(width: 0, height: 0, pixels: [])
        }
        if width == image.width && height == image.height { return image }
        let scaler = StreamingScaler(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height { scaler.add(row: pixels.baseAddress! + y * image.width * 4, y: y) }
        }
        return scaler.result()
    }

    /// Spans laid out flat: output i covers entries offsets[i]..<offsets[i+1].
    struct FlatSpans {
        var offsets: [Int] = [0]
        var index: [Int] = []
        var weight: [Float] = []

        init(_ spans: [[(Int, Double)]]) {
            for span in spans {
                for (position, covered) in span {
                    index.append(position)
                    weight.append(Float(covered))
                }
                offsets.append(index.count)
            }
        }

        func range(_ output: Int) -> Range<Int> { offsets[output]..<offsets[output + 1] }
    }

    /// For each output index, the input indices it covers and how much of each.
    static func spans(source: Int, target: Int) -> [[(Int, Double)]] {
        let ratio = Double(source) / Double(target)
        return (0..<target).map { index in
            let start = Double(index) * ratio
            let end = Double(index + 1) * ratio
            var span: [(Int, Double)] = []
            var position = Int(start.rounded(.down))
            while Double(position) < end, position < source {
                let covered = min(end, Double(position + 1)) - max(start, Double(position))
                if covered > 1e-9 { span.append((position, covered)) }
                position += 1
            }
            return span
        }
    }
}

/// Rows in, a scaled picture out: for each source row, the row narrowed to the output's width in
/// premultiplied Float, then added with its coverage into the one or two output rows under it.
final class StreamingScaler: RowSink {
    let sourceWidth: Int
    let width: Int
    let height: Int
    private let columns: Scaler.FlatSpans
    /// For each source row, the output rows it covers and how much of each.
    private let rowTargets: Scaler.FlatSpans
    private var narrow: [Float]
    private var sums: [Float]
    private let area: Float

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        self.sourceWidth = sourceWidth
        self.width = width
        self.height = height
        columns = Scaler.FlatSpans(Scaler.spans(source: sourceWidth, target: width))
        // The row spans turned round: output row → source rows becomes source row → output rows.
        var bySource = [[(Int, Double)]](repeating: [], count: sourceHeight)
        for (output, span) in Scaler.spans(source: sourceHeight, target: height).enumerated() {
            for (source, covered) in span { bySource[source].append((output, covered)) }
        }
        rowTargets = Scaler.FlatSpans(bySource)
        narrow = [Float](repeating: 0, count: width * 4)
        sums = [Float](repeating: 0, count: width * height * 4)
        area = Float(sourceWidth) / Float(width) * Float(sourceHeight) / Float(height)
    }

    func add(row: UnsafePointer<UInt8>, y: Int) {
        let targets = rowTargets.range(y)
        guard !targets.isEmpty else { return }
        let width = width
        columns.index.withUnsafeBufferPointer { index in
            columns.weight.withUnsafeBufferPointer { weight in
                columns.offsets.withUnsafeBufferPointer { offsets in
                    narrow.withUnsafeMutableBufferPointer { out in
                        for ox in 0..<width {
                            var r: Float = 0
                            var g: Float = 0
                            var b: Float = 0
                            var a: Float = 0
                            for entry in offsets[ox]..<offsets[ox + 1] {
                                let base = index[entry] * 4
                                let alpha = Float(row[base + 3]) * weight[entry]
                                r += Float(row[base]) * alpha
                                g += Float(row[base + 1]) * alpha
                                b += Float(row[base + 2]) * alpha
                                a += alpha
                            }
                            out[ox * 4] = r
                            out[ox * 4 + 1] = g
                            out[ox * 4 + 2] = b
                            out[ox * 4 + 3] = a
                        }
                    }
                }
            }
        }
        narrow.withUnsafeBufferPointer { source in
            sums.withUnsafeMutableBufferPointer { sums in
                for entry in targets {
                    let base = rowTargets.index[entry] * width * 4
                    let weight = rowTargets.weight[entry]
                    for channel in 0..<(width * 4) { sums[base + channel] += source[channel] * weight }
                }
            }
        }
    }

    func finish() {}

    /// The averages, un-premultiplied, as 8-bit RGBA.
    func result() -> RGBAImage {
        var output = [UInt8](repeating: 0, count: width * height * 4)
        sums.withUnsafeBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { out in
                for pixel in 0..<(width * height) {
                    let o = pixel * 4
                    let a = sums[o + 3]
                    if a > 0 {
                        out[o] = UInt8(min(255, (sums[o] / a).rounded()))
                        out[o + 1] = UInt8(min(255, (sums[o + 1] / a).rounded()))
                        out[o + 2] = UInt8(min(255, (sums[o + 2] / a).rounded()))
                    }
                    out[o + 3] = UInt8(min(255, (a / area).rounded()))
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: output)
    }
}

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

    /// Which source pixels each output pixel covers, and how much of each, laid out flat: key i's
    /// entries are offsets[i]..<offsets[i+1]. Inverted, the keys are the source pixels and the
    /// entries the output pixels over them. Spans move forward, so the pairs come in order either way.
    struct FlatSpans {
        var offsets: [Int] = [0]
        var index: [Int] = []
        var weight: [Float] = []

        init(source: Int, target: Int, inverted: Bool = false) {
            let ratio = Double(source) / Double(target)
            let keys = inverted ? source : target
            index.reserveCapacity(source + target)
            weight.reserveCapacity(source + target)
            offsets.reserveCapacity(keys + 1)
            for output in 0..<target {
                let start = Double(output) * ratio
                let end = Double(output + 1) * ratio
                var position = Int(start.rounded(.down))
                while Double(position) < end, position < source {
                    let covered = min(end, Double(position + 1)) - max(start, Double(position))
                    if covered > 1e-9 {
                        let key = inverted ? position : output
                        while offsets.count <= key { offsets.append(index.count) }
                        index.append(inverted ? output : position)
                        weight.append(Float(covered))
                    }
                    position += 1
                }
            }
            while offsets.count <= keys { offsets.append(index.count) }
        }

        func range(_ key: Int) -> Range<Int> { offsets[key]..<offsets[key + 1] }
    }
}

/// Rows in, a scaled picture out, columns last: each source row is added, with its coverage, into
/// a full-width accumulator for each output row under it (one or two when shrinking), and an
/// output row is narrowed once, when no later source row can reach it. The per-pixel work is then
/// one add per byte for an opaque row that falls inside one output row, which the compiler
/// vectorises; the narrowing runs once per output row rather than once per source row.
///
/// Colours are kept premultiplied by alpha / 255, so that an opaque row adds its bytes as they are.
final class StreamingScaler: RowSink {
    let sourceWidth: Int
    let width: Int
    let height: Int
    private let columns: Scaler.FlatSpans
    /// For each source row, the output rows it covers and how much of each.
    private let rowTargets: Scaler.FlatSpans
    /// Output rows still open, in order, each with its full-width accumulator.
    private var open: [(row: Int, sums: [Float])] = []
    /// Accumulators done with, kept for the next rows.
    private var spare: [[Float]] = []
    private var sums: [Float]
    private let area: Float

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        self.sourceWidth = sourceWidth
        self.width = width
        self.height = height
        columns = Scaler.FlatSpans(source: sourceWidth, target: width)
        rowTargets = Scaler.FlatSpans(source: sourceHeight, target: height, inverted: true)
        sums = [Float](repeating: 0, count: width * height * 4)
        area = Float(sourceWidth) / Float(width) * Float(sourceHeight) / Float(height)
    }

    func add(row: UnsafePointer<UInt8>, y: Int) {
        let targets = rowTargets.range(y)
        guard let first = targets.first else { return }
        // Rows above this one's first output row are complete.
        let firstRow = rowTargets.index[first]
        while let oldest = open.first, oldest.row < firstRow { closeOldest() }
        let count = sourceWidth * 4
        var alphas: UInt8 = 255
        for x in 0..<sourceWidth { alphas &= row[x * 4 + 3] }
        let opaque = alphas == 255
        for entry in targets {
            let output = rowTargets.index[entry]
            let weight = rowTargets.weight[entry]
            let slot: Int
            if let found = open.firstIndex(where: { $0.row == output }) {
                slot = found
            } else {
                let fresh = spare.popLast() ?? [Float](repeating: 0, count: count)
                open.append((output, fresh))
                slot = open.count - 1
            }
            open[slot].sums.withUnsafeMutableBufferPointer { sums in
                if opaque && weight == 1 {
                    for index in 0..<count { sums[index] += Float(row[index]) }
                } else if opaque {
                    for index in 0..<count { sums[index] += Float(row[index]) * weight }
                } else {
                    for x in 0..<sourceWidth {
                        let base = x * 4
                        let alpha = Float(row[base + 3]) * weight
                        let colour = alpha / 255
                        sums[base] += Float(row[base]) * colour
                        sums[base + 1] += Float(row[base + 1]) * colour
                        sums[base + 2] += Float(row[base + 2]) * colour
                        sums[base + 3] += alpha
                    }
                }
            }
        }
    }

    /// Narrows the oldest open row's accumulator into the output, and keeps the buffer, zeroed,
    /// for another row.
    private func closeOldest() {
        var finished = open.removeFirst()
        narrow(finished.sums, into: finished.row)
        finished.sums.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        spare.append(finished.sums)
    }

    private func narrow(_ accumulated: [Float], into row: Int) {
        let width = width
        let base = row * width * 4
        accumulated.withUnsafeBufferPointer { source in
            sums.withUnsafeMutableBufferPointer { out in
                columns.index.withUnsafeBufferPointer { index in
                    columns.weight.withUnsafeBufferPointer { weight in
                        columns.offsets.withUnsafeBufferPointer { offsets in
                            for ox in 0..<width {
                                var r: Float = 0
                                var g: Float = 0
                                var b: Float = 0
                                var a: Float = 0
                                for entry in offsets[ox]..<offsets[ox + 1] {
                                    let at = index[entry] * 4
                                    let covered = weight[entry]
                                    r += source[at] * covered
                                    g += source[at + 1] * covered
                                    b += source[at + 2] * covered
                                    a += source[at + 3] * covered
                                }
                                let o = base + ox * 4
                                out[o] = r
                                out[o + 1] = g
                                out[o + 2] = b
                                out[o + 3] = a
                            }
                        }
                    }
                }
            }
        }
    }

    /// The averages, un-premultiplied, as 8-bit RGBA, once every row is added.
    func result() -> RGBAImage {
        while !open.isEmpty { closeOldest() }
        var output = [UInt8](repeating: 0, count: width * height * 4)
        sums.withUnsafeBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { out in
                for pixel in 0..<(width * height) {
                    let o = pixel * 4
                    let a = sums[o + 3]
                    if a > 0 {
                        // Rounded half up by adding a half: every figure here is positive.
                        let scale = 255 / a
                        out[o] = UInt8(min(255, sums[o] * scale + 0.5))
                        out[o + 1] = UInt8(min(255, sums[o + 1] * scale + 0.5))
                        out[o + 2] = UInt8(min(255, sums[o + 2] * scale + 0.5))
                    }
                    out[o + 3] = UInt8(min(255, a / area + 0.5))
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: output)
    }
}

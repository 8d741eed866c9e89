// A tiny raster canvas for drawing the shipped comics: filled ellipses, rings and arcs, thick
// lines, polygons and rectangles, drawn at 3× and box-filtered down so edges come out smooth.
import Foundation
import TerminalUI

struct Canvas {
    let width: Int
    let height: Int
    let scale: Int
    private(set) var image: RGBAImage

    init(width: Int, height: Int, background: RGBA, supersample: Int = 3) {
        self.width = width
        self.height = height
        scale = supersample
        image = RGBAImage(width: width * supersample, height: height * supersample, fill: background)
    }

    /// The finished picture at its real size.
    var picture: RGBAImage { Scaler.scale(image, toWidth: width, height: height) }

    private mutating func plot(_ x: Int, _ y: Int, _ color: RGBA) {
        guard x >= 0, y >= 0, x < image.width, y < image.height else { return }
        if color.a == 255 {
            image[x, y] = color
        } else {
            let under = image[x, y]
            let a = Int(color.a)
            func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 { UInt8((Int(top) * a + Int(bottom) * (255 - a)) / 255) }
            image[x, y] = RGBA(
                mix(color.r, under.r), mix(color.g, under.g), mix(color.b, under.b), max(under.a, color.a))
        }
    }

    /// Calls `inside` for every pixel centre of the box (in picture units) and paints where it holds.
    private mutating func paint(
        _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, _ color: RGBA,
        _ inside: (Double, Double) -> Bool
    ) {
        let s = Double(scale)
        let x0 = max(0, Int((minX * s).rounded(.down)))
        let x1 = min(image.width - 1, Int((maxX * s).rounded(.up)))
        let y0 = max(0, Int((minY * s).rounded(.down)))
        let y1 = min(image.height - 1, Int((maxY * s).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        for py in y0...y1 {
            for px in x0...x1 {
                let x = (Double(px) + 0.5) / s
                let y = (Double(py) + 0.5) / s
                if inside(x, y) { plot(px, py, color) }
            }
        }
    }

    mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ color: RGBA) {
        paint(x, y, x + w, y + h, color) { px, py in px >= x && px < x + w && py >= y && py < y + h }
    }

    mutating func roundedRect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, radius r: Double, _ color: RGBA) {
        paint(x, y, x + w, y + h, color) { px, py in
            let cx = min(max(px, x + r), x + w - r)
            let cy = min(max(py, y + r), y + h - r)
            return (px - cx) * (px - cx) + (py - cy) * (py - cy) <= r * r
        }
    }

    mutating func ellipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double, _ color: RGBA) {
        paint(cx - rx, cy - ry, cx + rx, cy + ry, color) { px, py in
            let dx = (px - cx) / rx
            let dy = (py - cy) / ry
            return dx * dx + dy * dy <= 1
        }
    }

    mutating func lowerHalfEllipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double, _ color: RGBA) {
        paint(cx - rx, cy, cx + rx, cy + ry, color) { px, py in
            let dx = (px - cx) / rx
            let dy = (py - cy) / ry
            return py >= cy && dx * dx + dy * dy <= 1
        }
    }

    mutating func circle(_ cx: Double, _ cy: Double, _ r: Double, _ color: RGBA) { ellipse(cx, cy, r, r, color) }

    /// An elliptical arc of the given thickness from angle `from` to `to` (degrees, 0 = right,
    /// 90 = down, as y grows downwards).
    mutating func arc(
        _ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double, from: Double, to: Double, thickness: Double,
        _ color: RGBA
    ) {
        let half = thickness / 2
        paint(cx - rx - half, cy - ry - half, cx + rx + half, cy + ry + half, color) { px, py in
            let outer =
                ((px - cx) / (rx + half)) * ((px - cx) / (rx + half)) + ((py - cy) / (ry + half))
                * ((py - cy) / (ry + half))
            let innerRx = max(0.01, rx - half)
            let innerRy = max(0.01, ry - half)
            let inner = ((px - cx) / innerRx) * ((px - cx) / innerRx) + ((py - cy) / innerRy) * ((py - cy) / innerRy)
            guard outer <= 1, inner >= 1 else { return false }
            var angle = atan2((py - cy) / ry, (px - cx) / rx) * 180 / .pi
            if angle < 0 { angle += 360 }
            return from <= to ? (angle >= from && angle <= to) : (angle >= from || angle <= to)
        }
    }

    mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, width: Double, _ color: RGBA) {
        let half = width / 2
        paint(min(x0, x1) - half, min(y0, y1) - half, max(x0, x1) + half, max(y0, y1) + half, color) { px, py in
            let dx = x1 - x0
            let dy = y1 - y0
            let length = dx * dx + dy * dy
            let t = length == 0 ? 0 : max(0, min(1, ((px - x0) * dx + (py - y0) * dy) / length))
            let nx = x0 + t * dx - px
            let ny = y0 + t * dy - py
            return nx * nx + ny * ny <= half * half
        }
    }

    mutating func polygon(_ points: [(Double, Double)], _ color: RGBA) {
        guard points.count >= 3 else { return }
        let xs = points.map(\.0)
        let ys = points.map(\.1)
        paint(xs.min()!, ys.min()!, xs.max()!, ys.max()!, color) { px, py in
            var inside = false
            var j = points.count - 1
            for i in 0..<points.count {
                let (xi, yi) = points[i]
                let (xj, yj) = points[j]
                if (yi > py) != (yj > py), px < (xj - xi) * (py - yi) / (yj - yi) + xi { inside.toggle() }
                j = i
            }
            return inside
        }
    }

    /// A vertical gradient from `top` to `bottom` over the whole canvas (a sky, a wall).
    mutating func gradient(_ top: RGBA, _ bottom: RGBA) {
        for py in 0..<image.height {
            let t = Double(py) / Double(max(1, image.height - 1))
            func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8(Double(a) + (Double(b) - Double(a)) * t) }
            let color = RGBA(mix(top.r, bottom.r), mix(top.g, bottom.g), mix(top.b, bottom.b))
            for px in 0..<image.width { image[px, py] = color }
        }
    }
}

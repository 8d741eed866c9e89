// make-comics: draws the shipped comics into an assets folder.
//   swift run -c release make-comics assets                 the PNG files
//   swift run -c release make-comics --sheet sheet.png      all of them on one page, to look at
import Foundation
import TerminalUI

let arguments = Array(CommandLine.arguments.dropFirst())
let all = comics + randomFaces

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("make-comics: \(message)\n".utf8))
    exit(1)
}

func drawn(_ comic: Comic) -> RGBAImage {
    var canvas = Canvas(width: comicWidth, height: comicHeight, background: RGBA(255, 255, 255))
    comic.draw(&canvas)
    return canvas.picture
}

if arguments.first == "--sheet", arguments.count == 2 {
    let columns = 4
    let rows = (all.count + 3) / 4
    let gap = 8
    var sheet = RGBAImage(
        width: columns * (comicWidth + gap) + gap, height: rows * (comicHeight + gap) + gap, fill: RGBA(255, 255, 255)
    )
    for (index, comic) in all.enumerated() {
        let picture = drawn(comic)
        let left = gap + (index % columns) * (comicWidth + gap)
        let top = gap + (index / columns) * (comicHeight + gap)
        for y in 0..<comicHeight { for x in 0..<comicWidth { sheet[left + x, top + y] = picture[x, y] } }
    }
    do { try PNGCodec.encode(sheet, layout: .rgb).write(to: URL(fileURLWithPath: arguments[1])) } catch {
        fail("\(error)")
    }
    exit(0)
}
guard arguments.count <= 1, arguments.first?.hasPrefix("-") != true else {
    fail("usage: make-comics [ASSETS_FOLDER] | --sheet FILE.png   (default folder: assets)")
}
let root = URL(fileURLWithPath: arguments.first ?? "assets")
for comic in all {
    let url = root.appendingPathComponent(comic.path)
    do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try PNGCodec.encode(drawn(comic), layout: .rgb).write(to: url)
        print("wrote \(url.path)")
    } catch {
        fail("\(url.path): \(error)")
    }
}

// The shipped package's own art (C8, `assets/art-gallery.storekit/Assets`): three comics drawn
// twice as large, as a PNG, a baseline JPEG and a progressive JPEG.
let art: [(comic: String, file: String, layout: JPEGCodec.Layout?)] = [
    ("comics/robot-gardener.png", "gallery-poster.png", nil),
    ("comics/monday-coffee.png", "sticker-sheet.jpg", .baseline),
    ("comics/rain-check.png", "art-club.jpg", .progressive),
]
let artFolder = root.appendingPathComponent("art-gallery.storekit/Assets")
for (path, file, layout) in art {
    guard let comic = all.first(where: { $0.path == path }) else { fail("no comic \(path)") }
    let picture = Scaler.scale(drawn(comic), toWidth: comicWidth * 2, height: comicHeight * 2)
    let url = artFolder.appendingPathComponent(file)
    do {
        try FileManager.default.createDirectory(at: artFolder, withIntermediateDirectories: true)
        let data =
            try layout.map { try JPEGCodec.encode(picture, layout: $0, quality: 88) }
            ?? PNGCodec.encode(picture, layout: .rgb)
        try data.write(to: url)
        print("wrote \(url.path)")
    } catch {
        fail("\(url.path): \(error)")
    }
}

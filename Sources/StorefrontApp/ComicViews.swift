// The comic viewer and the random-comic viewer: a picture in its frame, or a message where it
// cannot be shown.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

func drawDetail(
    _ screen: inout Screen, _ state: AppState, _ theme: Theme, _ id: String, _ area: Rect, _ pictures: PictureLookup,
    _ depth: ColorDepth
) {
    guard let snapshot = state.snapshot, let product = snapshot.product(id) else { return }
    var y = area.y
    screen.write(TextWidth.truncate(" " + product.title, to: area.width), x: 0, y: y, style: theme.title)
    y += 1
    let descriptionLines = area.height >= 10 ? TextWidth.wrap(product.description, width: area.width - 2).prefix(2) : []
    for line in descriptionLines {
        screen.write(" " + line, x: 0, y: y, style: theme.dim)
        y += 1
    }
    let unlocked = snapshot.status.unlocked.contains(id)
    let picture = detailPicture(id, in: snapshot)
    if picture != nil, !unlocked || product.kind != .nonConsumable,
        let row = snapshot.rows.first(where: { $0.product.id == id })
    {
        // Art shown before it is bought (C8): what the row offers, above the picture.
        let action = actionText(row, snapshot)
        if !action.isEmpty {
            screen.write(TextWidth.truncate(" b  " + action, to: area.width), x: 0, y: y, style: theme.action)
            y += 1
        }
    }
    let frame = Rect(x: 1, y: y, width: area.width - 2, height: area.maxY - y - 1)
    if let picture {
        drawPicture(&screen, pictures(picture), in: frame, depth: depth, theme: theme, name: picture)
    } else if unlocked {
        drawPicture(&screen, pictures(nil), in: frame, depth: depth, theme: theme, name: product.image)
    } else {
        // R8.
        let price = snapshot.displayPrice(product)
        drawMessage(&screen, in: frame, lines: ["Purchase to see comic!", "b  Buy \(price)"], theme: theme)
    }
}

func drawRandom(
    _ screen: inout Screen, _ state: AppState, _ theme: Theme, _ area: Rect, _ pictures: PictureLookup,
    _ depth: ColorDepth
) {
    guard let snapshot = state.snapshot else { return }
    let status = snapshot.status
    let line =
        status.hasPass
        ? "Unlimited random comics while subscribed" : "Random comics left: \(status.randomViewsRemaining)"
    screen.write(
        TextWidth.truncate(" " + line, to: area.width), x: 0, y: area.y,
        style: status.hasPass ? theme.subscribed : theme.title)
    // The area's last row is the banner's: the title goes above it, so a banner never hides it.
    let frame = Rect(x: 1, y: area.y + 1, width: area.width - 2, height: area.height - 3)
    if let comic = state.randomComic {
        let caption = TextWidth.truncate(comic.title, to: area.width - 2)
        screen.write(caption, x: max(0, (area.width - TextWidth.of(caption)) / 2), y: area.maxY - 2, style: theme.title)
        drawPicture(&screen, pictures(comic.image), in: frame, depth: depth, theme: theme, name: comic.image)
    } else if !status.hasPass, status.randomViewsRemaining == 0 {
        let pack = snapshot.rows.first { $0.product.kind == .consumable }?.product.title ?? "more views"
        drawMessage(
            &screen, in: frame, lines: ["No random comics left", "b  Buy \(pack)", "or subscribe"], theme: theme)
    }
}

/// A decoded picture, or a framed placeholder with the file name and the reason (T4).
func drawPicture(
    _ screen: inout Screen, _ result: PictureResult, in frame: Rect, depth: ColorDepth, theme: Theme, name: String?
) {
    switch result {
    case .picture(let picture):
        screen.draw(picture, in: frame, depth: depth)
    case .failure(let file, let reason):
        drawMessage(&screen, in: frame, lines: ["[ picture unavailable ]", file, reason], theme: theme)
    case .loading:
        drawMessage(&screen, in: frame, lines: ["[ loading… ]", name ?? ""], theme: theme)
    case .none:
        drawMessage(&screen, in: frame, lines: ["[ no picture ]", name ?? ""], theme: theme)
    }
}

func drawMessage(_ screen: inout Screen, in frame: Rect, lines: [String], theme: Theme) {
    guard frame.width >= 2, frame.height >= 1 else { return }
    if frame.height >= 3 { screen.box(frame, style: theme.dim) }
    let inner = frame.height >= 3 ? frame.inset(by: 1) : frame
    var wrapped: [String] = []
    for line in lines where !line.isEmpty { wrapped += TextWidth.wrap(line, width: max(1, inner.width)) }
    let top = inner.y + max(0, (inner.height - wrapped.count) / 2)
    for (index, line) in wrapped.enumerated() where top + index < inner.maxY {
        let x = inner.x + max(0, (inner.width - TextWidth.of(line)) / 2)
        screen.write(line, x: x, y: top + index, style: index == 0 ? theme.title : .plain, clip: inner)
    }
}

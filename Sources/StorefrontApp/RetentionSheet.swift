// M2 on the screen: cancelling a plan (the transaction manager's `c`) first shows what the
// developer's endpoint chose, as the App Store's cancel page does: the message with its picture,
// and the alternate plan or promotional offer it suggests, or the default message. `a` takes what
// is offered, `c` cancels anyway, Esc keeps the plan as it was.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// The retention sheet: the plan it is about, what was chosen to show, and its decoded picture.
public struct RetentionSheet: Equatable, Sendable {
    public var productID: String
    public var offer: RetentionOffer
    public var picture: PictureResult
    /// The words of what `a` takes ("switch to One a Week (Monthly)"), nil when nothing is offered.
    public var choice: String?

    public init(productID: String, offer: RetentionOffer, picture: PictureResult, choice: String?) {
        (self.productID, self.offer, self.picture, self.choice) = (productID, offer, picture, choice)
    }

    /// The sheet for what `offer` shows, its picture read from the account server and decoded.
    public init(productID: String, offer: RetentionOffer, store: Store) throws(StoreError) {
        var picture = PictureResult.none
        if let id = offer.message?.imageID, let data = try store.server.retentionImage(id) {
            do {
                picture = .picture(try Picture(decoding: data, name: id, columns: 200, rows: 60))
            } catch {
                picture = .failure(file: id, reason: error.reason)
            }
        }
        let catalog = store.catalog
        let billing = offer.alternateBillingPlan.map { ", billed \($0.words)" } ?? ""
        let choice =
            offer.alternateProductID.map { "switch to \(catalog.product($0)?.title ?? $0)\(billing)" }
            ?? offer.offer.map { "take the offer \($0.offerID)" }
        self.init(productID: productID, offer: offer, picture: picture, choice: choice)
    }
}

/// What the customer answers the sheet with.
public enum RetentionAnswer: Equatable, Sendable {
    case cancel(productID: String)
    case accept(productID: String, offer: RetentionOffer)
}

/// The sheet's keys, before any other key is looked up; nil when no sheet is shown.
func reduceRetentionKey(_ state: inout AppState, _ key: Key) -> [Effect]? {
    guard let sheet = state.retention else { return nil }
    switch key {
    case .character("c"):
        state.retention = nil
        return [.retention(.cancel(productID: sheet.productID))]
    case .character("a") where sheet.choice != nil:
        state.retention = nil
        return [.retention(.accept(productID: sheet.productID, offer: sheet.offer))]
    case .escape, .character("q"), .left:
        state.retention = nil
        state.banner = Banner("Kept: the plan renews as before")
        return []
    default:
        return []
    }
}

/// The sheet's footer.
func retentionFooter(_ sheet: RetentionSheet) -> [(key: String, label: String)] {
    (sheet.choice.map { [("a", $0)] } ?? []) + [("c", "cancel anyway"), ("Esc", "keep the plan")]
}

/// The sheet, framed in the middle of the screen: the header, the picture, the body, the choice.
func drawRetentionSheet(_ screen: inout Screen, _ sheet: RetentionSheet, _ theme: Theme, _ depth: ColorDepth) {
    let width = min(screen.size.columns - 2, 76)
    guard width >= 20 else { return }
    // As tall as what it says: header, picture, body, why the default, a gap and the keys.
    let textWidth = max(1, width - 4)
    let words =
        sheet.offer.message.map {
            TextWidth.wrap($0.header, width: textWidth).count + TextWidth.wrap($0.body, width: textWidth).count
        } ?? 1
    let reason =
        sheet.offer.source == .endpoint
        ? 0 : (sheet.offer.fallbackReason.map { TextWidth.wrap($0, width: textWidth).count } ?? 0)
    let pictureRows = sheet.offer.message?.imageID == nil ? 0 : 6
    let height = min(screen.size.rows - 2, words + reason + pictureRows + 4)
    guard height >= 6 else { return }
    let frame = Rect(
        x: (screen.size.columns - width) / 2, y: (screen.size.rows - height) / 2, width: width, height: height)
    screen.fill(frame)
    let title: String
    switch sheet.offer.source {
    case .endpoint: title = "Before you cancel"
    case .defaultMessage: title = "Before you cancel (default message)"
    case .none: title = "Cancel subscription"
    }
    screen.box(frame, style: theme.title, title: title)
    let inner = frame.inset(by: 1)
    var y = inner.y
    func line(_ text: String, _ style: Style = .plain) {
        for part in TextWidth.wrap(text, width: max(1, inner.width - 2)) where y < inner.maxY - 2 {
            screen.write(part, x: inner.x + 1, y: y, style: style, clip: inner)
            y += 1
        }
    }
    if let message = sheet.offer.message {
        line(message.header, theme.title)
        if case .picture(let picture) = sheet.picture {
            let rows = min(pictureRows, max(0, inner.maxY - 3 - y))
            screen.draw(picture, in: Rect(x: inner.x + 1, y: y, width: inner.width - 2, height: rows), depth: depth)
            y += rows
        } else if let alt = message.altText {
            line("[\(alt)]", theme.dim)
        }
        line(message.body)
    } else {
        line("Your subscription renews unless you cancel it.")
    }
    if let reason = sheet.offer.fallbackReason, sheet.offer.source != .endpoint { line(reason, theme.dim) }
    let keys = retentionFooter(sheet).map { "\($0.key) \($0.label)" }.joined(separator: "  ")
    screen.write(TextWidth.truncate(keys, to: inner.width - 2), x: inner.x + 1, y: inner.maxY - 1, style: theme.action)
}

extension LiveStore {
    /// `c` on a plan: the retention sheet when retention messaging has something to show (or the
    /// endpoint was asked), else the plan cancelled at once as before.
    func cancelWithRetention(_ productID: String) throws(StoreError) -> [Action] {
        let desk = RetentionDesk(store: store)
        let offer = try desk.offer(for: productID)
        guard !offer.isQuiet else { return try answerRetention(.cancel(productID: productID)) }
        return [.retentionShown(try RetentionSheet(productID: productID, offer: offer, store: store))]
    }

    /// The sheet's answer: cancel, or take what it offered.
    func answerRetention(_ answer: RetentionAnswer) throws(StoreError) -> [Action] {
        switch answer {
        case .cancel(let productID):
            let plan = try store.plans.perform(.cancel, on: productID)
            return [.planChanged(plan.summary(calendar: store.calendar, catalog: store.catalog))]
        case .accept(let productID, let offer):
            let bought = try RetentionDesk(store: store).accept(offer, on: productID)
            let plan = try store.plans.plan(of: productID)
            return (bought.map { [Action.purchased($0)] } ?? [])
                + (plan.map { [.planChanged($0.summary(calendar: store.calendar, catalog: store.catalog))] } ?? [])
        }
    }
}

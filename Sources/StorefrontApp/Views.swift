// The views: render(state) -> Screen. Pure functions of the state (decoded pictures included: an
// effect decodes them into it), so that tests compare whole frames as text.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// A comic's picture as the views need it: decoded by an effect, kept in the state by path.
public enum PictureResult: Equatable, Sendable {
    case picture(Picture)
    case failure(file: String, reason: String)
    /// Asked for; the decoded picture has not arrived yet.
    case loading
    case none

    public static func == (lhs: PictureResult, rhs: PictureResult) -> Bool {
        switch (lhs, rhs) {
        // A decoded picture is one object, never changed: the same object is the same picture.
        case (.picture(let left), .picture(let right)): left === right
        case (.failure(let leftFile, let leftReason), .failure(let rightFile, let rightReason)):
            leftFile == rightFile && leftReason == rightReason
        case (.loading, .loading), (.none, .none): true
        default: false
        }
    }
}

/// Looks up the decoded picture for an image path of the catalog.
public typealias PictureLookup = (String?) -> PictureResult

/// Where the product list's rows and columns are, for drawing and for mouse hits.
struct ProductListLayout {
    let top: Int
    let visible: Int
    let offset: Int
    let actionColumn: Int
    let actionWidth: Int
    /// Names are padded to one column so that descriptions line up.
    let nameWidth: Int

    init(size: Size, snapshot: StoreSnapshot?, selection: Int) {
        top = size.rows >= 12 ? 3 : 2
        visible = max(1, size.rows - 2 - top)
        offset = (selection / visible) * visible
        let rows = snapshot?.rows ?? []
        let widest = snapshot.map { snapshot in rows.map { TextWidth.of(actionText($0, snapshot)) }.max() ?? 8 } ?? 8
        actionWidth = min(widest + 2, max(8, size.columns / 2))
        actionColumn = size.columns - actionWidth
        let longestName = rows.map { TextWidth.of($0.product.title) }.max() ?? 0
        nameWidth = max(1, min(longestName, actionColumn - 3, max(12, size.columns * 2 / 5)))
    }

    func row(atY y: Int) -> Int? {
        guard y >= top, y < top + visible else { return nil }
        return offset + (y - top)
    }
}

public func render(_ state: AppState, depth: ColorDepth) -> Screen {
    let pictures: PictureLookup = { path in path.map { state.pictures[$0] ?? .loading } ?? .none }
    var screen = Screen(size: state.size)
    let theme = Theme(depth: depth)
    if state.isTooSmall {
        let lines = [
            "Window too small", "need \(AppState.minimumSize.columns)×\(AppState.minimumSize.rows)",
            "now \(state.size.columns)×\(state.size.rows)",
        ]
        for (index, line) in lines.enumerated() where index < state.size.rows {
            screen.write(
                TextWidth.truncate(line, to: state.size.columns), x: 0, y: index, style: Style(bold: index == 0))
        }
        return screen
    }
    let width = state.size.columns
    let height = state.size.rows
    drawTitleBar(&screen, state, theme)
    let banner = bannerLines(state)
    // A banner of more than one line takes the rows above its own from the content area, so that
    // what the area keeps above its last row (the log's newest line, a comic's title) stays seen.
    let content = Rect(x: 0, y: 2, width: width, height: max(1, height - 3 - max(0, (banner?.lines.count ?? 1) - 1)))
    switch state.route {
    case .products: drawProducts(&screen, state, theme)
    case .detail(let id): drawDetail(&screen, state, theme, id, content, pictures, depth)
    case .random: drawRandom(&screen, state, theme, content, pictures, depth)
    case .transactions: drawTransactions(&screen, state, theme, content)
    case .signIn: drawSignIn(&screen, state, theme, content)
    case .offers(let id): drawOffers(&screen, state, theme, id, content)
    }
    if let banner {
        for (y, line) in zip(bannerRows(banner.lines.count, height: height), banner.lines) {
            screen.write(TextWidth.pad(" " + line, to: width), x: 0, y: y, style: theme.banner(banner.kind))
        }
    }
    screen.write(
        TextWidth.pad(" " + footer(for: state, width: width - 1), to: width), x: 0, y: height - 1, style: theme.footer)
    if state.showsHelp { drawHelp(&screen, state, theme) }
    if let sheet = state.retention { drawRetentionSheet(&screen, sheet, theme, depth) }
    if let inspection = state.inspection {
        drawOverlay(
            &screen, title: inspection.title, lines: inspection.lines + ["", "Any key closes this."], theme: theme)
    }
    return screen
}

/// The banner above the footer, if any, in lines of the screen's width less its margin. Any banner,
/// or the account server's problem, is worded in full on up to three lines (the last one cut if it
/// must be), since its end is often the fix or the key to press; it grows upwards over the rows
/// above it. A banner goes with the next key, the server's problem when the server answers.
func bannerLines(_ state: AppState) -> (lines: [String], kind: Banner.Kind)? {
    let width = state.size.columns - 2
    let room = min(3, max(1, state.size.rows - 4))
    func wrapped(_ text: String) -> [String] {
        guard TextWidth.of(text) > width else { return [text] }
        let lines = TextWidth.wrap(text, width: width)
        guard lines.count > room else { return lines }
        let rest = lines[(room - 1)...].joined(separator: " ")
        return Array(lines.prefix(room - 1)) + [TextWidth.truncate(rest, to: width)]
    }
    if let problem = state.serverProblem {
        // What waits for the server is said with it.
        return (wrapped(state.working.map { "\($0) " + problem } ?? problem), .failure)
    }
    if let working = state.working, state.route != .signIn { return (wrapped(working), .info) }
    guard let banner = state.banner, state.route != .signIn else { return nil }
    return (wrapped(banner.text), banner.kind)
}

/// The screen rows a banner of `count` lines takes: those right above the footer.
func bannerRows(_ count: Int, height: Int) -> Range<Int> { height - 1 - count..<height - 1 }

/// "127.0.0.1:8080" for "http://127.0.0.1:8080".
func serverName(_ location: String) -> String {
    location.components(separatedBy: "://").last ?? location
}

func drawTitleBar(_ screen: inout Screen, _ state: AppState, _ theme: Theme) {
    let width = state.size.columns
    // W8: a `--server` device names its account server beside the account.
    let user =
        state.snapshot.map { snapshot in
            snapshot.isOpening
                ? ""
                : (snapshot.status.user ?? "guest") + (snapshot.server.map { " @ " + serverName($0) } ?? "")
                    // F3: where the account buys (`namesStorefront`).
                    + (snapshot.namesStorefront ? " · " + snapshot.storefront : "")
        } ?? ""
    let name = state.snapshot?.catalogName ?? "Storefront"
    let place: String
    switch state.route {
    case .products: place = ""
    case .detail(let id): place = " › " + title(id, in: state)
    case .random: place = " › Random comic"
    case .transactions: place = " › Transactions"
    case .signIn: place = " › Account"
    case .offers(let id): place = " › " + title(id, in: state) + " › Offers"
    }
    screen.write(String(repeating: " ", count: width), x: 0, y: 0, style: theme.titleBar)
    let right = TextWidth.truncate(user, to: max(0, width / 2 - 1))
    let rightWidth = TextWidth.of(right)
    screen.write(
        TextWidth.truncate(" " + name + place, to: max(1, width - rightWidth - 2)), x: 0, y: 0, style: theme.titleBar)
    screen.write(right, x: width - rightWidth - 1, y: 0, style: theme.titleBar)
    guard let snapshot = state.snapshot else { return }
    let status = snapshot.status
    let sellsNonRenewing = snapshot.rows.contains { $0.product.kind == .nonRenewingSubscription }
    let plan = managedPlan(state)
    let planLine = plan.flatMap { plan in
        status.plans.firstIndex(of: plan).flatMap {
            snapshot.planSummaries.indices.contains($0) ? snapshot.planSummaries[$0] : nil
        }
    }
    if sellsNonRenewing || planLine == nil {
        screen.write(
            TextWidth.truncate(" " + status.header, to: width), x: 0, y: 1,
            style: status.headerIsActive ? theme.subscribed : theme.notSubscribed)
        // The auto-renewable plan goes on the spare line under the header when there is one.
        if let planLine, let plan, state.size.rows >= 12, state.route == .products {
            screen.write(
                TextWidth.truncate(" Plan: " + planLine, to: width), x: 0, y: 2,
                style: plan.hasAccess ? theme.subscribed : theme.notSubscribed)
        }
    } else if let planLine, let plan {
        screen.write(
            TextWidth.truncate(" " + planLine, to: width), x: 0, y: 1,
            style: plan.hasAccess ? theme.subscribed : theme.notSubscribed)
    }
}

/// What a row's action column says. `compact` leaves out the views left beside the pack and the offer.
func actionText(_ row: ProductRow, _ snapshot: StoreSnapshot, compact: Bool = false) -> String {
    // What the row offers depends on the account: until the store answers, nothing.
    if snapshot.isOpening { return "" }
    let price = snapshot.displayPrice(row.product)
    let label = Wording.action(row.action, price: price, pending: row.pending)
    guard row.pending == nil, !compact else { return label }
    if row.action == .buy, row.product.kind == .consumable {
        return "\(snapshot.status.hasPass ? "∞" : String(snapshot.status.randomViewsRemaining)) left · \(label)"
    }
    if row.action == .subscribe, let offer = snapshot.offerNotes[row.product.id] { return "\(offer), then \(label)" }
    return label
}

func drawProducts(_ screen: inout Screen, _ state: AppState, _ theme: Theme) {
    guard let snapshot = state.snapshot else { return }
    let layout = ProductListLayout(size: state.size, snapshot: snapshot, selection: state.selection)
    let width = state.size.columns
    // In place of the list: why there is none.
    let message = Rect(x: 1, y: layout.top, width: width - 2, height: max(1, min(7, state.size.rows - layout.top - 1)))
    if let organizer = snapshot.consentWithdrawnBy {
        let user = snapshot.status.user ?? "you"
        drawMessage(
            &screen, in: message,
            lines: [
                "This app is closed to \(user)",
                FamilyRefusal.consentWithdrawn(member: user, organizer: organizer).description,
            ], theme: theme)
        return
    }
    if let error = snapshot.productsError {
        drawMessage(
            &screen, in: message, lines: ["Could not load the products", error, Wording.retrying], theme: theme)
        return
    }
    if snapshot.rows.isEmpty, !snapshot.isOpening {
        // An empty configuration, as Xcode makes a new one (C6).
        drawMessage(&screen, in: message, lines: [Wording.noProducts, Wording.noProductsAdvice], theme: theme)
        return
    }
    for line in 0..<layout.visible {
        let index = layout.offset + line
        guard index < snapshot.rows.count else { break }
        let row = snapshot.rows[index]
        let y = layout.top + line
        let isSelected = index == state.selection
        let base = isSelected ? theme.selected : Style.plain
        screen.write(String(repeating: " ", count: width), x: 0, y: y, style: base)
        let name = TextWidth.pad(row.product.title, to: layout.nameWidth)
        // ▪ marks a product with art of its own (C8), in the margin the selection mark uses.
        let marks = (isSelected ? "▸" : " ") + (row.product.promotionalImage != nil ? "▪" : " ")
        var x = screen.write(marks + name, x: 0, y: y, style: isSelected ? base : theme.title)
        if !row.product.description.isEmpty, layout.actionColumn - x > 6 {
            let room = layout.actionColumn - x - 3
            x = screen.write(
                "  " + TextWidth.truncate(row.product.description, to: room), x: x, y: y,
                style: isSelected ? base : theme.dim)
        }
        let full = actionText(row, snapshot)
        let action = TextWidth.truncate(
            TextWidth.of(full) < layout.actionWidth ? full : actionText(row, snapshot, compact: true),
            to: layout.actionWidth - 1
        )
        let actionStyle: Style
        if isSelected {
            actionStyle = base
        } else if row.pending != nil {
            actionStyle = theme.waiting
        } else {
            actionStyle =
                row.action == .owned || row.action == .subscribed
                ? theme.owned
                : row.action == .signInRequired || row.action == .scheduled || row.action == .notSold
                    ? theme.dim : theme.action
        }
        screen.write(action, x: width - TextWidth.of(action) - 1, y: y, style: actionStyle)
    }
}

/// A store time as the transaction manager shows it: "12:00:00", or with the date first.
/// The Gregorian calendar in the store's zone, by which days are told apart on screen.
func storeCalendar(_ timeZone: TimeZone) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    return calendar
}

func clockText(_ date: Date, _ timeZone: TimeZone, withDate: Bool = false) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = timeZone
    formatter.dateFormat = withDate ? "yyyy-MM-dd HH:mm:ss" : "HH:mm:ss"
    return formatter.string(from: date)
}

/// A step in words; a renewal's or a family share's arrival says so (a restore says "restored").
func eventWords(_ event: TransactionEvent) -> String {
    Wording.step(event.state, reason: event.reason) + (event.arrival.map { " (\($0.words))" } ?? "")
}

/// The footer for `state` at `width` cells: the key map's keys for the screen, spelled out as far
/// as the width allows.
func footer(for state: AppState, width: Int) -> String {
    if state.showsHelp { return footerText([("any key", "closes help")], width: width) }
    if state.isPlaying {
        // The checks so far, as small marks at the right: an audience sees the story, not a log.
        let marks = "✓ \(state.checks.passed)" + (state.checks.failed > 0 ? "  ✗ \(state.checks.failed)" : "")
        let keys = footerText(
            [("space", "next"), ("+ -", "speed"), ("q", "stop")], width: max(0, width - TextWidth.of(marks) - 2))
        return TextWidth.pad(keys, to: max(0, width - TextWidth.of(marks) - 1)) + marks
    }
    if let sheet = state.retention { return footerText(retentionFooter(sheet), width: width) }
    var items = footerItems(state.route, sellsPlans: sellsPlans(state))
    if state.snapshot?.hasRandomComics == false { items.removeAll { $0.label == "random" } }
    // D2: in a pane, Tab moves to the next device; the form's next field is ↓.
    if state.sharesTerminal { items = items.map { $0.key == "Tab" ? ("↓", $0.label) : $0 } }
    return footerText(items, width: width)
}

/// The catalog has auto-renewable plans: the transaction manager offers their keys.
func sellsPlans(_ state: AppState) -> Bool {
    state.snapshot?.rows.contains { $0.product.kind == .autoRenewableSubscription } ?? false
}

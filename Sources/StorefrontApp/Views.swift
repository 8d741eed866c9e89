// The views: render(state) -> Screen. Pure functions of the state (decoded pictures included: an
// effect decodes them into it), so that tests compare whole frames as text.
import Foundation
import StoreCore
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
        case (.failure(let leftFile, let leftReason), .failure(let rightFile, let rightReason)): leftFile == rightFile && leftReason == rightReason
        case (.loading, .loading), (.none, .none): true
        default: false
        }
    }
}

/// Looks up the decoded picture for an image path of the catalog.
public typealias PictureLookup = (String?) -> PictureResult

/// Colours and emphasis, readable with no colour at all (bold and reverse carry the meaning).
/// Each colour names its 256-colour shade and its 8-colour fallback.
struct Theme {
    let depth: ColorDepth
    var colored: Bool { depth != .none }

    func color(_ shade: UInt8, _ basic: UInt8) -> Color {
        switch depth {
        case .none: .default
        case .eight: .indexed(basic)
        case .palette256: .indexed(shade)
        }
    }

    var titleBar: Style { colored ? Style(foreground: color(231, 7), background: color(24, 4), bold: true) : Style(bold: true, reverse: true) }
    var footer: Style { colored ? Style(foreground: color(250, 0), background: color(236, 7)) : Style(reverse: true) }
    var subscribed: Style { Style(foreground: color(77, 2), bold: true) }
    var notSubscribed: Style { Style(foreground: color(179, 3), bold: true) }
    var selected: Style { colored ? Style(foreground: color(231, 7), background: color(25, 4), bold: true) : Style(bold: true, reverse: true) }
    var dim: Style { colored ? Style(foreground: color(245, 7)) : Style(dim: true) }
    var action: Style { Style(foreground: color(80, 6), bold: true) }
    var owned: Style { Style(foreground: color(77, 2), bold: true) }
    var waiting: Style { Style(foreground: color(214, 3), bold: true) }
    var failed: Style { Style(foreground: color(203, 1)) }
    var title: Style { Style(bold: true) }
    func banner(_ kind: Banner.Kind) -> Style {
        guard colored else { return Style(bold: true) }
        switch kind {
        case .info: return Style(foreground: color(231, 7), background: color(31, 4))
        case .success: return Style(foreground: color(16, 0), background: color(114, 2))
        case .failure: return Style(foreground: color(231, 7), background: color(160, 1), bold: true)
        }
    }
}

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
        let lines = ["Window too small", "need \(AppState.minimumSize.columns)×\(AppState.minimumSize.rows)", "now \(state.size.columns)×\(state.size.rows)"]
        for (index, line) in lines.enumerated() where index < state.size.rows {
            screen.write(TextWidth.truncate(line, to: state.size.columns), x: 0, y: index, style: Style(bold: index == 0))
        }
        return screen
    }
    let width = state.size.columns, height = state.size.rows
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
    screen.write(TextWidth.pad(" " + footer(for: state, width: width - 1), to: width), x: 0, y: height - 1, style: theme.footer)
    if state.showsHelp { drawHelp(&screen, state, theme) }
    if let sheet = state.retention { drawRetentionSheet(&screen, sheet, theme, depth) }
    if let inspection = state.inspection { drawOverlay(&screen, title: inspection.title, lines: inspection.lines + ["", "Any key closes this."], theme: theme) }
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
    if let problem = state.serverProblem { return (wrapped(problem), .failure) }
    guard let banner = state.banner, state.route != .signIn else { return nil }
    return (wrapped(banner.text), banner.kind)
}

/// The screen rows a banner of `count` lines takes: those right above the footer.
func bannerRows(_ count: Int, height: Int) -> Range<Int> { height - 1 - count..<height - 1 }

/// "127.0.0.1:8080" for "http://127.0.0.1:8080".
func serverName(_ location: String) -> String {
    location.components(separatedBy: "://").last ?? location
}

private func drawTitleBar(_ screen: inout Screen, _ state: AppState, _ theme: Theme) {
    let width = state.size.columns
    // W8: a `--server` device names its account server beside the account.
    let user = state.snapshot.map { snapshot in
        snapshot.isOpening ? "" : (snapshot.status.user ?? "guest") + (snapshot.server.map { " @ " + serverName($0) } ?? "")
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
    screen.write(TextWidth.truncate(" " + name + place, to: max(1, width - rightWidth - 2)), x: 0, y: 0, style: theme.titleBar)
    screen.write(right, x: width - rightWidth - 1, y: 0, style: theme.titleBar)
    guard let snapshot = state.snapshot else { return }
    let status = snapshot.status
    let sellsNonRenewing = snapshot.rows.contains { $0.product.kind == .nonRenewingSubscription }
    let plan = managedPlan(state)
    let planLine = plan.flatMap { plan in
        status.plans.firstIndex(of: plan).flatMap { snapshot.planSummaries.indices.contains($0) ? snapshot.planSummaries[$0] : nil }
    }
    if sellsNonRenewing || planLine == nil {
        screen.write(TextWidth.truncate(" " + status.header, to: width), x: 0, y: 1, style: status.headerIsActive ? theme.subscribed : theme.notSubscribed)
        // The auto-renewable plan goes on the spare line under the header when there is one.
        if let planLine, let plan, state.size.rows >= 12, state.route == .products {
            screen.write(TextWidth.truncate(" Plan: " + planLine, to: width), x: 0, y: 2, style: plan.hasAccess ? theme.subscribed : theme.notSubscribed)
        }
    } else if let planLine, let plan {
        screen.write(TextWidth.truncate(" " + planLine, to: width), x: 0, y: 1, style: plan.hasAccess ? theme.subscribed : theme.notSubscribed)
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

private func drawProducts(_ screen: inout Screen, _ state: AppState, _ theme: Theme) {
    guard let snapshot = state.snapshot else { return }
    let layout = ProductListLayout(size: state.size, snapshot: snapshot, selection: state.selection)
    let width = state.size.columns
    // In place of the list: why there is none.
    let message = Rect(x: 1, y: layout.top, width: width - 2, height: max(1, min(7, state.size.rows - layout.top - 1)))
    if let organizer = snapshot.consentWithdrawnBy {
        let user = snapshot.status.user ?? "you"
        drawMessage(&screen, in: message, lines: [
            "This app is closed to \(user)",
            FamilyRefusal.consentWithdrawn(member: user, organizer: organizer).description,
        ], theme: theme)
        return
    }
    if let error = snapshot.productsError {
        drawMessage(&screen, in: message, lines: ["Could not load the products", error, Wording.retrying], theme: theme)
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
        var x = screen.write((isSelected ? "▸ " : "  ") + name, x: 0, y: y, style: isSelected ? base : theme.title)
        if !row.product.description.isEmpty, layout.actionColumn - x > 6 {
            let room = layout.actionColumn - x - 3
            x = screen.write("  " + TextWidth.truncate(row.product.description, to: room), x: x, y: y, style: isSelected ? base : theme.dim)
        }
        let full = actionText(row, snapshot)
        let action = TextWidth.truncate(
            TextWidth.of(full) < layout.actionWidth ? full : actionText(row, snapshot, compact: true), to: layout.actionWidth - 1
        )
        let actionStyle: Style
        if isSelected {
            actionStyle = base
        } else if row.pending != nil {
            actionStyle = theme.waiting
        } else {
            actionStyle = row.action == .owned || row.action == .subscribed ? theme.owned
                : row.action == .signInRequired || row.action == .scheduled ? theme.dim : theme.action
        }
        screen.write(action, x: width - TextWidth.of(action) - 1, y: y, style: actionStyle)
    }
}

private func drawDetail(
    _ screen: inout Screen, _ state: AppState, _ theme: Theme, _ id: String, _ area: Rect, _ pictures: PictureLookup, _ depth: ColorDepth
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
    let frame = Rect(x: 1, y: y, width: area.width - 2, height: area.maxY - y - 1)
    let unlocked = snapshot.status.unlocked.contains(id)
    if unlocked {
        drawPicture(&screen, pictures(product.image), in: frame, depth: depth, theme: theme, name: product.image)
    } else {
        // R8.
        let price = snapshot.displayPrice(product)
        drawMessage(&screen, in: frame, lines: ["Purchase to see comic!", "b  Buy \(price)"], theme: theme)
    }
}

private func drawRandom(_ screen: inout Screen, _ state: AppState, _ theme: Theme, _ area: Rect, _ pictures: PictureLookup, _ depth: ColorDepth) {
    guard let snapshot = state.snapshot else { return }
    let status = snapshot.status
    let line = status.hasPass ? "Unlimited random comics while subscribed" : "Random comics left: \(status.randomViewsRemaining)"
    screen.write(TextWidth.truncate(" " + line, to: area.width), x: 0, y: area.y, style: status.hasPass ? theme.subscribed : theme.title)
    // The area's last row is the banner's: the title goes above it, so a banner never hides it.
    let frame = Rect(x: 1, y: area.y + 1, width: area.width - 2, height: area.height - 3)
    if let comic = state.randomComic {
        let caption = TextWidth.truncate(comic.title, to: area.width - 2)
        screen.write(caption, x: max(0, (area.width - TextWidth.of(caption)) / 2), y: area.maxY - 2, style: theme.title)
        drawPicture(&screen, pictures(comic.image), in: frame, depth: depth, theme: theme, name: comic.image)
    } else if !status.hasPass, status.randomViewsRemaining == 0 {
        let pack = snapshot.rows.first { $0.product.kind == .consumable }?.product.title ?? "more views"
        drawMessage(&screen, in: frame, lines: ["No random comics left", "b  Buy \(pack)", "or subscribe"], theme: theme)
    }
}

/// A decoded picture, or a framed placeholder with the file name and the reason (T4).
private func drawPicture(_ screen: inout Screen, _ result: PictureResult, in frame: Rect, depth: ColorDepth, theme: Theme, name: String?) {
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

private func drawMessage(_ screen: inout Screen, in frame: Rect, lines: [String], theme: Theme) {
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

private func stateWords(_ transaction: StoreTransaction, _ timeZone: TimeZone) -> String {
    let words = Wording.state(transaction.state)
    guard transaction.state == .purchasing, let due = transaction.dueAt else { return words }
    return "\(words) (\(Wording.due(approves: transaction.dueApproves == true, at: clockText(due, timeZone))))"
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

private func drawTransactions(_ screen: inout Screen, _ state: AppState, _ theme: Theme, _ area: Rect) {
    guard let snapshot = state.snapshot else { return }
    let width = area.width
    var y = area.y
    func line(_ label: String, _ value: String, _ style: Style = .plain) {
        guard y < area.maxY else { return }
        let x = screen.write(label, x: 1, y: y, style: theme.title)
        screen.write(TextWidth.truncate(value, to: max(0, width - x - 1)), x: x, y: y, style: style)
        y += 1
    }
    let calendar = storeCalendar(snapshot.timeZone)
    line("Clock          ", "\(clockText(snapshot.status.now, snapshot.timeZone, withDate: true)) · \(snapshot.clockDescription)")
    if let server = snapshot.server {
        line("Account server ", "\(server) · " + (state.serverProblem == nil ? "connected" : "unreachable"), state.serverProblem == nil ? theme.owned : theme.failed)
    }
    line("Next purchase  ", snapshot.policy.description, theme.action)
    line("Pending        ", snapshot.pending.isEmpty ? "none" : "\(snapshot.pending.count)")
    if !snapshot.simulatedErrors.isEmpty {
        line("StoreKit errors", " " + snapshot.simulatedErrors.lines.joined(separator: " · "), theme.failed)
    }
    if snapshot.webhook != nil || !snapshot.notifications.isEmpty {
        // N6: where notifications go, and the newest ones as they are delivered.
        line("Notifications  ", snapshot.webhook.map { "→ \($0)" } ?? "no webhook: kept, not sent")
        for notification in snapshot.notifications.suffix(2) {
            let style: Style = notification.state == "failed" ? theme.failed : notification.state == "delivered" ? theme.owned : theme.waiting
            let attempts = notification.attempts > 1 ? " (\(notification.attempts) attempts)" : ""
            // One of another day than the clock's carries its date, as the log's lines do.
            let dated = !calendar.isDate(notification.at, inSameDayAs: snapshot.status.now)
            line("               ", "\(clockText(notification.at, snapshot.timeZone, withDate: dated))  \(notification.title)  \(notification.state)\(attempts)", style)
        }
    }
    if !snapshot.status.plans.isEmpty || snapshot.rows.contains(where: { $0.product.kind == .autoRenewableSubscription }) {
        for summary in snapshot.planSummaries { line("Plan           ", summary, theme.action) }
        // O6: StoreKit's price consent sheet, as a prompt.
        for plan in snapshot.status.plans where plan.endedAt == nil {
            guard let increase = plan.priceIncrease, increase.consentRequired, increase.answer == nil else { continue }
            let price = PriceFormatter(currencyCode: snapshot.currencyCode, localeIdentifier: snapshot.localeIdentifier).string(for: increase.price)
            line("Price consent  ", "\(plan.title) will cost \(price) — y agree · n decline", theme.waiting)
        }
        let grace = snapshot.billing.graceDays.map { "grace \($0) days" } ?? "no grace period"
        line("Renewals       ", "\(snapshot.billing.failing ? "billing fails (retry)" : "billing works") · \(grace)")
    }
    for refund in snapshot.refundRequests {
        // O7: where the account's refund requests stand.
        let style: Style = refund.state == .pending ? theme.waiting : refund.state == .approved ? theme.failed : .plain
        line("Refund request ", "\(title(refund.productID, in: state))  \(refund.state.rawValue)\(refund.state == .pending ? " — Y grant · N refuse" : "")", style)
    }
    for request in snapshot.requests {
        // V7: what `storefront serve` answered, newest last (real time: requests are the client's).
        let style: Style = request.status < 300 ? .plain : theme.failed
        line("API request    ", "\(clockText(request.at, snapshot.timeZone))  \(request.method) \(request.path)  \(request.status)", style)
    }
    let pendingRoom = max(1, min(snapshot.pending.count, (area.maxY - y) / 2))
    for (index, transaction) in snapshot.pending.enumerated().prefix(pendingRoom) where y < area.maxY {
        let isSelected = index == state.pendingSelection
        let text = "\(isSelected ? "▸" : " ") \(transaction.id.prefix(8))  \(title(transaction.productID, in: state))  \(stateWords(transaction, snapshot.timeZone))"
        screen.write(TextWidth.pad(text, to: width - 1), x: 1, y: y, style: isSelected ? theme.selected : theme.waiting)
        y += 1
    }
    guard y < area.maxY else { return }
    screen.write("Log", x: 1, y: y, style: theme.title)
    y += 1
    // The area's last row is the banner's: the newest line (the one a key just caused) stays
    // above it. Once the log spans more than a day, its times carry their dates.
    let room = area.maxY - 1 - y
    guard room > 0 else { return }
    let shown = state.log.suffix(room)
    let dated = state.log.first.map { first in !calendar.isDate(first.at, inSameDayAs: state.log.last?.at ?? first.at) } ?? false
    for event in shown {
        let text = "\(clockText(event.at, snapshot.timeZone, withDate: dated))  \(event.transactionID.prefix(8))  \(title(event.productID, in: state))  \(eventWords(event))"
        let style: Style = event.state == .failed ? theme.failed : event.state == .purchased || event.state == .restored ? theme.owned : .plain
        screen.write(TextWidth.truncate(text, to: width - 2), x: 1, y: y, style: style)
        y += 1
    }
}

private func drawSignIn(_ screen: inout Screen, _ state: AppState, _ theme: Theme, _ area: Rect) {
    let form = state.form
    let width = min(area.width, 46)
    let x = (area.width - width) / 2
    var y = area.y
    let current = state.snapshot?.status.user.map { "Signed in as \($0)" } ?? "Sign in or sign up to buy subscriptions"
    if area.height >= 8 {
        screen.write(TextWidth.truncate(current, to: width), x: x, y: y, style: theme.dim)
        y += 2
    }
    func field(_ label: String, _ value: String, _ which: SignInForm.Field) {
        guard y < area.maxY else { return }
        let focused = form.focus == which
        let labelEnd = screen.write(label, x: x, y: y, style: theme.title)
        let box = TextWidth.pad(value + (focused ? "_" : ""), to: max(1, x + width - labelEnd))
        screen.write(box, x: labelEnd, y: y, style: focused ? theme.selected : Style(underline: true))
        y += 1
    }
    field("Name ", form.name, .name)
    field("Password ", String(repeating: "•", count: form.password.count), .password)
    if y < area.maxY {
        var bx = x
        for choice in availableFields(state) where choice.rawValue >= SignInForm.Field.signIn.rawValue {
            let label: String
            switch choice {
            case .signIn: label = "[Sign in]"
            case .signUp: label = "[Sign up]"
            case .guest: label = "[Guest]"
            case .signOut: label = "[Sign out]"
            default: continue
            }
            bx = screen.write(label, x: bx, y: y, style: form.focus == choice ? theme.selected : theme.action) + 1
        }
        y += 1
    }
    if let error = form.error, y < area.maxY {
        for line in TextWidth.wrap(error, width: width).prefix(area.maxY - y) {
            screen.write(line, x: x, y: y, style: theme.banner(.failure))
            y += 1
        }
    }
}

/// The offer sheet (O1–O4): the product's promotional offers (signed for the demo with the state
/// folder's own key, or on a team device the server's), win-back offers and the introductory
/// offer again, and a field for an offer code.
private func drawOffers(_ screen: inout Screen, _ state: AppState, _ theme: Theme, _ productID: String, _ area: Rect) {
    let width = min(area.width, 64)
    let x = max(0, (area.width - width) / 2)
    var y = area.y
    let offers = sheetChoices(state, productID)
    let formatter = PriceFormatter(currencyCode: state.snapshot?.currencyCode ?? "USD", localeIdentifier: state.snapshot?.localeIdentifier ?? "en_US")
    func line(_ text: String, _ style: Style) {
        guard y < area.maxY else { return }
        screen.write(TextWidth.pad(TextWidth.truncate(text, to: width), to: width), x: x, y: y, style: style)
        y += 1
    }
    let listsBilling = offers.contains { if case .billing = $0 { true } else { false } }
    // Signed with this state folder's key, or on a team device the server's: as the developer's
    // server would sign them.
    line(listsBilling ? "Billing plans and offers (offers signed as the developer's server would)"
        : "Offers (signed as the developer's server would)", theme.title)
    if offers.isEmpty { line("  none for \(title(productID, in: state))", theme.dim) }
    for (index, choice) in offers.enumerated() {
        let chosen = index == state.offerForm.selection && state.offerForm.code.isEmpty
        let text = switch choice {
        case .billing(.monthly, let price):
            "monthly — \(formatter.string(for: price)) a month for \(BillingPlan.commitmentPeriods) months"
                + " (\(formatter.string(for: price * Decimal(BillingPlan.commitmentPeriods))))"
        case .billing(.billedUpfront, let price):
            "up front — \(formatter.string(for: price)) a year, from the commitment's end"
        case .offer(let offer):
            "\(offer.type == .winBack ? "win-back " : "")\(offer.id) — \(offer.terms.phrase(formattedPrice: formatter.string(for: offer.terms.price)))"
        case .introductoryAgain(let offer):
            "introductory offer again — \(offer.phrase(formattedPrice: formatter.string(for: offer.price))), the developer's word"
        }
        line("\(chosen ? "›" : " ") \(text)", chosen ? theme.selected : .plain)
    }
    y += 1
    guard y < area.maxY else { return }
    let labelEnd = screen.write("Offer code ", x: x, y: y, style: theme.title)
    let box = TextWidth.pad(state.offerForm.code + "_", to: max(1, x + width - labelEnd))
    screen.write(box, x: labelEnd, y: y, style: state.offerForm.code.isEmpty ? Style(underline: true) : theme.selected)
    y += 2
    let buys = listsBilling ? "⏎ buys the chosen line" : "⏎ buys on the chosen offer"
    line(state.offerForm.code.isEmpty ? "\(buys); type a code to redeem it instead" : "⏎ redeems the code", theme.dim)
}

/// The footer for `state` at `width` cells: the key map's keys for the screen, spelled out as far
/// as the width allows.
func footer(for state: AppState, width: Int) -> String {
    if state.showsHelp { return footerText([("any key", "closes help")], width: width) }
    if state.isPlaying {
        // The checks so far, as small marks at the right: an audience sees the story, not a log.
        let marks = "✓ \(state.checks.passed)" + (state.checks.failed > 0 ? "  ✗ \(state.checks.failed)" : "")
        let keys = footerText([("space", "next"), ("+ -", "speed"), ("q", "stop")], width: max(0, width - TextWidth.of(marks) - 2))
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

/// A framed box in the middle of the screen (the inspector).
private func drawOverlay(_ screen: inout Screen, title: String, lines: [String], theme: Theme) {
    let width = min(screen.size.columns, max(TextWidth.of(title) + 6, (lines.map(TextWidth.of).max() ?? 0) + 4))
    let height = min(screen.size.rows, lines.count + 2)
    let frame = Rect(x: (screen.size.columns - width) / 2, y: (screen.size.rows - height) / 2, width: width, height: height)
    screen.fill(frame)
    screen.box(frame, style: theme.title, title: title)
    for (index, line) in lines.enumerated() where index + 1 < height - 1 {
        screen.write(line, x: frame.x + 2, y: frame.y + 1 + index, style: .plain, clip: frame.inset(by: 1))
    }
}

private func drawHelp(_ screen: inout Screen, _ state: AppState, _ theme: Theme) {
    let lines = helpLines(state.route, sellsPlans: sellsPlans(state))
    let width = min(screen.size.columns, (lines.map(TextWidth.of).max() ?? 0) + 4)
    let height = min(screen.size.rows, lines.count + 2)
    let frame = Rect(x: (screen.size.columns - width) / 2, y: (screen.size.rows - height) / 2, width: width, height: height)
    screen.fill(frame)
    screen.box(frame, style: theme.title, title: "Keys")
    for (index, line) in lines.enumerated() where index + 1 < height - 1 {
        screen.write(line, x: frame.x + 2, y: frame.y + 1 + index, style: line.hasPrefix(" ") ? .plain : theme.title, clip: frame.inset(by: 1))
    }
}

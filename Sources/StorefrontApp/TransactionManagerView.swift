// The transaction manager (T3): the device's transactions, plans, the clock and the server's
// requests.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

func stateWords(_ transaction: StoreTransaction, _ timeZone: TimeZone) -> String {
    let words = Wording.state(transaction.state)
    guard transaction.state == .purchasing, let due = transaction.dueAt else { return words }
    return "\(words) (\(Wording.due(approves: transaction.dueApproves == true, at: clockText(due, timeZone))))"
}

func drawTransactions(_ screen: inout Screen, _ state: AppState, _ theme: Theme, _ area: Rect) {
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
    line(
        "Clock          ",
        "\(clockText(snapshot.status.now, snapshot.timeZone, withDate: true)) · \(snapshot.clockDescription)")
    if let server = snapshot.server {
        line(
            "Account server ", "\(server) · " + (state.serverProblem == nil ? "connected" : "unreachable"),
            state.serverProblem == nil ? theme.owned : theme.failed)
    }
    line("Next purchase  ", snapshot.policy.description, theme.action)
    if snapshot.namesStorefront {
        // F3: where the account buys, when it could be elsewhere.
        line("Storefront     ", "\(snapshot.storefront) · \(snapshot.currencyCode) — S changes it")
    }
    line("Pending        ", snapshot.pending.isEmpty ? "none" : "\(snapshot.pending.count)")
    if !snapshot.simulatedErrors.isEmpty {
        line("StoreKit errors", " " + snapshot.simulatedErrors.lines.joined(separator: " · "), theme.failed)
    }
    if snapshot.webhook != nil || !snapshot.notifications.isEmpty {
        // N6: where notifications go, and the newest ones as they are delivered.
        line("Notifications  ", snapshot.webhook.map { "→ \($0)" } ?? "no webhook: kept, not sent")
        for notification in snapshot.notifications.suffix(2) {
            let style: Style =
                notification.state == "failed"
                ? theme.failed : notification.state == "delivered" ? theme.owned : theme.waiting
            let attempts = notification.attempts > 1 ? " (\(notification.attempts) attempts)" : ""
            // One of another day than the clock's carries its date, as the log's lines do.
            let dated = !calendar.isDate(notification.at, inSameDayAs: snapshot.status.now)
            line(
                "               ",
                "\(clockText(notification.at, snapshot.timeZone, withDate: dated))  \(notification.title)  \(notification.state)\(attempts)",
                style)
        }
    }
    if !snapshot.status.plans.isEmpty
        || snapshot.rows.contains(where: { $0.product.kind == .autoRenewableSubscription })
    {
        for summary in snapshot.planSummaries { line("Plan           ", summary, theme.action) }
        // O6: StoreKit's price consent sheet, as a prompt.
        for plan in snapshot.status.plans where plan.endedAt == nil {
            guard let increase = plan.priceIncrease, increase.consentRequired, increase.answer == nil else { continue }
            let price = PriceFormatter(currencyCode: snapshot.currencyCode, localeIdentifier: snapshot.localeIdentifier)
                .string(for: increase.price)
            line("Price consent  ", "\(plan.title) will cost \(price) — y agree · n decline", theme.waiting)
        }
        let grace = snapshot.billing.graceDays.map { "grace \($0) days" } ?? "no grace period"
        line("Renewals       ", "\(snapshot.billing.failing ? "billing fails (retry)" : "billing works") · \(grace)")
    }
    for refund in snapshot.refundRequests {
        // O7: where the account's refund requests stand.
        let style: Style = refund.state == .pending ? theme.waiting : refund.state == .approved ? theme.failed : .plain
        line(
            "Refund request ",
            "\(title(refund.productID, in: state))  \(refund.state.rawValue)\(refund.state == .pending ? " — Y grant · N refuse" : "")",
            style)
    }
    for request in snapshot.requests {
        // V7: what `storefront serve` answered, newest last (real time: requests are the client's).
        let style: Style = request.status < 300 ? .plain : theme.failed
        line(
            "API request    ",
            "\(clockText(request.at, snapshot.timeZone))  \(request.method) \(request.path)  \(request.status)", style)
    }
    let pendingRoom = max(1, min(snapshot.pending.count, (area.maxY - y) / 2))
    for (index, transaction) in snapshot.pending.enumerated().prefix(pendingRoom) where y < area.maxY {
        let isSelected = index == state.pendingSelection
        let text =
            "\(isSelected ? "▸" : " ") \(transaction.id.prefix(8))  \(title(transaction.productID, in: state))  \(stateWords(transaction, snapshot.timeZone))"
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
    let dated =
        state.log.first.map { first in !calendar.isDate(first.at, inSameDayAs: state.log.last?.at ?? first.at) }
        ?? false
    for event in shown {
        let text =
            "\(clockText(event.at, snapshot.timeZone, withDate: dated))  \(event.transactionID.prefix(8))  \(title(event.productID, in: state))  \(eventWords(event))"
        let style: Style =
            event.state == .failed
            ? theme.failed : event.state == .purchased || event.state == .restored ? theme.owned : .plain
        screen.write(TextWidth.truncate(text, to: width - 2), x: 1, y: y, style: style)
        y += 1
    }
}

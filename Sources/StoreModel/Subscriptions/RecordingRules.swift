// What every account server does when it records, whatever keeps its state (the embedded SQLite
// file, PostgreSQL): the stored expiry after a purchase (R5, A6), the notification each new line
// reports (N2), and plan lines folded into the plans they lead to — written once, for both.
import Foundation

package enum RecordingRules {
    /// The stored expiry after `entry` (new on the receipt, extending) was recorded. When it is the
    /// latest extending purchase, R5 applied to the stored expiry gives what A6's recomputation
    /// would; one that lands out of order (a delayed approval settled late) replays the receipt.
    package static func expiry(
        after entry: ReceiptEntry, latest: ReceiptEntry?, stored: Date?, calendar: Calendar,
        receipt: () throws -> [ReceiptEntry]
    ) rethrows -> Date? {
        let sortsLast =
            latest.map {
                (entry.purchaseDate.storeSeconds, entry.transactionID) > (
                    $0.purchaseDate.storeSeconds, $0.transactionID
                )
            } ?? true
        guard sortsLast else { return SubscriptionMath.recomputeExpiry(from: try receipt(), calendar: calendar) }
        return SubscriptionMath.extend(
            expiry: stored, purchaseDate: entry.purchaseDate, months: entry.months, days: entry.days,
            bonusDays: entry.bonusDays, calendar: calendar
        )
    }

    /// W10: the purchase `entry` repeats, when it buys a comic its account already owns (another
    /// device bought it first, or raced it): the App Store charges a non-consumable once, so the
    /// server records nothing and the device's transaction is that purchase. `receipt` is read in
    /// the recording's own transaction, under the account's lock.
    package static func alreadyOwned(_ entry: ReceiptEntry, receipt: () throws -> [ReceiptEntry]) rethrows
        -> ReceiptEntry?
    {
        guard entry.kind == .nonConsumable, entry.event == .purchase else { return nil }
        let lines = try receipt()
        guard !lines.contains(where: { $0.transactionID == entry.transactionID }),
            let owner = ReceiptEntry.owned(lines).first(where: { $0.productID == entry.productID })
        else { return nil }
        return lines.first { $0.transactionID == owner.transactionID }
    }

    /// The notification a newly recorded line reports, keyed by its event (N2), if any.
    package static func notification(
        for line: ReceiptEntry, before: PlanState?, after: PlanState?, previous: ReceiptEntry?
    ) -> ServerNotification? {
        guard let (type, subtype) = NotificationRules.forLine(line, before: before, after: after, previous: previous)
        else { return nil }
        return ServerNotification(
            key: "line:\(line.transactionID):\(line.event.rawValue)", account: line.account, type: type,
            subtype: subtype,
            transactionID: line.transactionID, group: line.group, createdAt: line.purchaseDate
        )
    }

    /// Adds plan lines onto `plans`: each line `insert` says is new changes its plan and writes
    /// its notification (`enqueue`), in the caller's transaction. Returns the plans that changed.
    package static func record(
        _ lines: [ReceiptEntry], onto plans: [String: PlanState], insert: (ReceiptEntry) throws -> Bool,
        enqueue: (ServerNotification) throws -> Void
    ) rethrows -> [String: PlanState] {
        var plans = plans
        var changed: [String: PlanState] = [:]
        var previous: ReceiptEntry?
        for line in lines {
            guard try insert(line) else { continue }
            let group = line.group ?? ""
            let before = plans[group]
            plans[group] = PlanState.apply(plans[group], line)
            if let notification = notification(for: line, before: before, after: plans[group], previous: previous) {
                try enqueue(notification)
            }
            previous = line
            changed[group] = plans[group]
        }
        return changed
    }
}

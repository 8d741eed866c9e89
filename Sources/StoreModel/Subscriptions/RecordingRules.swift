// What every account server does when it records, whatever keeps its state (the embedded SQLite
// file, PostgreSQL): the notification each new line reports (N2), and plan lines folded into the
// plans they lead to — written once, for both. A purchase's line and expiry: PurchaseRecording.
import Foundation

package enum RecordingRules {
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

    /// What recording plan lines writes: the lines new on the receipt, the notification each
    /// reports (N2), and the plans they changed, by group.
    package struct PlanWrite: Sendable, Equatable {
        package var lines: [ReceiptEntry] = []
        package var notifications: [ServerNotification] = []
        package var plans: [String: PlanState] = [:]
    }

    /// Plan lines added onto `plans`: each line whose transaction id is not in `recorded` (nor
    /// earlier in `lines`) is new, changes its plan and reports its notification. A function of
    /// values: the account server reads `plans` and `recorded` in its transaction and applies
    /// the write there.
    package static func record(_ lines: [ReceiptEntry], onto plans: [String: PlanState], recorded: Set<String>)
        -> PlanWrite
    {
        var plans = plans
        var recorded = recorded
        var write = PlanWrite()
        var previous: ReceiptEntry?
        for line in lines where recorded.insert(line.transactionID).inserted {
            let group = line.group ?? ""
            let before = plans[group]
            plans[group] = PlanState.apply(plans[group], line)
            write.lines.append(line)
            if let notification = notification(for: line, before: before, after: plans[group], previous: previous) {
                write.notifications.append(notification)
            }
            previous = line
            write.plans[group] = plans[group]
        }
        return write
    }
}

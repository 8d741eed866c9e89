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

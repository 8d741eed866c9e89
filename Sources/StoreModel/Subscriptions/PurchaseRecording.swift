// Recording a purchase line on an account's receipt (A2, A4, A6, N2, W10) as a rule of values:
// from what the ledger read in the recording's transaction, what it writes. Both account servers
// (SQLite and PostgreSQL) read, call `record`, and apply the write in one transaction under the
// account's lock; neither decides anything of its own.
import Foundation

package enum PurchaseRecording {
    /// What the ledger reads, in the recording's transaction, before it records `entry`.
    package struct Read: Sendable, Equatable {
        /// A line with the entry's transaction id is on the receipt already: a repeat.
        package var isOnReceipt: Bool
        /// The account's latest line that extends its expiry, by purchase date then id.
        package var latest: ReceiptEntry?
        package var storedExpiry: Date?
        /// The account's whole receipt, in order; read only where `needsReceipt` says so.
        package var receipt: [ReceiptEntry]?

        package init(
            isOnReceipt: Bool, latest: ReceiptEntry?, storedExpiry: Date?, receipt: [ReceiptEntry]? = nil
        ) {
            self.isOnReceipt = isOnReceipt
            self.latest = latest
            self.storedExpiry = storedExpiry
            self.receipt = receipt
        }
    }

    /// What the ledger writes, and what it answers.
    package struct Write: Sendable, Equatable {
        /// The line to add to the receipt; nil when nothing is recorded.
        package var line: ReceiptEntry?
        /// The notification the new line reports (N2), written in the same transaction.
        package var notification: ServerNotification?
        /// The stored expiry to keep from now on; nil leaves it as it is.
        package var expiry: Date?
        /// The account's stored expiry after the recording: what `Ledger.record` returns.
        package var answer: Date?
    }

    /// Whether `record` needs the account's whole receipt: a comic bought again is looked for among
    /// what the account owns (W10), and a line that lands before the latest replays the receipt (A6).
    package static func needsReceipt(_ entry: ReceiptEntry, isOnReceipt: Bool, latest: ReceiptEntry?) -> Bool {
        guard !isOnReceipt else { return false }
        if entry.kind == .nonConsumable, entry.event == .purchase { return true }
        return entry.extendsExpiry && !sortsLast(entry, after: latest)
    }

    /// The recording of `entry`. A repeat of a line, or a comic the account owns already (another
    /// device bought it first: the App Store charges a non-consumable once), writes nothing and
    /// answers the stored expiry. A new line is written with its notification; one that extends
    /// the expiry applies R5 to the stored expiry when it is the latest, and otherwise replays the
    /// receipt with it, which gives what A6's recomputation would.
    package static func record(_ entry: ReceiptEntry, read: Read, calendar: Calendar) -> Write {
        let stored = read.storedExpiry
        guard !read.isOnReceipt, owner(of: entry, in: read.receipt ?? []) == nil else {
            return Write(line: nil, notification: nil, expiry: nil, answer: stored)
        }
        let notification = RecordingRules.notification(for: entry, before: nil, after: nil, previous: nil)
        guard entry.extendsExpiry else {
            return Write(line: entry, notification: notification, expiry: nil, answer: stored)
        }
        let expiry =
            sortsLast(entry, after: read.latest)
            ? SubscriptionMath.extend(
                expiry: stored, purchaseDate: entry.purchaseDate, months: entry.months, days: entry.days,
                bonusDays: entry.bonusDays, calendar: calendar)
            : SubscriptionMath.recomputeExpiry(from: (read.receipt ?? []) + [entry], calendar: calendar)
        return Write(line: entry, notification: notification, expiry: expiry, answer: expiry)
    }

    /// The line by which the account already owns the comic `entry` buys, if any (W10).
    static func owner(of entry: ReceiptEntry, in receipt: [ReceiptEntry]) -> ReceiptEntry? {
        guard entry.kind == .nonConsumable, entry.event == .purchase,
            let owned = ReceiptEntry.owned(receipt).first(where: { $0.productID == entry.productID })
        else { return nil }
        return receipt.first { $0.transactionID == owned.transactionID }
    }

    /// Whether `entry` comes after `latest` in the receipt's order (stored to the second).
    static func sortsLast(_ entry: ReceiptEntry, after latest: ReceiptEntry?) -> Bool {
        guard let latest else { return true }
        return (entry.purchaseDate.storeSeconds, entry.transactionID)
            > (latest.purchaseDate.storeSeconds, latest.transactionID)
    }
}

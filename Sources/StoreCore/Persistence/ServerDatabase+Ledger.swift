// The embedded account server's ledger (A2, A4, A6): each account's receipt and stored expiry,
// written in one transaction per purchase.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: Ledger {
    /// Records a purchase on the account's receipt and updates the stored expiry from it, in one
    /// transaction, by PurchaseRecording's rule. Idempotent per transaction id. Returns the account's
    /// stored expiry after it.
    @discardableResult
    public func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date? {
        try write { db in
            typealias Columns = ReceiptRecord.Columns
            let isOnReceipt = try ReceiptRecord.exists(db, key: entry.transactionID)
            let latest = try ReceiptRecord.filter(
                Columns.account == entry.account && (Columns.months > 0 || Columns.days > 0)
            )
            .order(Columns.purchaseDate.desc, Columns.transactionID.desc).fetchOne(db)?.entry
            var read = PurchaseRecording.Read(
                isOnReceipt: isOnReceipt, latest: latest,
                storedExpiry: try Self.storedExpiry(db, account: entry.account))
            if PurchaseRecording.needsReceipt(entry, isOnReceipt: isOnReceipt, latest: latest) {
                read.receipt = try Self.receipt(db, account: entry.account)
            }
            let recording = PurchaseRecording.record(entry, read: read, calendar: calendar)
            if let line = recording.line { try Self.insert(db, line) }
            if let notification = recording.notification {
                try NotificationRecord(notification).insert(db, onConflict: .ignore)
            }
            if let expiry = recording.expiry {
                try SubscriptionRecord(account: entry.account, expiry: expiry.storeSeconds).upsert(db)
            }
            return recording.answer
        }
    }

    public func hasReceiptEntry(transactionID: String) throws(StoreError) -> Bool {
        try read { db in try ReceiptRecord.exists(db, key: transactionID) }
    }

    public func receiptEntry(transactionID: String) throws(StoreError) -> ReceiptEntry? {
        try read { db in try ReceiptRecord.fetchOne(db, where: "transactionID", is: transactionID)?.entry }
    }

    public func receiptState(account: String) throws(StoreError) -> ReceiptState {
        try read { db in
            ReceiptState(
                entries: try Self.receipt(db, account: account),
                storedExpiry: try Self.storedExpiry(db, account: account),
                plans: try Self.plans(db, account: account), planLines: try Self.planLines(db, account: account)
            )
        }
    }

    public func receipt(account: String) throws(StoreError) -> [ReceiptEntry] {
        try read { db in try Self.receipt(db, account: account) }
    }

    public func storedExpiry(account: String) throws(StoreError) -> Date? {
        try read { db in try Self.storedExpiry(db, account: account) }
    }

    /// Non-consumables on the account's receipt, in purchase order (A2, A5).
    public func ownedProducts(account: String) throws(StoreError) -> [(productID: String, transactionID: String)] {
        try read { db in
            typealias Columns = ReceiptRecord.Columns
            let lines = try ReceiptRecord.filter(
                Columns.account == account && Columns.kind == ProductKind.nonConsumable.rawValue
            )
            .order(Column.rowID).fetchAll(db).map(\.entry)
            return ReceiptEntry.owned(lines)
        }
    }

    static func storedExpiry(_ db: Database, account: String) throws -> Date? {
        try SubscriptionRecord.fetchOne(db, where: "account", is: account).map { Date(storeSeconds: $0.expiry) }
    }

    static func receipt(_ db: Database, account: String) throws -> [ReceiptEntry] {
        // A cached statement: a purchase that lands out of order (several in one second) reads the
        // receipt whole, and building the query anew each time cost a third of a purchase.
        let statement = try db.cachedStatement(
            sql: "SELECT * FROM receipt WHERE account = ? ORDER BY purchaseDate, transactionID")
        return try ReceiptRecord.fetchAll(statement, arguments: [account]).map(\.entry)
    }

    /// Adds a line; false when a line with its transaction id is there already.
    @discardableResult
    static func insert(_ db: Database, _ entry: ReceiptEntry) throws -> Bool {
        try ReceiptRecord(entry).insert(db, onConflict: .ignore)
        return db.changesCount == 1
    }
}

// Each account's receipt and stored expiry in PostgreSQL (A2, A4, A6), a purchase and its expiry
// in one transaction under the account's advisory lock.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: Ledger {
    /// Adds a line; false when a line with its transaction id is there already.
    func insert(_ connection: PostgresConnection, _ entry: ReceiptEntry) throws -> Bool {
        try !query(
            connection,
            """
            INSERT INTO receipt (transactionID, accountKey, kind, purchaseDate, extendsExpiry, entry, event)
            VALUES (
                \(entry.transactionID), \(Self.key(entry.account)), \(entry.kind.rawValue), \(Self.seconds(entry.purchaseDate)),
                \(entry.extendsExpiry), \(Self.json(entry)), \(entry.event.rawValue)
            )
            ON CONFLICT DO NOTHING RETURNING transactionID
            """
        ).isEmpty
    }

    func entries(_ rows: [PostgresRow]) throws -> [ReceiptEntry] {
        try rows.map { try Self.decode(ReceiptEntry.self, $0, "entry", of: "receipt") }
    }

    func receipt(_ connection: PostgresConnection, account: String) throws -> [ReceiptEntry] {
        try entries(
            query(
                connection,
                "SELECT entry FROM receipt WHERE accountKey = \(Self.key(account)) ORDER BY purchaseDate, transactionID"
            ))
    }

    func storedExpiry(_ connection: PostgresConnection, account: String) throws -> Date? {
        try query(connection, "SELECT expiry FROM subscription WHERE accountKey = \(Self.key(account))").first.flatMap {
            Self.date($0, "expiry")
        }
    }

    /// Records a purchase by PurchaseRecording's rule, in one transaction under the account's lock.
    @discardableResult
    public func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date? {
        try transaction(lock: entry.account) { connection in
            let isOnReceipt = try !query(
                connection, "SELECT 1 FROM receipt WHERE transactionID = \(entry.transactionID)"
            ).isEmpty
            let latest = try entries(
                query(
                    connection,
                    "SELECT entry FROM receipt WHERE accountKey = \(Self.key(entry.account)) AND extendsExpiry ORDER BY purchaseDate DESC, transactionID DESC LIMIT 1"
                )
            ).first
            var read = PurchaseRecording.Read(
                isOnReceipt: isOnReceipt, latest: latest,
                storedExpiry: try storedExpiry(connection, account: entry.account))
            if PurchaseRecording.needsReceipt(entry, isOnReceipt: isOnReceipt, latest: latest) {
                read.receipt = try receipt(connection, account: entry.account)
            }
            let recording = PurchaseRecording.record(entry, read: read, calendar: calendar)
            if let line = recording.line { _ = try insert(connection, line) }
            if let notification = recording.notification { _ = try insert(connection, notification) }
            if let expiry = recording.expiry {
                try query(
                    connection,
                    """
                    INSERT INTO subscription (accountKey, expiry)
                    VALUES (\(Self.key(entry.account)), \(Self.seconds(expiry)))
                    ON CONFLICT (accountKey) DO UPDATE SET expiry = EXCLUDED.expiry
                    """
                )
            }
            return recording.answer
        }
    }

    public func hasReceiptEntry(transactionID: String) throws(StoreError) -> Bool {
        try receiptEntry(transactionID: transactionID) != nil
    }

    public func receiptEntry(transactionID: String) throws(StoreError) -> ReceiptEntry? {
        try read { connection in
            try entries(query(connection, "SELECT entry FROM receipt WHERE transactionID = \(transactionID)")).first
        }
    }

    public func receipt(account: String) throws(StoreError) -> [ReceiptEntry] {
        try read { try receipt($0, account: account) }
    }

    public func receiptState(account: String) throws(StoreError) -> ReceiptState {
        try transaction { connection in
            try query(connection, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return ReceiptState(
                entries: try receipt(connection, account: account),
                storedExpiry: try storedExpiry(connection, account: account),
                plans: try plans(connection, account: account), planLines: try planLines(connection, account: account)
            )
        }
    }

    public func storedExpiry(account: String) throws(StoreError) -> Date? {
        try read { try storedExpiry($0, account: account) }
    }

    public func ownedProducts(account: String) throws(StoreError) -> [(productID: String, transactionID: String)] {
        let bought = try read { connection in
            try entries(
                query(
                    connection,
                    """
                    SELECT entry FROM receipt
                    WHERE accountKey = \(Self.key(account)) AND kind = \(ProductKind.nonConsumable.rawValue)
                    ORDER BY sequence
                    """
                ))
        }
        return ReceiptEntry.owned(bought)
    }
}

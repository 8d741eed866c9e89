// Each account's receipt and stored expiry in PostgreSQL (A2, A4, A6), a purchase and its expiry
// in one transaction under the account's advisory lock.
import Foundation
import PostgresNIO
import StoreCore

extension PostgresAccountServer: Ledger {
    /// Adds a line; false when a line with its transaction id is there already.
    func insert(_ connection: PostgresConnection, _ entry: ReceiptEntry) throws -> Bool {
        try !query(
            connection, """
                INSERT INTO receipt (transactionID, accountKey, kind, purchaseDate, extendsExpiry, entry, event)
                VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING transactionID
                """,
            [Self.text(entry.transactionID), Self.key(entry.account), Self.text(entry.kind.rawValue), Self.seconds(entry.purchaseDate),
             PostgresData(bool: entry.extendsExpiry), try Self.json(entry), Self.text(entry.event.rawValue)]
        ).isEmpty
    }

    func entries(_ rows: [PostgresRow]) throws -> [ReceiptEntry] {
        try rows.map { try Self.decode(ReceiptEntry.self, $0, "entry", of: "receipt") }
    }

    func receipt(_ connection: PostgresConnection, account: String) throws -> [ReceiptEntry] {
        try entries(query(connection, "SELECT entry FROM receipt WHERE accountKey = $1 ORDER BY purchaseDate, transactionID", [Self.key(account)]))
    }

    func storedExpiry(_ connection: PostgresConnection, account: String) throws -> Date? {
        try query(connection, "SELECT expiry FROM subscription WHERE accountKey = $1", [Self.key(account)]).first.map { Self.cell($0, "expiry") }?.double
            .map { Date(timeIntervalSince1970: $0) }
    }

    @discardableResult
    public func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date? {
        try transaction(lock: entry.account) { connection in
            let latest = try entries(query(
                connection, "SELECT entry FROM receipt WHERE accountKey = $1 AND extendsExpiry ORDER BY purchaseDate DESC, transactionID DESC LIMIT 1",
                [Self.key(entry.account)]
            )).first
            if try RecordingRules.alreadyOwned(entry, receipt: { try receipt(connection, account: entry.account) }) != nil {
                return try storedExpiry(connection, account: entry.account)
            }
            let inserted = try insert(connection, entry)
            let stored = try storedExpiry(connection, account: entry.account)
            if inserted, let notification = RecordingRules.notification(for: entry, before: nil, after: nil, previous: nil) {
                _ = try insert(connection, notification)
            }
            guard inserted, entry.extendsExpiry else { return stored }
            let expiry = try RecordingRules.expiry(after: entry, latest: latest, stored: stored, calendar: calendar) {
                try receipt(connection, account: entry.account)
            }
            if let expiry {
                try query(
                    connection, "INSERT INTO subscription (accountKey, expiry) VALUES ($1, $2) ON CONFLICT (accountKey) DO UPDATE SET expiry = $2",
                    [Self.key(entry.account), Self.seconds(expiry)]
                )
            }
            return expiry
        }
    }

    public func hasReceiptEntry(transactionID: String) throws(StoreError) -> Bool { try receiptEntry(transactionID: transactionID) != nil }

    public func receiptEntry(transactionID: String) throws(StoreError) -> ReceiptEntry? {
        try read { connection in try entries(query(connection, "SELECT entry FROM receipt WHERE transactionID = $1", [Self.text(transactionID)])).first }
    }

    public func receipt(account: String) throws(StoreError) -> [ReceiptEntry] { try read { try receipt($0, account: account) } }

    public func receiptState(account: String) throws(StoreError) -> ReceiptState {
        try transaction { connection in
            try query(connection, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return ReceiptState(
                entries: try receipt(connection, account: account), storedExpiry: try storedExpiry(connection, account: account),
                plans: try plans(connection, account: account), planLines: try planLines(connection, account: account)
            )
        }
    }

    public func storedExpiry(account: String) throws(StoreError) -> Date? { try read { try storedExpiry($0, account: account) } }

    public func ownedProducts(account: String) throws(StoreError) -> [(productID: String, transactionID: String)] {
        let bought = try read { connection in
            try entries(query(
                connection, "SELECT entry FROM receipt WHERE accountKey = $1 AND kind = $2 ORDER BY sequence",
                [Self.key(account), Self.text(ProductKind.nonConsumable.rawValue)]
            ))
        }
        return ReceiptEntry.owned(bought)
    }
}

// The embedded account server (A2): accounts, every account's receipt and stored expiry, and the
// clock that all devices of a state directory share, in a SQLite file; no server process.
import Foundation
import GRDB

public final class ServerDatabase: AccountServer, SQLiteBacked, Sendable {
    let file: SQLiteFile
    /// The clock setting as last read, and when: every store time reads it (Q5), so it is read
    /// again only after something was committed.
    private let clockCache = Locked<(ChangeStamp, ClockSetting)?>(nil)

    public var location: String { path }

    public init(url: URL) throws(StoreError) {
        file = try SQLiteFile(url: url, migrator: Self.migrator)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE account (
                    name TEXT PRIMARY KEY COLLATE NOCASE,
                    passwordHash TEXT NOT NULL,
                    createdAt INTEGER NOT NULL
                );
                CREATE TABLE receipt (
                    transactionID TEXT PRIMARY KEY,
                    account TEXT NOT NULL COLLATE NOCASE,
                    productID TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    quantity INTEGER NOT NULL,
                    months INTEGER NOT NULL,
                    bonusDays INTEGER NOT NULL,
                    purchaseDate INTEGER NOT NULL,
                    device TEXT NOT NULL
                );
                CREATE INDEX receiptByAccount ON receipt(account, purchaseDate);
                CREATE TABLE subscription (
                    account TEXT PRIMARY KEY COLLATE NOCASE,
                    expiry INTEGER NOT NULL
                );
                CREATE TABLE clock (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    setting TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2-auto-renewable") { db in
            try db.execute(sql: """
                ALTER TABLE receipt ADD COLUMN event TEXT NOT NULL DEFAULT 'purchase';
                ALTER TABLE receipt ADD COLUMN groupID TEXT;
                ALTER TABLE receipt ADD COLUMN expiresDate INTEGER;
                ALTER TABLE receipt ADD COLUMN offer TEXT;
                ALTER TABLE receipt ADD COLUMN price TEXT;
                ALTER TABLE receipt ADD COLUMN reference TEXT;
                ALTER TABLE receipt ADD COLUMN until INTEGER;
                ALTER TABLE receipt ADD COLUMN note TEXT;
                CREATE TABLE plan (
                    account TEXT NOT NULL COLLATE NOCASE,
                    groupID TEXT NOT NULL,
                    state TEXT NOT NULL,
                    PRIMARY KEY (account, groupID)
                );
                CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """)
        }
        migrator.registerMigration("v3: durations in days") { db in
            // Non-renewing subscriptions of days and weeks (R5): months stay months, days add after.
            try db.execute(sql: "ALTER TABLE receipt ADD COLUMN days INTEGER NOT NULL DEFAULT 0")
        }
        registerNotifications(&migrator)
        registerSessions(&migrator)
        registerClaims(&migrator)
        return migrator
    }


    // MARK: Accounts

    // MARK: Receipt

    /// Records a purchase on the account's receipt and updates the stored expiry from it, in one
    /// transaction. Idempotent per transaction id. Returns the account's stored expiry after it.
    @discardableResult
    public func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date? {
        try write { db in
            typealias Columns = ReceiptRecord.Columns
            let latest = try ReceiptRecord.filter(Columns.account == entry.account && (Columns.months > 0 || Columns.days > 0))
                .order(Columns.purchaseDate.desc, Columns.transactionID.desc).fetchOne(db)?.entry
            let inserted = try Self.insert(db, entry)
            let stored = try Self.storedExpiry(db, account: entry.account)
            // N2: a one-time charge is told in the transaction that records it.
            if inserted, let notification = RecordingRules.notification(for: entry, before: nil, after: nil, previous: nil) {
                try NotificationRecord(notification).insert(db, onConflict: .ignore)
            }
            guard inserted, entry.extendsExpiry else { return stored }
            let expiry = try RecordingRules.expiry(after: entry, latest: latest, stored: stored, calendar: calendar) {
                try Self.receipt(db, account: entry.account)
            }
            if let expiry { try SubscriptionRecord(account: entry.account, expiry: expiry.storeSeconds).upsert(db) }
            return expiry
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
                entries: try Self.receipt(db, account: account), storedExpiry: try Self.storedExpiry(db, account: account),
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
            let lines = try ReceiptRecord.filter(Columns.account == account && Columns.kind == ProductKind.nonConsumable.rawValue)
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
        let statement = try db.cachedStatement(sql: "SELECT * FROM receipt WHERE account = ? ORDER BY purchaseDate, transactionID")
        return try ReceiptRecord.fetchAll(statement, arguments: [account]).map(\.entry)
    }

    /// Adds a line; false when a line with its transaction id is there already.
    @discardableResult
    static func insert(_ db: Database, _ entry: ReceiptEntry) throws -> Bool {
        try ReceiptRecord(entry).insert(db, onConflict: .ignore)
        return db.changesCount == 1
    }

    // MARK: Clock

    public func clockSetting() throws(StoreError) -> ClockSetting {
        let stamp = try changeStamp()
        if let (seen, setting) = clockCache.withLock({ $0 }), seen == stamp { return setting }
        let setting = try read { db in try ClockRecord.fetchOne(db)?.setting ?? .standard }
        clockCache.withLock { $0 = (stamp, setting) }
        return setting
    }

    public func setClockSetting(_ setting: ClockSetting) throws(StoreError) {
        try write { db in try ClockRecord(setting).upsert(db) }
    }
}

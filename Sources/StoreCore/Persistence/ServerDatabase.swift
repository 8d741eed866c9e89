// The account server (A2): accounts, every account's receipt and stored expiry, and the clock
// that all devices of a state directory share. An embedded SQLite file; no server process.
import Foundation
import GRDB

public final class ServerDatabase: SQLiteBacked, Sendable {
    let file: SQLiteFile

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
        return migrator
    }


    // MARK: Accounts

    func passwordHash(account: String) throws(StoreError) -> (name: String, hash: String)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT name, passwordHash FROM account WHERE name = ?", arguments: [account])
                .map { ($0["name"], $0["passwordHash"]) }
        }
    }

    /// Creates the account; false when the name is taken (whatever its case).
    func createAccount(name: String, passwordHash: String, at date: Date) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO account(name, passwordHash, createdAt) VALUES (?, ?, ?)",
                arguments: [name, passwordHash, date.storeSeconds]
            )
            return db.changesCount == 1
        }
    }

    // MARK: Receipt

    /// Records a purchase on the account's receipt and updates the stored expiry from it, in one
    /// transaction. Idempotent per transaction id. Returns the account's stored expiry after it.
    @discardableResult
    func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date? {
        try write { db in
            let latest = try Row.fetchOne(
                db,
                sql: """
                    SELECT purchaseDate, transactionID FROM receipt
                    WHERE account = ? AND months > 0 ORDER BY purchaseDate DESC, transactionID DESC LIMIT 1
                    """,
                arguments: [entry.account]
            )
            try Self.insert(db, entry)
            let inserted = db.changesCount == 1
            let stored = try Self.storedExpiry(db, account: entry.account)
            guard inserted, entry.months > 0 else { return stored }
            let expiry: Date?
            let sortsLast = latest.map { row in
                let date: Int64 = row["purchaseDate"], id: String = row["transactionID"]
                return (entry.purchaseDate.storeSeconds, entry.transactionID) > (date, id)
            } ?? true
            if sortsLast {
                // The usual case: the new purchase is the latest on the receipt, so R5 applied to
                // the stored expiry gives what A6's full recomputation would.
                expiry = SubscriptionMath.extend(
                    expiry: stored, purchaseDate: entry.purchaseDate, months: entry.months,
                    bonusDays: entry.bonusDays, calendar: calendar
                )
            } else {
                // A purchase that lands out of order (a delayed approval settled late): replay all.
                expiry = SubscriptionMath.recomputeExpiry(from: try Self.receipt(db, account: entry.account), calendar: calendar)
            }
            if let expiry {
                try db.execute(
                    sql: "INSERT INTO subscription(account, expiry) VALUES (?, ?) ON CONFLICT(account) DO UPDATE SET expiry = excluded.expiry",
                    arguments: [entry.account, expiry.storeSeconds]
                )
            }
            return expiry
        }
    }

    func hasReceiptEntry(transactionID: String) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM receipt WHERE transactionID = ?", arguments: [transactionID]) ?? false
        }
    }

    public func receipt(account: String) throws(StoreError) -> [ReceiptEntry] {
        try read { db in try Self.receipt(db, account: account) }
    }

    public func storedExpiry(account: String) throws(StoreError) -> Date? {
        try read { db in try Self.storedExpiry(db, account: account) }
    }

    /// Non-consumables on the account's receipt, in purchase order (A2, A5).
    func ownedProducts(account: String) throws(StoreError) -> [(productID: String, transactionID: String)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT productID, MIN(transactionID) AS transactionID FROM receipt
                    WHERE account = ? AND kind = ? GROUP BY productID ORDER BY MIN(rowid)
                    """,
                arguments: [account, ProductKind.nonConsumable.rawValue]
            ).map { ($0["productID"], $0["transactionID"]) }
        }
    }

    static func storedExpiry(_ db: Database, account: String) throws -> Date? {
        try Int64.fetchOne(db, sql: "SELECT expiry FROM subscription WHERE account = ?", arguments: [account])
            .map(Date.init(storeSeconds:))
    }

    static func receipt(_ db: Database, account: String) throws -> [ReceiptEntry] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM receipt WHERE account = ? ORDER BY purchaseDate, transactionID", arguments: [account]
        ).map(Self.entry)
    }

    static func insert(_ db: Database, _ entry: ReceiptEntry) throws {
        // Cached: ten years of weekly renewals are 522 inserts in one transaction.
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO receipt
                (transactionID, account, productID, kind, quantity, months, bonusDays, purchaseDate, device,
                 event, groupID, expiresDate, offer, price, reference, until, note)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                entry.transactionID, entry.account, entry.productID, entry.kind.rawValue, entry.quantity,
                entry.months, entry.bonusDays, entry.purchaseDate.storeSeconds, entry.device,
                entry.event.rawValue, entry.group, entry.expiresDate?.storeSeconds, entry.offer?.rawValue,
                entry.price.map(PriceFormatter.plain), entry.reference, entry.until?.storeSeconds, entry.note,
            ]
        )
    }

    static func entry(_ row: Row) -> ReceiptEntry {
        ReceiptEntry(
            transactionID: row["transactionID"], account: row["account"], productID: row["productID"],
            kind: ProductKind(rawValue: row["kind"]) ?? .nonConsumable, quantity: row["quantity"],
            months: row["months"], bonusDays: row["bonusDays"],
            purchaseDate: Date(storeSeconds: row["purchaseDate"]), device: row["device"],
            event: ReceiptEvent(rawValue: row["event"]) ?? .purchase, group: row["groupID"],
            expiresDate: (row["expiresDate"] as Int64?).map(Date.init(storeSeconds:)),
            offer: (row["offer"] as String?).flatMap(IntroductoryOffer.Mode.init(rawValue:)),
            price: (row["price"] as String?).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) },
            reference: row["reference"], until: (row["until"] as Int64?).map(Date.init(storeSeconds:)), note: row["note"]
        )
    }

    // MARK: Clock

    public func clockSetting() throws(StoreError) -> ClockSetting {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT setting FROM clock WHERE id = 1"),
                  let setting = try? JSONDecoder().decode(ClockSetting.self, from: Data(text.utf8))
            else { return ClockSetting.standard }
            return setting
        }
    }

    public func setClockSetting(_ setting: ClockSetting) throws(StoreError) {
        let text = String(decoding: (try? JSONEncoder().encode(setting)) ?? Data(), as: UTF8.self)
        try write { db in
            try db.execute(
                sql: "INSERT INTO clock(id, setting) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET setting = excluded.setting",
                arguments: [text]
            )
        }
    }
}

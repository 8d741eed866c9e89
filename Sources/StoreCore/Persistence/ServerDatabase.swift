// The embedded account server (A2): accounts, every account's receipt and stored expiry, and the
// clock that all devices of a state directory share, in a SQLite file; no server process.
import Foundation
import GRDB
import StoreModel

public final class ServerDatabase: RecordKeeping, SQLiteBacked, Sendable {
    public var keeper: RecordKeeper { .here(self) }
    let file: SQLiteFile
    /// The clock setting as last read, and when: every store time reads it (Q5), so it is read
    /// again only after something was committed.
    let clockCache = Locked<(ChangeStamp, ClockSetting)?>(nil)

    public var location: String { path }

    public func changeStampWithoutWaiting() -> ChangeStamp? { file.stamps.readQuickly() }

    public init(url: URL) throws(StoreError) {
        file = try SQLiteFile(url: url, migrator: Self.migrator)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
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
            try db.execute(
                sql: """
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
        registerChangeCounts(&migrator)
        registerClaimSpellings(&migrator)
        registerSessionExpiry(&migrator)
        registerDeviceTokens(&migrator)
        migrator.registerMigration("v16: storefronts") { db in
            try db.execute(sql: "ALTER TABLE receipt ADD COLUMN storefront TEXT")
        }
        registerAppTransactionIDs(&migrator)
        return migrator
    }
}

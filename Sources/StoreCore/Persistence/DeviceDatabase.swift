// One device's state (A3): who is signed in, each profile's owned comics, random views, last
// known expiry and last random comic, and the payment queue's transactions with their events.
// A profile is one account on this device ("" for a guest), so that signing in as someone else
// never shows the previous person's store (A7).
import Foundation
import GRDB
import StoreModel

public final class DeviceDatabase: SQLiteBacked, Sendable {
    let file: SQLiteFile

    public init(url: URL) throws(StoreError) {
        file = try SQLiteFile(url: url, migrator: Self.migrator)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE profile (
                        user TEXT PRIMARY KEY,
                        randomViews INTEGER NOT NULL DEFAULT 0 CHECK (randomViews >= 0),
                        expiry INTEGER,
                        lastRandom TEXT
                    );
                    CREATE TABLE owned (
                        user TEXT NOT NULL,
                        productID TEXT NOT NULL,
                        transactionID TEXT NOT NULL,
                        PRIMARY KEY (user, productID)
                    );
                    CREATE TABLE txn (
                        id TEXT PRIMARY KEY,
                        user TEXT NOT NULL,
                        productID TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        quantity INTEGER NOT NULL,
                        months INTEGER NOT NULL,
                        bonusDays INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        reason TEXT,
                        createdAt INTEGER NOT NULL,
                        purchaseDate INTEGER,
                        dueAt INTEGER,
                        dueApproves INTEGER,
                        finished INTEGER NOT NULL DEFAULT 0,
                        originalID TEXT
                    );
                    CREATE INDEX txnByUser ON txn(user);
                    CREATE INDEX txnUnfinished ON txn(finished, state);
                    CREATE TABLE event (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        transactionID TEXT NOT NULL,
                        state TEXT NOT NULL,
                        reason TEXT,
                        at INTEGER NOT NULL
                    );
                    CREATE INDEX eventByTransaction ON event(transactionID, sequence);
                    """)
        }
        migrator.registerMigration("v2: index open transactions") { db in
            // recover() and the in-flight rows look for the few transactions still open; without
            // this they scanned the whole history, so start-up grew with it.
            try db.execute(sql: "CREATE INDEX txnByState ON txn(state, user)")
        }
        migrator.registerMigration("v3: durations in days") { db in
            try db.execute(sql: "ALTER TABLE txn ADD COLUMN days INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v4: unverified transactions") { db in
            try db.execute(sql: "ALTER TABLE txn ADD COLUMN verificationError TEXT")
        }
        migrator.registerMigration("v5: offers") { db in
            // The offer a purchase was made with (O2–O4), carried until the payment is recorded.
            try db.execute(sql: "ALTER TABLE txn ADD COLUMN offerType INTEGER; ALTER TABLE txn ADD COLUMN offerID TEXT")
        }
        migrator.registerMigration("v6: app account tokens") { db in
            try db.execute(sql: "ALTER TABLE txn ADD COLUMN appAccountToken TEXT")
        }
        migrator.registerMigration("v7: arrivals") { db in
            try db.execute(sql: "ALTER TABLE txn ADD COLUMN arrival TEXT")
        }
        migrator.registerMigration("v8: billing plans") { db in
            // The billing plan a purchase was made on (a monthly commitment), carried until the
            // payment is recorded.
            try db.execute(sql: "ALTER TABLE txn ADD COLUMN billingPlan TEXT")
        }
        migrator.registerMigration("v9: introductory offer eligibility") { db in
            // The developer's signed word on the introductory offer, carried until the payment is
            // recorded: 1 give it, 0 withhold it, NULL the App Store's rule.
            try db.execute(sql: "ALTER TABLE txn ADD COLUMN introductoryOffer INTEGER")
        }
        migrator.registerMigration("v10: storefronts") { db in
            // F3: the account's storefront when the payment was added, and the app's choice if
            // it changes before the payment settles.
            try db.execute(
                sql: "ALTER TABLE txn ADD COLUMN storefront TEXT; ALTER TABLE txn ADD COLUMN onStorefrontChange TEXT")
        }
        return migrator
    }

    // MARK: Meta: the device's settings (DeviceSettings.swift), each read as its type

    /// The setting as stored, nil when it was never set; a value of another type is a corrupt
    /// database, named with the table, column and value (P2).
    func setting<Value>(_ key: DeviceSetting<Value>) throws(StoreError) -> Value? {
        guard let text = try read({ db in try MetaRecord.fetchOne(db, where: "key", is: key.name)?.value }) else {
            return nil
        }
        guard let value = key.decode(text) else {
            throw StoreError.corruptDatabase(
                path: path,
                reason: CorruptValue(table: "meta", column: "value", value: text).description + " (\(key.meaning))")
        }
        return value
    }

    func setSetting<Value>(_ key: DeviceSetting<Value>, _ value: Value?) throws(StoreError) {
        try write { db in
            if let value {
                try MetaRecord(key: key.name, value: key.encode(value)).upsert(db)
            } else {
                _ = try MetaRecord.deleteOne(db, key: key.name)
            }
        }
    }

    /// The device's outcome policy, if one was set.
    func policy() throws(StoreError) -> PurchaseOutcome? { try setting(.policy) }

    // MARK: Profiles

    struct Profile: Equatable {
        var randomViews = 0
        var expiry: Date?
        var lastRandom: String?
        var owned: [String] = []
    }

    func profile(_ user: String) throws(StoreError) -> Profile {
        try read { db in
            var profile = Profile()
            if let record = try ProfileRecord.fetchOne(db, where: "user", is: user) {
                profile.randomViews = record.randomViews
                profile.expiry = record.expiry
                profile.lastRandom = record.lastRandom
            }
            profile.owned = try OwnedRecord.fetchAll(db, where: "user", is: user).map(\.productID)
            return profile
        }
    }

    static func ensureProfile(_ db: Database, user: String) throws -> ProfileRecord {
        if let existing = try ProfileRecord.fetchOne(db, where: "user", is: user) { return existing }
        let profile = ProfileRecord(user: user)
        try profile.insert(db)
        return profile
    }

    /// Takes the later of the device's and the given expiry (A4, A5). Returns the result.
    @discardableResult
    func raiseExpiry(user: String, to expiry: Date?) throws(StoreError) -> Date? {
        try write { db in try Self.raiseExpiry(db, user: user, to: expiry) }
    }

    static func raiseExpiry(_ db: Database, user: String, to expiry: Date?) throws -> Date? {
        var profile = try ensureProfile(db, user: user)
        try raiseExpiry(db, of: &profile, to: expiry)
        return profile.expiry
    }

    private static func raiseExpiry(_ db: Database, of profile: inout ProfileRecord, to expiry: Date?) throws {
        guard let expiry, profile.expiry.map({ expiry > $0 }) ?? true else { return }
        profile.expiry = expiry.wholeSeconds
        try profile.update(db, columns: [ProfileRecord.Columns.expiry])
    }

    /// Delivers a purchased or restored transaction's content and finishes it, in one device
    /// transaction, so content is given exactly once however often this runs (Q3). `serverExpiry`
    /// is the account's stored expiry, for a non-renewing subscription (A4).
    func deliver(_ id: String, serverExpiry: Date?) throws(StoreError) {
        try write { db in
            guard var record = try TransactionRecord.fetchOne(db, where: "id", is: id), !record.transaction.isFinished,
                record.transaction.state.deliversContent
            else { return }
            let transaction = record.transaction
            let user = transaction.user ?? ""
            var profile = try Self.ensureProfile(db, user: user)
            switch transaction.kind {
            case .nonConsumable:
                try OwnedRecord(
                    user: user, productID: transaction.productID,
                    transactionID: transaction.originalID ?? transaction.id
                )
                .insert(db, onConflict: .ignore)
            case .consumable:
                if transaction.state == .purchased {
                    profile.randomViews += transaction.quantity
                    try profile.update(db, columns: [ProfileRecord.Columns.randomViews])
                }
            case .nonRenewingSubscription:
                try Self.raiseExpiry(db, of: &profile, to: serverExpiry)
            case .autoRenewableSubscription:
                // The plan lives on the account server; the device reads it from there.
                break
            }
            record.transaction.isFinished = true
            try record.update(db, columns: [TransactionRecord.Columns.finished])
        }
    }

    /// O7: a refunded comic leaves `user`'s owned set on this device; a reversed refund brings it
    /// back (as the purchase `transactionID`).
    func setOwned(_ productID: String, user: String, transactionID: String, owned: Bool) throws(StoreError) {
        try write { db in
            if owned {
                try OwnedRecord(user: user, productID: productID, transactionID: transactionID).insert(
                    db, onConflict: .ignore)
            } else {
                _ = try OwnedRecord.filter(Column("user") == user && Column("productID") == productID).deleteAll(db)
            }
        }
    }

    /// Shows one random comic to `user` (R7): free while subscribed at `now`, else it uses one
    /// view. Never the last one shown again when `pool` has two or more. Throws `noRandomViews`
    /// when none are left, changing nothing.
    func showRandom(
        user: String, now: Date, pool: [RandomComic], packID: String?, choose: (Int) -> Int
    ) throws(StoreError) -> RandomComic {
        try write { db in
            var profile = try Self.ensureProfile(db, user: user)
            if !SubscriptionMath.isActive(expiry: profile.expiry, now: now) {
                guard profile.randomViews > 0 else { throw StoreError.noRandomViews(packID: packID) }
                profile.randomViews -= 1
            }
            let candidates = pool.count >= 2 ? pool.filter { $0.id != profile.lastRandom } : pool
            let comic = candidates[choose(candidates.count)]
            profile.lastRandom = comic.id
            try profile.update(db, columns: [ProfileRecord.Columns.randomViews, ProfileRecord.Columns.lastRandom])
            return comic
        }
    }
}

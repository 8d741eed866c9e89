// One device's state (A3): who is signed in, each profile's owned comics, random views, last
// known expiry and last random comic, and the payment queue's transactions with their events.
// A profile is one account on this device ("" for a guest), so that signing in as someone else
// never shows the previous person's store (A7).
import Foundation
import GRDB

public final class DeviceDatabase: SQLiteBacked, Sendable {
    let file: SQLiteFile

    public init(url: URL) throws(StoreError) {
        file = try SQLiteFile(url: url, migrator: Self.migrator)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
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
        return migrator
    }


    // MARK: Meta

    func meta(_ key: String) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    func setMeta(_ key: String, _ value: String?) throws(StoreError) {
        try write { db in
            if let value {
                try db.execute(
                    sql: "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key, value]
                )
            } else {
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
            }
        }
    }

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
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM profile WHERE user = ?", arguments: [user]) {
                profile.randomViews = row["randomViews"]
                profile.expiry = (row["expiry"] as Int64?).map(Date.init(storeSeconds:))
                profile.lastRandom = row["lastRandom"]
            }
            profile.owned = try String.fetchAll(
                db, sql: "SELECT productID FROM owned WHERE user = ? ORDER BY rowid", arguments: [user]
            )
            return profile
        }
    }

    static func ensureProfile(_ db: Database, user: String) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO profile(user) VALUES (?)", arguments: [user])
    }

    /// Takes the later of the device's and the given expiry (A4, A5). Returns the result.
    @discardableResult
    func raiseExpiry(user: String, to expiry: Date?) throws(StoreError) -> Date? {
        try write { db in try Self.raiseExpiry(db, user: user, to: expiry) }
    }

    static func raiseExpiry(_ db: Database, user: String, to expiry: Date?) throws -> Date? {
        try ensureProfile(db, user: user)
        if let expiry {
            try db.execute(
                sql: "UPDATE profile SET expiry = MAX(COALESCE(expiry, ?), ?) WHERE user = ?",
                arguments: [expiry.storeSeconds, expiry.storeSeconds, user]
            )
        }
        return try Int64.fetchOne(db, sql: "SELECT expiry FROM profile WHERE user = ?", arguments: [user])
            .map(Date.init(storeSeconds:))
    }

    // MARK: Transactions

    static func transaction(_ db: Database, id: String) throws -> StoreTransaction? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM txn WHERE id = ?", arguments: [id]) else { return nil }
        return try makeTransaction(db, row)
    }

    func transaction(id: String) throws(StoreError) -> StoreTransaction? {
        try read { db in try Self.transaction(db, id: id) }
    }

    /// Ids that start with `prefix` (so that people can type the first few characters).
    func transactionIDs(matching prefix: String) throws(StoreError) -> [String] {
        try read { db in
            let escaped = prefix.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            return try String.fetchAll(
                db, sql: "SELECT id FROM txn WHERE id LIKE ? ESCAPE '\\' ORDER BY rowid LIMIT 10",
                arguments: [escaped + "%"]
            )
        }
    }

    func transactions(user: String) throws(StoreError) -> [StoreTransaction] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM txn WHERE user = ? ORDER BY rowid", arguments: [user])
                .map { try Self.makeTransaction(db, $0) }
        }
    }

    func transactions(where condition: String, _ arguments: StatementArguments = []) throws(StoreError) -> [StoreTransaction] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM txn WHERE \(condition) ORDER BY rowid", arguments: arguments)
                .map { try Self.makeTransaction(db, $0) }
        }
    }

    static func insert(_ db: Database, _ transaction: StoreTransaction) throws {
        try db.execute(
            sql: """
                INSERT INTO txn (id, user, productID, kind, quantity, months, bonusDays, state, reason, createdAt,
                                 purchaseDate, dueAt, dueApproves, finished, originalID)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                transaction.id, transaction.user ?? "", transaction.productID, transaction.kind.rawValue,
                transaction.quantity, transaction.months, transaction.bonusDays, transaction.state.rawValue,
                transaction.reason?.rawValue, transaction.createdAt.storeSeconds,
                transaction.purchaseDate?.storeSeconds, transaction.dueAt?.storeSeconds,
                transaction.dueApproves, transaction.isFinished, transaction.originalID,
            ]
        )
        try appendEvent(db, id: transaction.id, state: transaction.state, reason: transaction.reason, at: transaction.createdAt)
    }

    /// Moves a transaction to `state` and logs the event, in the caller's transaction.
    static func setState(
        _ db: Database, id: String, state: TransactionState, reason: FailureReason?, at: Date,
        purchaseDate: Date? = nil, finished: Bool? = nil
    ) throws {
        try db.execute(
            sql: """
                UPDATE txn SET state = ?, reason = ?, purchaseDate = COALESCE(?, purchaseDate),
                               finished = COALESCE(?, finished), dueAt = NULL, dueApproves = NULL
                WHERE id = ?
                """,
            arguments: [state.rawValue, reason?.rawValue, purchaseDate?.storeSeconds, finished, id]
        )
        try appendEvent(db, id: id, state: state, reason: reason, at: at)
    }

    static func appendEvent(_ db: Database, id: String, state: TransactionState, reason: FailureReason?, at: Date) throws {
        try db.execute(
            sql: "INSERT INTO event(transactionID, state, reason, at) VALUES (?, ?, ?, ?)",
            arguments: [id, state.rawValue, reason?.rawValue, at.storeSeconds]
        )
    }

    /// Events after `sequence`, oldest first: how a screen follows changes made by other processes.
    public func events(after sequence: Int64, limit: Int = 1000) throws(StoreError) -> [TransactionEvent] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT event.*, txn.productID FROM event JOIN txn ON txn.id = event.transactionID
                    WHERE sequence > ? ORDER BY sequence LIMIT ?
                    """,
                arguments: [sequence, limit]
            ).map(Self.makeEvent)
        }
    }

    /// The last `limit` events, oldest first: what a screen shows of the past when it opens.
    public func recentEvents(limit: Int) throws(StoreError) -> [TransactionEvent] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT event.*, txn.productID FROM event JOIN txn ON txn.id = event.transactionID
                    ORDER BY sequence DESC LIMIT ?
                    """,
                arguments: [limit]
            ).map(Self.makeEvent).reversed()
        }
    }

    static func makeEvent(_ row: Row) -> TransactionEvent {
        TransactionEvent(
            sequence: row["sequence"], transactionID: row["transactionID"], productID: row["productID"],
            state: TransactionState(rawValue: row["state"]) ?? .failed,
            reason: (row["reason"] as String?).flatMap(FailureReason.init(rawValue:)),
            at: Date(storeSeconds: row["at"])
        )
    }

    static func makeTransaction(_ db: Database, _ row: Row) throws -> StoreTransaction {
        let id: String = row["id"]
        let steps = try Row.fetchAll(
            db, sql: "SELECT state, reason, at FROM event WHERE transactionID = ? ORDER BY sequence", arguments: [id]
        ).map { step in
            TransactionStep(
                state: TransactionState(rawValue: step["state"]) ?? .failed,
                reason: (step["reason"] as String?).flatMap(FailureReason.init(rawValue:)),
                at: Date(storeSeconds: step["at"])
            )
        }
        let user: String = row["user"]
        return StoreTransaction(
            id: id, user: user.isEmpty ? nil : user, productID: row["productID"],
            kind: ProductKind(rawValue: row["kind"]) ?? .nonConsumable, quantity: row["quantity"],
            months: row["months"], bonusDays: row["bonusDays"],
            state: TransactionState(rawValue: row["state"]) ?? .failed,
            reason: (row["reason"] as String?).flatMap(FailureReason.init(rawValue:)),
            createdAt: Date(storeSeconds: row["createdAt"]),
            purchaseDate: (row["purchaseDate"] as Int64?).map(Date.init(storeSeconds:)),
            dueAt: (row["dueAt"] as Int64?).map(Date.init(storeSeconds:)),
            dueApproves: row["dueApproves"], isFinished: row["finished"], originalID: row["originalID"],
            steps: steps
        )
    }
}

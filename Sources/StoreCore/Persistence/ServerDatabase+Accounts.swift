// Accounts and device sessions on the embedded account server (A1, W2): passwords kept as slow
// hashes; a session token per device and account, kept only as its SHA-256, revocable.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: AccountDirectory, SessionKeeping {
    static func registerSessions(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7: device sessions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE session (
                        tokenHash TEXT PRIMARY KEY,
                        account TEXT NOT NULL COLLATE NOCASE REFERENCES account(name),
                        device TEXT NOT NULL,
                        createdAt INTEGER NOT NULL,
                        revokedAt INTEGER
                    );
                    CREATE INDEX sessionByAccount ON session(account);
                    """)
        }
    }

    static func registerSessionExpiry(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v14: sessions expire") { db in
            // Sessions made before expire after the default lifetime from now: none lives forever.
            try db.execute(sql: "ALTER TABLE session ADD COLUMN expiresAt INTEGER")
            try db.execute(
                sql: "UPDATE session SET expiresAt = CAST(strftime('%s', 'now') AS INTEGER) + ?",
                arguments: [Int64(DeviceSessionInfo.defaultLifetime)])
        }
    }

    static func registerDeviceTokens(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v15: device tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE deviceToken (
                        tokenHash TEXT PRIMARY KEY,
                        account TEXT NOT NULL COLLATE NOCASE REFERENCES account(name),
                        device TEXT NOT NULL,
                        createdAt INTEGER NOT NULL,
                        expiresAt INTEGER NOT NULL,
                        revokedAt INTEGER
                    );
                    CREATE INDEX deviceTokenByAccount ON deviceToken(account, device);
                    """)
        }
    }

    static func registerAppTransactionIDs(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v17: app transaction ids") { db in
            // W18: each account keeps the id it was minted. Accounts made before keep the one
            // their name gave them, since it was signed already.
            try db.execute(sql: "ALTER TABLE account ADD COLUMN appTransactionID TEXT")
            for name in try String.fetchAll(db, sql: "SELECT name FROM account") {
                try db.execute(
                    sql: "UPDATE account SET appTransactionID = ? WHERE name = ?",
                    arguments: [SignedUnits.legacyAppTransactionID(name), name])
            }
            try db.execute(sql: "CREATE UNIQUE INDEX accountByAppTransaction ON account(appTransactionID)")
        }
    }

    public func account(appTransactionID: String) throws(StoreError) -> String? {
        try read { db in
            try String.fetchOne(
                db, sql: "SELECT name FROM account WHERE appTransactionID = ?", arguments: [appTransactionID])
        }
    }

    public func appTransactionID(account: String) throws(StoreError) -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT appTransactionID FROM account WHERE name = ?", arguments: [account])
        }
    }

    public func passwordHash(account: String) throws(StoreError) -> (name: String, hash: String)? {
        try read { db in try AccountRecord.fetchOne(db, where: "name", is: account).map { ($0.name, $0.passwordHash) } }
    }

    public func signUp(name: String, password: String, hasher: PasswordHasher, device: String, at date: Date)
        throws(StoreError) -> AccountSession
    {
        let hash: String
        do {
            hash = try hasher.hash(password)
        } catch {
            throw StoreError.storage(path: path, reason: "cannot hash the password (\(error))")
        }
        // W18: a fresh app transaction id; another account's (one in 10^15 per account) is drawn again.
        let created = try write { db in
            while try !AccountRecord.exists(db, key: name) {
                try AccountRecord(
                    name: name, passwordHash: hash, createdAt: date.storeSeconds,
                    appTransactionID: SignedUnits.mintAppTransactionID()
                ).insert(db, onConflict: .ignore)
                if db.changesCount == 1 { return true }
            }
            return false
        }
        guard created else { throw StoreError.accountExists(name) }
        return AccountSession(account: name)
    }

    public func signIn(
        name: String, password: String, hasher: PasswordHasher, device: String, deviceToken _: String?
    ) throws(StoreError)
        -> AccountSession
    {
        guard let account = try passwordHash(account: name) else { throw StoreError.unknownAccount(name) }
        guard hasher.verify(password, against: account.hash) else { throw StoreError.wrongPassword(name) }
        return AccountSession(account: account.name)
    }

    public func hasAccount(_ name: String) throws(StoreError) -> Bool { try passwordHash(account: name) != nil }

    // MARK: Sessions for devices over the network (W2), kept by `storefront serve`

    /// A new session for `device` acting for `account`: the token, handed out once.
    public func createSession(account: String, device: String, at date: Date, expiresAt: Date) throws(StoreError)
        -> String
    {
        try insertToken(into: "session", account: account, device: device, at: date, expiresAt: expiresAt)
    }

    /// A new token of `account`'s device in `table` (a session or a device token): the token,
    /// kept only as its SHA-256.
    private func insertToken(into table: String, account: String, device: String, at date: Date, expiresAt: Date)
        throws(StoreError) -> String
    {
        let token = SessionToken.make()
        try write { db in
            try db.execute(
                sql: "INSERT INTO \(table) (tokenHash, account, device, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    SessionToken.hash(token), account, String(device.prefix(64)), date.storeSeconds,
                    expiresAt.storeSeconds,
                ]
            )
        }
        return token
    }

    /// The account a token acts for, nil when it is unknown, revoked or expired.
    public func sessionAccount(token: String, at realNow: Date) throws(StoreError) -> String? {
        try read { db in
            try String.fetchOne(
                db,
                sql:
                    "SELECT account FROM session WHERE tokenHash = ? AND revokedAt IS NULL AND (expiresAt IS NULL OR expiresAt > ?)",
                arguments: [SessionToken.hash(token), realNow.storeSeconds])
        }
    }

    public func deviceSessions(account: String) throws(StoreError) -> [DeviceSessionInfo] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM session WHERE account = ? ORDER BY createdAt, rowid", arguments: [account]
            ).map { row in
                DeviceSessionInfo(
                    id: String((row["tokenHash"] as String? ?? "").prefix(DeviceSessionInfo.idLength)),
                    device: row["device"] ?? "",
                    createdAt: Date(timeIntervalSince1970: Double(row["createdAt"] as Int64? ?? 0)),
                    revokedAt: (row["revokedAt"] as Int64?).map { Date(timeIntervalSince1970: Double($0)) },
                    expiresAt: (row["expiresAt"] as Int64?).map { Date(timeIntervalSince1970: Double($0)) }
                )
            }
        }
    }

    public func revokeDeviceSession(account: String, id: String, at date: Date) throws(StoreError) -> Bool {
        guard id.count == DeviceSessionInfo.idLength, id.allSatisfy(\.isHexDigit) else { return false }
        return try write { db in
            // W17: the device's tokens go with its session.
            try db.execute(
                sql: """
                    UPDATE deviceToken SET revokedAt = ? WHERE account = ? AND revokedAt IS NULL AND device IN
                    (SELECT device FROM session WHERE account = ? AND tokenHash LIKE ? AND revokedAt IS NULL)
                    """,
                arguments: [date.storeSeconds, account, account, id.lowercased() + "%"])
            try db.execute(
                sql: "UPDATE session SET revokedAt = ? WHERE account = ? AND tokenHash LIKE ? AND revokedAt IS NULL",
                arguments: [date.storeSeconds, account, id.lowercased() + "%"]
            )
            return db.changesCount > 0
        }
    }

    public func createDeviceToken(account: String, device: String, at date: Date, expiresAt: Date) throws(StoreError)
        -> String
    {
        try insertToken(into: "deviceToken", account: account, device: device, at: date, expiresAt: expiresAt)
    }

    public func deviceTokenID(token: String, account: String, device: String, at realNow: Date) throws(StoreError)
        -> String?
    {
        try read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT tokenHash FROM deviceToken WHERE tokenHash = ? AND account = ? AND device = ?
                    AND revokedAt IS NULL AND expiresAt > ?
                    """,
                arguments: [SessionToken.hash(token), account, String(device.prefix(64)), realNow.storeSeconds])
        }.map { String($0.prefix(DeviceSessionInfo.idLength)) }
    }

    /// Revokes a token (signing out, or `storefront account sessions revoke`).
    public func revokeSession(token: String, at date: Date) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: "UPDATE session SET revokedAt = ? WHERE tokenHash = ? AND revokedAt IS NULL",
                arguments: [date.storeSeconds, SessionToken.hash(token)])
        }
    }
}

// Accounts and device sessions (A1, W2) in PostgreSQL: passwords as scrypt hashes, sessions as
// token hashes.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: AccountDirectory, SessionKeeping {
    public func signUp(name: String, password: String, hasher: PasswordHasher, device: String, at date: Date)
        throws(StoreError) -> AccountSession
    {
        let hash: String
        do { hash = try hasher.hash(password) } catch {
            throw StoreError.storage(path: location, reason: "cannot hash the password (\(error))")
        }
        // W18: a fresh app transaction id; another account's (one in 10^15 per account) is drawn again.
        let created = try transaction { connection in
            while try query(connection, "SELECT 1 FROM account WHERE nameKey = \(Self.key(name))").isEmpty {
                let inserted = try !query(
                    connection,
                    """
                    INSERT INTO account (name, nameKey, passwordHash, createdAt, appTransactionID)
                    VALUES (\(name), \(Self.key(name)), \(hash), \(Self.seconds(date)), \(SignedUnits.mintAppTransactionID()))
                    ON CONFLICT DO NOTHING
                    RETURNING name
                    """
                ).isEmpty
                if inserted { return true }
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
        let found = try read { connection in
            try query(connection, "SELECT name, passwordHash FROM account WHERE nameKey = \(Self.key(name))").first.map
            {
                (Self.string($0, "name") ?? name, Self.string($0, "passwordhash") ?? "")
            }
        }
        guard let (canonical, hash) = found else { throw StoreError.unknownAccount(name) }
        guard hasher.verify(password, against: hash) else { throw StoreError.wrongPassword(name) }
        return AccountSession(account: canonical)
    }

    public func hasAccount(_ name: String) throws(StoreError) -> Bool {
        try read { connection in
            try !query(connection, "SELECT 1 FROM account WHERE nameKey = \(Self.key(name))").isEmpty
        }
    }

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
        try transaction { connection in
            try query(
                connection,
                """
                INSERT INTO \(unescaped: table) (tokenHash, account, device, createdAt, expiresAt)
                VALUES (\(SessionToken.hash(token)), (SELECT name FROM account
                WHERE nameKey = \(Self.key(account))), \(String(device.prefix(64))), \(Self.seconds(date)),
                \(Self.seconds(expiresAt)))
                """
            )
        }
        return token
    }

    public func sessionAccount(token: String, at realNow: Date) throws(StoreError) -> String? {
        try read { connection in
            try query(
                connection,
                """
                SELECT account FROM session WHERE tokenHash = \(SessionToken.hash(token)) AND revokedAt IS NULL
                AND (expiresAt IS NULL OR expiresAt > \(Self.seconds(realNow)))
                """
            )
            .first.flatMap { Self.string($0, "account") }
        }
    }

    public func account(appTransactionID: String) throws(StoreError) -> String? {
        try read { connection in
            try query(connection, "SELECT name FROM account WHERE appTransactionID = \(appTransactionID)").first
                .flatMap { Self.string($0, "name") }
        }
    }

    public func appTransactionID(account: String) throws(StoreError) -> String? {
        try read { connection in
            try query(connection, "SELECT appTransactionID FROM account WHERE nameKey = \(Self.key(account))").first
                .flatMap { Self.string($0, "apptransactionid") }
        }
    }

    public func deviceSessions(account: String) throws(StoreError) -> [DeviceSessionInfo] {
        try read { connection in
            try query(
                connection,
                """
                SELECT tokenHash, device, createdAt, revokedAt, expiresAt FROM session
                WHERE account = (SELECT name FROM account WHERE nameKey = \(Self.key(account))) ORDER BY createdAt
                """
            ).map { row in
                DeviceSessionInfo(
                    id: String((Self.string(row, "tokenhash") ?? "").prefix(DeviceSessionInfo.idLength)),
                    device: Self.string(row, "device") ?? "",
                    createdAt: Self.date(row, "createdat") ?? Date(timeIntervalSince1970: 0),
                    revokedAt: Self.date(row, "revokedat"), expiresAt: Self.date(row, "expiresat")
                )
            }
        }
    }

    public func revokeDeviceSession(account: String, id: String, at date: Date) throws(StoreError) -> Bool {
        guard id.count == DeviceSessionInfo.idLength, id.allSatisfy(\.isHexDigit) else { return false }
        return try transaction { connection in
            // W17: the device's tokens go with its session.
            try query(
                connection,
                """
                UPDATE deviceToken SET revokedAt = \(Self.seconds(date))
                WHERE account = (SELECT name FROM account WHERE nameKey = \(Self.key(account))) AND revokedAt IS NULL
                AND device IN (SELECT device FROM session WHERE account = (SELECT name FROM account
                WHERE nameKey = \(Self.key(account))) AND tokenHash LIKE \(id.lowercased() + "%") AND revokedAt IS NULL)
                """
            )
            return try !query(
                connection,
                """
                UPDATE session SET revokedAt = \(Self.seconds(date)) WHERE account = (SELECT name FROM account WHERE nameKey = \(Self.key(account)))
                AND tokenHash LIKE \(id.lowercased() + "%") AND revokedAt IS NULL RETURNING tokenHash
                """
            ).isEmpty
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
        try read { connection in
            try query(
                connection,
                """
                SELECT tokenHash FROM deviceToken WHERE tokenHash = \(SessionToken.hash(token))
                AND account = (SELECT name FROM account WHERE nameKey = \(Self.key(account)))
                AND device = \(String(device.prefix(64))) AND revokedAt IS NULL
                AND expiresAt > \(Self.seconds(realNow))
                """
            )
            .first.flatMap { Self.string($0, "tokenhash") }.map { String($0.prefix(DeviceSessionInfo.idLength)) }
        }
    }

    public func revokeSession(token: String, at date: Date) throws(StoreError) {
        try transaction { connection in
            try query(
                connection,
                """
                UPDATE session SET revokedAt = \(Self.seconds(date))
                WHERE tokenHash = \(SessionToken.hash(token)) AND revokedAt IS NULL
                """
            )
        }
    }
}

// Accounts and device sessions (A1, W2) in PostgreSQL: passwords as scrypt hashes, sessions as
// token hashes.
import Foundation
import PostgresNIO
import StoreCore

extension PostgresAccountServer: AccountDirectory, SessionKeeping {
    public func signUp(name: String, password: String, hasher: PasswordHasher, device: String, at date: Date) throws(StoreError) -> AccountSession {
        let hash: String
        do { hash = try hasher.hash(password) } catch { throw StoreError.storage(path: location, reason: "cannot hash the password (\(error))") }
        let created = try transaction { connection in
            try !query(
                connection, "INSERT INTO account (name, nameKey, passwordHash, createdAt) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING name",
                [Self.text(name), Self.key(name), Self.text(hash), Self.seconds(date)]
            ).isEmpty
        }
        guard created else { throw StoreError.accountExists(name) }
        return AccountSession(account: name)
    }

    public func signIn(name: String, password: String, hasher: PasswordHasher, device: String) throws(StoreError) -> AccountSession {
        let found = try read { connection in
            try query(connection, "SELECT name, passwordHash FROM account WHERE nameKey = $1", [Self.key(name)]).first.map {
                (Self.cell($0, "name").string ?? name, Self.cell($0, "passwordhash").string ?? "")
            }
        }
        guard let (canonical, hash) = found else { throw StoreError.unknownAccount(name) }
        guard hasher.verify(password, against: hash) else { throw StoreError.wrongPassword(name) }
        return AccountSession(account: canonical)
    }

    public func signOut(_ session: AccountSession) throws(StoreError) {}

    public func resume(_ session: AccountSession) {}

    public func createSession(account: String, device: String, at date: Date) throws(StoreError) -> String {
        let token = SessionToken.make()
        try transaction { connection in
            try query(
                connection, "INSERT INTO session (tokenHash, account, device, createdAt) VALUES ($1, (SELECT name FROM account WHERE nameKey = $2), $3, $4)",
                [Self.text(SessionToken.hash(token)), Self.key(account), Self.text(String(device.prefix(64))), Self.seconds(date)]
            )
        }
        return token
    }

    public func sessionAccount(token: String) throws(StoreError) -> String? {
        try read { connection in
            try query(connection, "SELECT account FROM session WHERE tokenHash = $1 AND revokedAt IS NULL", [Self.text(SessionToken.hash(token))])
                .first.map { Self.cell($0, "account") }?.string
        }
    }

    public func account(appTransactionID: String) throws(StoreError) -> String? {
        // The id is a hash of the name: each name is hashed again, only when no transaction has the id.
        try read { connection in try query(connection, "SELECT name FROM account").compactMap { Self.cell($0, "name").string } }
            .first { SignedData.appTransactionID($0) == appTransactionID }
    }

    public func deviceSessions(account: String) throws(StoreError) -> [DeviceSessionInfo] {
        try read { connection in
            try query(
                connection, "SELECT tokenHash, device, createdAt, revokedAt FROM session WHERE account = (SELECT name FROM account WHERE nameKey = $1) ORDER BY createdAt",
                [Self.key(account)]
            ).map { row in
                DeviceSessionInfo(
                    id: String((Self.cell(row, "tokenhash").string ?? "").prefix(DeviceSessionInfo.idLength)), device: Self.cell(row, "device").string ?? "",
                    createdAt: Date(timeIntervalSince1970: Self.cell(row, "createdat").double ?? 0),
                    revokedAt: Self.cell(row, "revokedat").double.map { Date(timeIntervalSince1970: $0) }
                )
            }
        }
    }

    public func revokeDeviceSession(account: String, id: String, at date: Date) throws(StoreError) -> Bool {
        guard id.count == DeviceSessionInfo.idLength, id.allSatisfy(\.isHexDigit) else { return false }
        return try transaction { connection in
            try !query(
                connection, """
                    UPDATE session SET revokedAt = $1 WHERE account = (SELECT name FROM account WHERE nameKey = $2)
                    AND tokenHash LIKE $3 AND revokedAt IS NULL RETURNING tokenHash
                    """,
                [Self.seconds(date), Self.key(account), Self.text(id.lowercased() + "%")]
            ).isEmpty
        }
    }

    public func revokeSession(token: String, at date: Date) throws(StoreError) {
        try transaction { connection in
            try query(
                connection, "UPDATE session SET revokedAt = $1 WHERE tokenHash = $2 AND revokedAt IS NULL",
                [Self.seconds(date), Self.text(SessionToken.hash(token))]
            )
        }
    }
}

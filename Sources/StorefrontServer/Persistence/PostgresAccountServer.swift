// The account server's state in PostgreSQL (W5): `storefront serve --database postgres://…`.
// The same records, constraints and transactions as the embedded SQLite server: a purchase and its
// stored expiry in one transaction, plan lines with the plans they lead to and the notifications
// they report in one; writes to one account serialized across every `serve` process on the
// database by a transaction-scoped advisory lock, so that several servers race safely.
// PostgresNIO is asynchronous and the AccountServer protocol is not: each call waits for its
// query on a connection of a small pool. `storefront serve` makes these calls only on its blocking
// pool, never on an event loop or a Swift task's thread; BlockingWatch checks that as it runs.
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import StoreCore

public final class PostgresAccountServer: AccountServer, @unchecked Sendable {
    public let location: String
    let configuration: PostgresConnection.Configuration
    let group = MultiThreadedEventLoopGroup.singleton
    let idle = Locked<[PostgresConnection]>([])
    let logger = Logger(label: "storefront-postgres")
    let nextID = Locked(0)

    /// `url`: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE. Connects and migrates.
    public init(url text: String) throws(StoreError) {
        guard let url = URL(string: text), ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? ""), let host = url.host,
              let user = url.user, !url.path.dropFirst().isEmpty
        else {
            throw StoreError.storage(path: text, reason: "--database takes postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        location = "postgres://\(user)@\(host):\(url.port ?? 5432)\(url.path)"
        configuration = PostgresConnection.Configuration(
            host: host, port: url.port ?? 5432, username: user, password: url.password, database: String(url.path.dropFirst()), tls: .disable
        )
        try migrate()
    }

    deinit {
        // Closed without waiting: the event loop finishes each close, and the connection lives
        // until it has.
        for connection in idle.withLock({ $0 }) {
            let closing: EventLoopFuture<Void> = connection.close()
            closing.whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    // MARK: Connections and transactions

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One query on `connection`, waited for: on the server's blocking pool, never on a Swift
    /// task's thread (BlockingWatch says so if it ever is).
    @discardableResult
    func query(_ connection: PostgresConnection, _ sql: String, _ binds: [PostgresData] = []) throws -> [PostgresRow] {
        BlockingWatch.check("PostgreSQL query \(location)")
        return try connection.query(sql, binds).wait().rows
    }

    func connection() throws -> PostgresConnection {
        if let kept = idle.withLock({ $0.popLast() }), !kept.isClosed { return kept }
        let id = nextID.withLock { value -> Int in
            value += 1
            return value
        }
        BlockingWatch.check("PostgreSQL connect \(location)")
        return try PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger).wait()
    }

    /// Runs `body` in a transaction on a connection of the pool, holding the account's advisory
    /// lock when one is named; serialization failures and deadlocks between servers are tried
    /// again. A plan body's own refusal comes out as it went in.
    func run<T>(lock account: String? = nil, transaction: Bool = true, _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let connection: PostgresConnection
            do {
                connection = try self.connection()
            } catch {
                throw StoreError.storage(path: location, reason: "cannot connect (\(Self.words(error)))")
            }
            do {
                if transaction { try query(connection, "BEGIN") }
                if let account { try query(connection, "SELECT pg_advisory_xact_lock(hashtext($1))", [PostgresData(string: account.lowercased())]) }
                let result = try body(connection)
                if transaction { try query(connection, "COMMIT") }
                idle.withLock { $0.append(connection) }
                return result
            } catch {
                if transaction { _ = try? query(connection, "ROLLBACK") }
                if !connection.isClosed { idle.withLock { $0.append(connection) } }
                if let refused = error as? Refused { throw refused.error }
                if error is StoreError { throw error }
                let code = (error as? PSQLError)?.serverInfo?[.sqlState]
                if attempt < 5, code == "40001" || code == "40P01" { continue }
                // A pooled connection the database closed (a restart): once more on a new one.
                // What the lost one did is idempotent (lines and notifications by their ids).
                if attempt < 2, connection.isClosed { continue }
                throw StoreError.storage(path: location, reason: Self.words(error))
            }
        }
    }

    func transaction<T>(lock account: String? = nil, _ body: (PostgresConnection) throws -> T) throws(StoreError) -> T {
        try storeErrors { try run(lock: account, body) }
    }

    /// The store's error as it is; any other named as this database's.
    func storeErrors<T>(_ work: () throws -> T) throws(StoreError) -> T {
        do {
            return try work()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(path: location, reason: Self.words(error))
        }
    }

    /// A plan body's refusal, carried through a transaction unchanged.
    struct Refused: Error {
        var error: any Error
    }

    /// A column of a row, by its (lowercase) name.
    static func cell(_ row: PostgresRow, _ column: String) -> PostgresData { row.makeRandomAccess()[data: column] }

    static func words(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            // The server's own words; else what failed beneath (a refused connection, a reset).
            if let message = error.serverInfo?[.message] { return message }
            if let failed = error.underlying as? NIOConnectionError {
                let reasons = failed.connectionErrors.map { failure in
                    (failure.error as? IOError).map { String(cString: strerror($0.errnoCode)).lowercased() } ?? "\(failure.error)"
                }
                return Set(reasons).sorted().joined(separator: "; ")
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// One statement, on its own (no BEGIN and COMMIT around it: a third of the round trips).
    /// Several statements that must see one moment use `transaction`.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws(StoreError) -> T {
        try storeErrors { try run(transaction: false, body) }
    }

    // MARK: Schema

    static let migrations: [(String, String)] = [
        ("v1", """
            CREATE TABLE account (
                name TEXT PRIMARY KEY,
                nameKey TEXT NOT NULL UNIQUE,
                passwordHash TEXT NOT NULL,
                createdAt DOUBLE PRECISION NOT NULL
            );
            CREATE TABLE receipt (
                transactionID TEXT PRIMARY KEY,
                sequence BIGSERIAL NOT NULL UNIQUE,
                accountKey TEXT NOT NULL,
                kind TEXT NOT NULL,
                purchaseDate DOUBLE PRECISION NOT NULL,
                extendsExpiry BOOLEAN NOT NULL,
                entry TEXT NOT NULL
            );
            CREATE INDEX receiptByAccount ON receipt (accountKey, purchaseDate, transactionID);
            CREATE TABLE subscription (accountKey TEXT PRIMARY KEY, expiry DOUBLE PRECISION NOT NULL);
            CREATE TABLE plan (
                accountKey TEXT NOT NULL,
                account TEXT NOT NULL,
                groupID TEXT NOT NULL,
                state TEXT NOT NULL,
                PRIMARY KEY (accountKey, groupID)
            );
            CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE notification (
                uuid TEXT PRIMARY KEY,
                sequence BIGSERIAL NOT NULL UNIQUE,
                eventKey TEXT NOT NULL UNIQUE,
                accountKey TEXT NOT NULL,
                state TEXT NOT NULL,
                nextAttemptAt DOUBLE PRECISION,
                value TEXT NOT NULL
            );
            CREATE TABLE request (sequence BIGSERIAL PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE session (
                tokenHash TEXT PRIMARY KEY,
                account TEXT NOT NULL REFERENCES account (name),
                device TEXT NOT NULL,
                createdAt DOUBLE PRECISION NOT NULL,
                revokedAt DOUBLE PRECISION
            );
            """),
        ("v2: claims", """
            CREATE TABLE claim (
                key TEXT NOT NULL,
                accountKey TEXT NOT NULL,
                at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (key, accountKey)
            );
            CREATE TABLE offerCode (code TEXT PRIMARY KEY, value TEXT NOT NULL);
            """),
        // O7: refunds of any purchase reach devices with the plan lines; the event says which.
        ("v3: receipt events", """
            ALTER TABLE receipt ADD COLUMN event TEXT NOT NULL DEFAULT 'purchase';
            """),
    ]

    /// Applies the migrations not applied yet, one server at a time (an advisory lock).
    func migrate() throws(StoreError) {
        try transaction { connection in
            try query(connection, "SELECT pg_advisory_xact_lock(7305815)")
            try query(connection, "CREATE TABLE IF NOT EXISTS storefrontMigration (name TEXT PRIMARY KEY)")
            let done = Set(try query(connection, "SELECT name FROM storefrontMigration").compactMap { Self.cell($0, "name").string })
            for (name, sql) in Self.migrations where !done.contains(name) {
                // One statement a query: the extended protocol takes no more.
                for statement in sql.split(separator: ";") where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    try query(connection, String(statement))
                }
                try query(connection, "INSERT INTO storefrontMigration (name) VALUES ($1)", [PostgresData(string: name)])
            }
        }
    }

    // MARK: Encoding

    static func json(_ value: some Encodable) throws -> PostgresData {
        PostgresData(string: String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    /// The JSON in `column` of `row`, read from `table`; a value Storefront never writes (a row
    /// changed by hand, a cut write) is named with its table and column (P2), never as a
    /// decoder's trace.
    static func decode<T: Decodable>(_ type: T.Type, _ row: PostgresRow, _ column: String, of table: String) throws -> T {
        let data = cell(row, column)
        guard let text = data.string, let value = try? JSONDecoder().decode(type, from: Data(text.utf8)) else {
            let shown = data.string.map { "\"\($0.prefix(40))\"" } ?? "NULL"
            throw Failure(description: "\(table).\(column) holds \(shown), which is not a value Storefront writes")
        }
        return value
    }

    static func seconds(_ date: Date) -> PostgresData { PostgresData(double: date.timeIntervalSince1970) }
    static func text(_ text: String) -> PostgresData { PostgresData(string: text) }
    static func key(_ account: String) -> PostgresData { PostgresData(string: account.lowercased()) }

    // MARK: Settings, kept as JSON in one table

    /// What changes with every commit to the database: the write-ahead log's position (it also
    /// moves with other databases' writes, which only costs a kept answer).
    public func changeStamp() throws(StoreError) -> ChangeStamp {
        let position = try read { connection in
            try query(connection, "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS position").first.map { Self.cell($0, "position") }?.string ?? "0"
        }
        return ChangeStamp(Int64(Double(position) ?? 0))
    }

    func setting<T: Codable>(_ key: String) throws(StoreError) -> T? {
        try read { connection in
            try query(connection, "SELECT value FROM setting WHERE key = $1", [Self.text(key)]).first.map { try Self.decode(T.self, $0, "value", of: "setting") }
        }
    }

    /// Reads the JSON setting `key` (`empty` while nobody has written it) and writes what `change`
    /// makes of it, in one transaction under the advisory lock `lock`, so that servers sharing the
    /// database never interleave two; nil from `change` writes nothing and returns false.
    @discardableResult
    func updateSetting<T: Codable>(_ key: String, lock: String, empty: T, _ change: (T) throws -> T?) throws(StoreError) -> Bool {
        try transaction(lock: lock) { connection in
            let current = try query(connection, "SELECT value FROM setting WHERE key = $1", [Self.text(key)]).first
                .map { try Self.decode(T.self, $0, "value", of: "setting") } ?? empty
            guard let next = try change(current) else { return false }
            try query(
                connection, "INSERT INTO setting (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                [Self.text(key), try Self.json(next)]
            )
            return true
        }
    }

    func setSetting(_ key: String, _ value: (some Codable)?) throws(StoreError) {
        try transaction { connection in
            if let value {
                try query(
                    connection, "INSERT INTO setting (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                    [Self.text(key), try Self.json(value)]
                )
            } else {
                try query(connection, "DELETE FROM setting WHERE key = $1", [Self.text(key)])
            }
        }
    }
}

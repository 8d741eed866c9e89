// The account server's state in PostgreSQL (W5): `storefront serve --database postgres://…`.
// The same records, constraints and transactions as the embedded SQLite server: a purchase and its
// stored expiry in one transaction, plan lines with the plans they lead to and the notifications
// they report in one; writes to one account serialized across every `serve` process on the
// database by a transaction-scoped advisory lock, so that several servers race safely.
// PostgresNIO is asynchronous and the AccountServer protocol is not: each call waits for its
// query on a connection of a small pool (the server's handlers run off the event loops).
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import StoreCore

public final class PostgresAccountServer: AccountServer, SessionKeeping, @unchecked Sendable {
    public let location: String
    private let configuration: PostgresConnection.Configuration
    private let group = MultiThreadedEventLoopGroup.singleton
    private let idle = Locked<[PostgresConnection]>([])
    private let logger = Logger(label: "storefront-postgres")
    private let nextID = Locked(0)

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
        for connection in idle.withLock({ $0 }) { try? connection.close().wait() }
    }

    // MARK: Connections and transactions

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One query on `connection`, waited for.
    @discardableResult
    func query(_ connection: PostgresConnection, _ sql: String, _ binds: [PostgresData] = []) throws -> [PostgresRow] {
        try connection.query(sql, binds).wait().rows
    }

    private func connection() throws -> PostgresConnection {
        if let kept = idle.withLock({ $0.popLast() }), !kept.isClosed { return kept }
        let id = nextID.withLock { value -> Int in
            value += 1
            return value
        }
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
    private func storeErrors<T>(_ work: () throws -> T) throws(StoreError) -> T {
        do {
            return try work()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(path: location, reason: Self.words(error))
        }
    }

    /// A plan body's refusal, carried through a transaction unchanged.
    private struct Refused: Error {
        var error: any Error
    }

    /// A column of a row, by its (lowercase) name.
    static func cell(_ row: PostgresRow, _ column: String) -> PostgresData { row.makeRandomAccess()[data: column] }

    static func words(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            return error.serverInfo?[.message] ?? "\(error.code)"
        }
        return "\(error)"
    }

    /// One statement, on its own (no BEGIN and COMMIT around it: a third of the round trips).
    /// Several statements that must see one moment use `transaction`.
    private func read<T>(_ body: (PostgresConnection) throws -> T) throws(StoreError) -> T {
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
    private func migrate() throws(StoreError) {
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

    static func decode<T: Decodable>(_ type: T.Type, _ data: PostgresData) throws -> T {
        guard let text = data.string else { throw Failure(description: "a missing value") }
        return try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    static func seconds(_ date: Date) -> PostgresData { PostgresData(double: date.timeIntervalSince1970) }
    static func text(_ text: String) -> PostgresData { PostgresData(string: text) }
    static func key(_ account: String) -> PostgresData { PostgresData(string: account.lowercased()) }

    // MARK: Accounts and sessions

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

    // MARK: The receipt

    /// Adds a line; false when a line with its transaction id is there already.
    private func insert(_ connection: PostgresConnection, _ entry: ReceiptEntry) throws -> Bool {
        try !query(
            connection, """
                INSERT INTO receipt (transactionID, accountKey, kind, purchaseDate, extendsExpiry, entry, event)
                VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING transactionID
                """,
            [Self.text(entry.transactionID), Self.key(entry.account), Self.text(entry.kind.rawValue), Self.seconds(entry.purchaseDate),
             PostgresData(bool: entry.extendsExpiry), try Self.json(entry), Self.text(entry.event.rawValue)]
        ).isEmpty
    }

    private func entries(_ rows: [PostgresRow]) throws -> [ReceiptEntry] {
        try rows.map { try Self.decode(ReceiptEntry.self, Self.cell($0, "entry")) }
    }

    private func receipt(_ connection: PostgresConnection, account: String) throws -> [ReceiptEntry] {
        try entries(query(connection, "SELECT entry FROM receipt WHERE accountKey = $1 ORDER BY purchaseDate, transactionID", [Self.key(account)]))
    }

    private func storedExpiry(_ connection: PostgresConnection, account: String) throws -> Date? {
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

    // MARK: Plans

    private func plans(_ connection: PostgresConnection, account: String) throws -> [String: PlanState] {
        var plans: [String: PlanState] = [:]
        for row in try query(connection, "SELECT state FROM plan WHERE accountKey = $1", [Self.key(account)]) {
            let state = try Self.decode(PlanState.self, Self.cell(row, "state"))
            plans[state.group] = state
        }
        return plans
    }

    private func planLines(_ connection: PostgresConnection, account: String, from offset: Int = 0) throws -> [ReceiptEntry] {
        try entries(query(
            connection, "SELECT entry FROM receipt WHERE accountKey = $1 AND (kind = $2 OR event IN ('refund', 'refund-reversed', 'family-share', 'family-revoke')) ORDER BY sequence OFFSET $3",
            [Self.key(account), Self.text(ProductKind.autoRenewableSubscription.rawValue), PostgresData(int: offset)]
        ))
    }

    public func plans(account: String) throws(StoreError) -> [String: PlanState] { try read { try plans($0, account: account) } }
    public func planLines(account: String, from offset: Int) throws(StoreError) -> [ReceiptEntry] {
        try read { try planLines($0, account: account, from: offset) }
    }

    @discardableResult
    public func updatePlans(
        account: String, _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
    ) throws -> [ReceiptEntry] {
        try run(lock: account) { connection in
                let plans = try plans(connection, account: account)
                let lines: [ReceiptEntry]
                do {
                    lines = try body(plans) { try self.planLines(connection, account: account) }
                } catch {
                    throw Refused(error: error)
                }
                // N2: each line's notification is written with it.
                let changed = try RecordingRules.record(lines, onto: plans, insert: { try insert(connection, $0) }) { notification in
                    _ = try insert(connection, notification)
                }
                for group in changed.keys.sorted() {
                    try query(
                        connection, """
                            INSERT INTO plan (accountKey, account, groupID, state) VALUES ($1, $2, $3, $4)
                            ON CONFLICT (accountKey, groupID) DO UPDATE SET state = $4
                            """,
                        [Self.key(account), Self.text(account), Self.text(group), try Self.json(changed[group]!)]
                    )
                }
                return lines
        }
    }

    public func accountsWithPlans() throws(StoreError) -> [String] {
        try read { connection in
            try query(connection, "SELECT DISTINCT ON (accountKey) account FROM plan ORDER BY accountKey").compactMap { Self.cell($0, "account").string }
        }
    }

    // MARK: Settings

    /// What changes with every commit to the database: the write-ahead log's position (it also
    /// moves with other databases' writes, which only costs a kept answer).
    public func changeStamp() throws(StoreError) -> ChangeStamp {
        let position = try read { connection in
            try query(connection, "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS position").first.map { Self.cell($0, "position") }?.string ?? "0"
        }
        return ChangeStamp(Int64(Double(position) ?? 0))
    }

    private func setting<T: Codable>(_ key: String) throws(StoreError) -> T? {
        try read { connection in
            try query(connection, "SELECT value FROM setting WHERE key = $1", [Self.text(key)]).first.map { try Self.decode(T.self, Self.cell($0, "value")) }
        }
    }

    private func setSetting(_ key: String, _ value: (some Codable)?) throws(StoreError) {
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

    /// Read each time: a commit by another server is in the log's position a moment before it is
    /// visible, so a setting kept by that stamp could miss it.
    public func clockSetting() throws(StoreError) -> ClockSetting { try setting("clock") ?? .standard }

    public func setClockSetting(_ setting: ClockSetting) throws(StoreError) { try setSetting("clock", setting) }
    public func billingSetting() throws(StoreError) -> BillingSetting { try setting("billing") ?? BillingSetting() }
    public func setBillingSetting(_ setting: BillingSetting) throws(StoreError) { try setSetting("billing", setting) }
    public func appIdentity() throws(StoreError) -> AppIdentity? { try setting("appIdentity") }
    public func setAppIdentity(_ identity: AppIdentity) throws(StoreError) { try setSetting("appIdentity", identity) }
    public func apiKeyring() throws(StoreError) -> APIKeyring? { try setting("apiKeys") }
    public func setAPIKeyring(_ keyring: APIKeyring) throws(StoreError) { try setSetting("apiKeys", keyring) }
    public func simulatedErrors() throws(StoreError) -> SimulatedErrors? { try setting("simulatedErrors") }
    public func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError) { try setSetting("simulatedErrors", errors) }
    public func priceChanges() throws(StoreError) -> [PriceChange] { try setting("prices") ?? [] }
    public func setPriceChange(_ change: PriceChange) throws(StoreError) {
        try transaction(lock: "prices") { connection in
            let stored = try query(connection, "SELECT value FROM setting WHERE key = 'prices'").first
                .map { try Self.decode([PriceChange].self, Self.cell($0, "value")) } ?? []
            let changes = stored.filter { $0.productID != change.productID } + [change]
            try query(
                connection, "INSERT INTO setting (key, value) VALUES ('prices', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                [try Self.json(changes)]
            )
        }
    }

    public func families() throws(StoreError) -> [Family] { try setting("families") ?? [] }
    public func setFamilies(_ families: [Family]) throws(StoreError) { try setSetting("families", families) }

    public func webhook() throws(StoreError) -> Webhook? { try setting("webhook") }
    public func setWebhook(_ webhook: Webhook?) throws(StoreError) { try setSetting("webhook", webhook) }

    public func adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date) throws(StoreError) {
        guard clockRate != nil || billing != nil else { return }
        try transaction { connection in
            try query(connection, "SELECT pg_advisory_xact_lock(7305816)")
            guard try query(connection, "SELECT key FROM setting WHERE key IN ('clock', 'billing')").isEmpty else { return }
            if let clockRate {
                try query(connection, "INSERT INTO setting (key, value) VALUES ('clock', $1)", [try Self.json(ClockSetting.standard.accelerated(rate: clockRate, real: real))])
            }
            try query(connection, "INSERT INTO setting (key, value) VALUES ('billing', $1)", [try Self.json(billing ?? BillingSetting())])
        }
    }

    public func recordRequests(_ requests: [ServedRequest]) throws(StoreError) {
        guard !requests.isEmpty else { return }
        try transaction { connection in
            for request in requests.suffix(200) { try query(connection, "INSERT INTO request (value) VALUES ($1)", [try Self.json(request)]) }
            try query(connection, "DELETE FROM request WHERE sequence <= (SELECT MAX(sequence) FROM request) - 200")
        }
    }

    public func recentRequests(limit: Int) throws(StoreError) -> [ServedRequest] {
        try read { connection in
            try query(connection, "SELECT value FROM request ORDER BY sequence DESC LIMIT $1", [PostgresData(int: limit)])
                .map { try Self.decode(ServedRequest.self, Self.cell($0, "value")) }.reversed()
        }
    }

    // MARK: Notifications

    private func insert(_ connection: PostgresConnection, _ notification: ServerNotification) throws -> Bool {
        try !query(
            connection, """
                INSERT INTO notification (uuid, eventKey, accountKey, state, nextAttemptAt, value) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT DO NOTHING RETURNING uuid
                """,
            [Self.text(notification.uuid), Self.text(notification.key), Self.key(notification.account), Self.text(notification.state.rawValue),
             notification.nextAttemptAt.map(Self.seconds) ?? PostgresData.null, try Self.json(notification)]
        ).isEmpty
    }

    private func notifications(_ rows: [PostgresRow]) throws -> [ServerNotification] {
        try rows.map { try Self.decode(ServerNotification.self, Self.cell($0, "value")) }
    }

    @discardableResult
    public func enqueue(_ notifications: [ServerNotification]) throws(StoreError) -> [ServerNotification] {
        guard !notifications.isEmpty else { return [] }
        return try transaction { connection in try notifications.filter { try insert(connection, $0) } }
    }

    public func claim(_ key: String, account: String, limit: Int, at date: Date) throws(StoreError) -> Bool {
        // The key's own lock: two servers cannot both take the last use.
        try transaction(lock: "claim:" + key) { connection in
            let taken = try query(connection, "SELECT accountKey FROM claim WHERE key = $1", [Self.text(key)])
                .compactMap { Self.cell($0, "accountkey").string }
            guard taken.count < limit, !taken.contains(account.lowercased()) else { return false }
            try query(connection, "INSERT INTO claim (key, accountKey, at) VALUES ($1, $2, $3)", [Self.text(key), Self.key(account), Self.seconds(date)])
            return true
        }
    }

    public func addOfferCodes(_ codes: [OfferCode]) throws(StoreError) {
        try transaction(lock: "offer-codes") { connection in
            for code in codes {
                guard try query(connection, "SELECT code FROM offerCode WHERE code = $1", [Self.text(code.code.uppercased())]).isEmpty else {
                    throw StoreError.offerCodeExists(code.code)
                }
                try query(connection, "INSERT INTO offerCode (code, value) VALUES ($1, $2)", [Self.text(code.code.uppercased()), try Self.json(code)])
            }
        }
    }

    public func offerCode(_ code: String) throws(StoreError) -> OfferCode? {
        try read { connection in
            try query(connection, "SELECT value FROM offerCode WHERE code = $1", [Self.text(code.uppercased())]).first
                .map { try Self.decode(OfferCode.self, Self.cell($0, "value")) }
        }
    }

    public func offerCodes() throws(StoreError) -> [OfferCode] {
        try read { connection in
            try query(connection, "SELECT value FROM offerCode ORDER BY code").map { try Self.decode(OfferCode.self, Self.cell($0, "value")) }
        }
    }

    public func claims(_ key: String) throws(StoreError) -> Int {
        try read { connection in try query(connection, "SELECT accountKey FROM claim WHERE key = $1", [Self.text(key)]).count }
    }

    public func hasNotification(key: String) throws(StoreError) -> Bool {
        try read { connection in try !query(connection, "SELECT uuid FROM notification WHERE eventKey = $1", [Self.text(key)]).isEmpty }
    }

    public func notifications(account: String?) throws(StoreError) -> [ServerNotification] {
        try read { connection in
            if let account {
                return try notifications(query(connection, "SELECT value FROM notification WHERE accountKey = $1 ORDER BY sequence", [Self.key(account)]))
            }
            return try notifications(query(connection, "SELECT value FROM notification ORDER BY sequence"))
        }
    }

    public func dueNotifications(at now: Date) throws(StoreError) -> [ServerNotification] {
        try read { connection in
            try notifications(query(
                connection, "SELECT value FROM notification WHERE state = 'pending' AND nextAttemptAt <= $1 ORDER BY sequence", [Self.seconds(now)]
            ))
        }
    }

    public func updateNotification(_ notification: ServerNotification) throws(StoreError) {
        try transaction { connection in
            try query(
                connection, "UPDATE notification SET state = $2, nextAttemptAt = $3, value = $4 WHERE uuid = $1",
                [Self.text(notification.uuid), Self.text(notification.state.rawValue),
                 notification.nextAttemptAt.map(Self.seconds) ?? PostgresData.null, try Self.json(notification)]
            )
        }
    }
}

// The account server's state in PostgreSQL (W5): `storefront serve --database postgres://…`.
// The same records, constraints and transactions as the embedded SQLite server: a purchase and its
// stored expiry in one transaction, plan lines with the plans they lead to and the notifications
// they report in one; writes to one account serialized across every `serve` process on the
// database by a transaction-scoped advisory lock, so that several servers race safely.
// PostgresNIO is asynchronous and the AccountServer protocol is not: each call borrows a
// connection of PostgresNIO's pool (PostgresClient) and waits for its queries on it.
// `storefront serve` makes these calls only on its blocking pool, never on an event loop or a
// Swift task's thread; BlockingWatch checks that as it runs.
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoreCore
import StoreModel

public final class PostgresAccountServer: RecordKeeping, @unchecked Sendable {
    public var keeper: RecordKeeper { .here(self) }
    public let location: String
    let address: PostgresAddress
    /// The pool, PostgresNIO's own: at most `maximumConnections` connections, each idle one
    /// checked every 30 s. It answers only while its `run()` runs: `storefront serve` runs it as a
    /// service of its group; `open(url:)` runs it in a task that ends with this object.
    public let client: PostgresClient
    let logger = Logger(label: "storefront-postgres")
    private let runner = Locked<Task<Void, Never>?>(nil)

    /// Connections open at once, at most: one for each thread of the blocking pool, and as many
    /// again for a call made while another holds its connection (a plan's body reading the
    /// receipt it folds).
    public static let maximumConnections = 32

    /// `url`: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&sslrootcert=…]. Makes the
    /// pool without connecting: `prepare()` checks the database and migrates it once the pool runs.
    public init(url text: String) throws(StoreError) {
        address = try PostgresAddress(url: text)
        location = address.location
        client = PostgresClient(
            configuration: try address.client(maximumConnections: Self.maximumConnections), backgroundLogger: logger)
    }

    /// A server whose pool runs in a task of its own (the command line's tools, tests and
    /// benchmarks), checked and migrated.
    public static func open(url: String) throws(StoreError) -> PostgresAccountServer {
        let server = try PostgresAccountServer(url: url)
        server.runner.withLock { runner in
            runner = Task(executorPreference: Self.executor) { [client = server.client] in await client.run() }
        }
        try server.prepare()
        return server
    }

    deinit {
        runner.withLock { $0?.cancel() }
    }

    /// Connects once outside the pool, so that a database that cannot be reached, or whose TLS
    /// does not verify, is said at once in one line (the pool would retry for a minute), then
    /// applies the migrations not applied yet.
    public func prepare() throws(StoreError) {
        BlockingWatch.check("PostgreSQL connect \(location)")
        let configuration = try address.connection()
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0, logger: logger
            ).wait()
            try? connection.close().wait()
        } catch {
            throw StoreError.storage(path: location, reason: connectionWords(error))
        }
        try migrate()
    }

    // MARK: Connections and transactions

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One query on `connection`, waited for: on the server's blocking pool, never on a Swift
    /// task's thread (BlockingWatch says so if it ever is).
    @discardableResult
    func query(_ connection: PostgresConnection, _ query: PostgresQuery) throws -> [PostgresRow] {
        BlockingWatch.check("PostgreSQL query \(location)")
        return try connection.query(query, logger: logger).wait().rows
    }

    /// A connection of the pool, lent to this thread for `body`. PostgresClient lends connections
    /// to async closures; the one here holds the connection until the thread is done with it, so
    /// that the store's synchronous calls keep one connection for a transaction.
    func leased<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        BlockingWatch.check("PostgreSQL connect \(location)")
        let lease = Lease()
        Task(executorPreference: Self.executor) { [client] in
            do {
                try await client.withConnection { connection in
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        lease.lend(connection, done)
                    }
                }
            } catch {
                lease.fail(error)
            }
        }
        let (connection, done) = try lease.wait()
        defer { done.resume() }
        return try body(connection)
    }

    /// Where the pool's tasks run when a thread waits for them: on SwiftNIO's event loops, not on
    /// Swift's cooperative pool, whose few threads may be the very ones waiting (a test, a
    /// benchmark or a command calls the store synchronously from a Swift task).
    static let executor = EventLoopTaskExecutor(loop: MultiThreadedEventLoopGroup.singleton.next())

    /// A task executor on one event loop: each job runs on the loop's thread.
    final class EventLoopTaskExecutor: TaskExecutor {
        let loop: any EventLoop

        init(loop: any EventLoop) { self.loop = loop }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// A connection handed from the pool's task to a waiting thread, and the continuation that
    /// gives it back.
    final class Lease: @unchecked Sendable {
        private let ready = DispatchSemaphore(value: 0)
        private var lent: Result<(PostgresConnection, CheckedContinuation<Void, Never>), any Error>?

        func lend(_ connection: PostgresConnection, _ done: CheckedContinuation<Void, Never>) {
            lent = .success((connection, done))
            ready.signal()
        }

        func fail(_ error: any Error) {
            lent = .failure(error)
            ready.signal()
        }

        func wait() throws -> (PostgresConnection, CheckedContinuation<Void, Never>) {
            ready.wait()
            guard let lent else { preconditionFailure("a lease signalled with nothing lent") }
            return try lent.get()
        }
    }

    /// Runs `body` in a transaction on a connection of the pool, holding the account's advisory
    /// lock when one is named; serialization failures and deadlocks between servers are tried
    /// again. A plan body's own refusal comes out as it went in.
    func run<T>(lock account: String? = nil, transaction: Bool = true, _ body: (PostgresConnection) throws -> T) throws
        -> T
    {
        var attempt = 0
        while true {
            attempt += 1
            var lost = false
            do {
                let lent: T
                do {
                    lent = try leased { connection in
                        do {
                            if transaction { try query(connection, "BEGIN") }
                            if let account {
                                try query(connection, "SELECT pg_advisory_xact_lock(hashtext(\(account.lowercased())))")
                            }
                            let result = try body(connection)
                            if transaction { try query(connection, "COMMIT") }
                            return result
                        } catch {
                            if transaction { _ = try? query(connection, "ROLLBACK") }
                            lost = connection.isClosed
                            throw Used(error: error)
                        }
                    }
                } catch let used as Used {
                    throw used.error
                } catch {
                    throw StoreError.storage(path: location, reason: connectionWords(error))
                }
                return lent
            } catch {
                if let refused = error as? Refused { throw refused.error }
                if error is StoreError { throw error }
                let code = (error as? PSQLError)?.serverInfo?[.sqlState]
                if attempt < 5, code == "40001" || code == "40P01" { continue }
                // A pooled connection the database closed (a restart): once more on a new one.
                // What the lost one did is idempotent (lines and notifications by their ids).
                if attempt < 2, lost { continue }
                throw StoreError.storage(path: location, reason: Self.words(error))
            }
        }
    }

    /// A failure met while a connection was lent, told apart from failing to get one.
    private struct Used: Error {
        var error: any Error
    }

    @discardableResult
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

    static func words(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            // The server's own words; else what failed beneath (a refused connection, a reset).
            if let message = error.serverInfo?[.message] { return message }
            if let failed = error.underlying as? NIOConnectionError {
                let reasons = failed.connectionErrors.map { failure in
                    (failure.error as? IOError).map { String(cString: strerror($0.errnoCode)).lowercased() }
                        ?? "\(failure.error)"
                }
                return Set(reasons).sorted().joined(separator: "; ")
            }
            if let underlying = error.underlying as? IOError {
                return String(cString: strerror(underlying.errnoCode)).lowercased()
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// Why a connection could not be made, with what to change when TLS is the reason (W5).
    func connectionWords(_ error: any Error) -> String {
        let failure = error as? PSQLError
        if failure?.code == .sslUnsupported {
            return
                "the server does not offer TLS, which sslmode=\(address.mode.rawValue) requires (its ssl setting is off; sslmode=prefer connects without)"
        }
        let underlying = failure?.underlying ?? error
        if let extra = underlying as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return
                "its TLS certificate is not made out to \(address.host) (connect by a name it names, or sslmode=verify-ca)"
        }
        if case .handshakeFailed(.sslError(let stack)) = underlying as? NIOSSLError,
            stack.compactMap(BoringSSLReason.init).contains(.certificateVerifyFailed)
        {
            let roots = address.rootCertificate.map { "the CA in \($0)" } ?? "the system's CAs"
            return "its TLS certificate does not verify against \(roots) (sslrootcert=FILE names the CA that signed it)"
        }
        if underlying is NIOSSLError || underlying is BoringSSLError { return "TLS with it failed (\(underlying))" }
        if failure?.serverInfo != nil { return Self.words(error) }
        return "cannot connect (\(Self.words(error)))"
    }

    /// One statement, on its own (no BEGIN and COMMIT around it: a third of the round trips).
    /// Several statements that must see one moment use `transaction`.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws(StoreError) -> T {
        try storeErrors { try run(transaction: false, body) }
    }

    // MARK: Encoding

    /// A value as the JSON text its column keeps.
    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// The JSON in `column` of `row`, read from `table`; a value Storefront never writes (a row
    /// changed by hand, a cut write) is named with its table and column (P2), never as a
    /// decoder's trace.
    static func decode<T: Decodable>(_ type: T.Type, _ row: PostgresRow, _ column: String, of table: String) throws -> T
    {
        let text = string(row, column)
        guard let text, let value = try? JSONDecoder().decode(type, from: Data(text.utf8)) else {
            let shown = text.map { "\"\($0.prefix(40))\"" } ?? "NULL"
            throw Failure(description: "\(table).\(column) holds \(shown), which is not a value Storefront writes")
        }
        return value
    }

    /// `decode`, and nil for NULL.
    static func decodeIfPresent<T: Decodable>(_ type: T.Type, _ row: PostgresRow, _ column: String, of table: String)
        throws -> T?
    {
        string(row, column) == nil ? nil : try decode(type, row, column, of: table)
    }

    /// A text column of a row, by its (lowercase) name; nil for NULL.
    static func string(_ row: PostgresRow, _ column: String) -> String? {
        try? row.makeRandomAccess()[column].decode(String?.self)
    }

    /// A number column of a row, by its (lowercase) name; nil for NULL.
    static func double(_ row: PostgresRow, _ column: String) -> Double? {
        try? row.makeRandomAccess()[column].decode(Double?.self)
    }

    static func date(_ row: PostgresRow, _ column: String) -> Date? {
        double(row, column).map { Date(timeIntervalSince1970: $0) }
    }

    static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }
    static func key(_ account: String) -> String { account.lowercased() }

    // MARK: Settings, kept as JSON in one table

    /// What changes with every commit to the database: the write-ahead log's position (it also
    /// moves with other databases' writes, which only costs a kept answer).
    public func changeStamp() throws(StoreError) -> ChangeStamp {
        let position = try read { connection in
            try query(connection, "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS position").first
                .flatMap { Self.string($0, "position") } ?? "0"
        }
        return ChangeStamp(Int64(Double(position) ?? 0))
    }

    /// The sum of the change counts (kept by triggers, `countedTables`) of the shared scope and of
    /// `accounts`: counts only grow, so the sum moves whenever one of them does.
    public func changeStamp(accounts: [String]) throws(StoreError) -> ChangeStamp {
        let keys = accounts.map(Self.key)
        let sum = try read { connection in
            try query(
                connection,
                "SELECT coalesce(sum(count), 0)::BIGINT AS sum FROM changeCount WHERE scope = '' OR scope = ANY(\(keys))"
            ).first
                .flatMap { try? $0.makeRandomAccess()["sum"].decode(Int64.self) } ?? 0
        }
        return ChangeStamp(sum)
    }

    func setting<T: Codable>(_ key: String) throws(StoreError) -> T? {
        try read { connection in
            try query(connection, "SELECT value FROM setting WHERE key = \(key)").first.map {
                try Self.decode(T.self, $0, "value", of: "setting")
            }
        }
    }

    /// Reads the JSON setting `key` (`empty` while nobody has written it) and writes what `change`
    /// makes of it, in one transaction under the advisory lock `lock`, so that servers sharing the
    /// database never interleave two; nil from `change` writes nothing and returns false.
    @discardableResult
    func updateSetting<T: Codable>(_ key: String, lock: String, empty: T, _ change: (T) throws -> T?) throws(StoreError)
        -> Bool
    {
        try transaction(lock: lock) { connection in
            let current =
                try query(connection, "SELECT value FROM setting WHERE key = \(key)").first
                .map { try Self.decode(T.self, $0, "value", of: "setting") } ?? empty
            guard let next = try change(current) else { return false }
            try query(
                connection,
                "INSERT INTO setting (key, value) VALUES (\(key), \(try Self.json(next))) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
            )
            return true
        }
    }

    func setSetting(_ key: String, _ value: (some Codable)?) throws(StoreError) {
        try transaction { connection in
            if let value {
                try query(
                    connection,
                    "INSERT INTO setting (key, value) VALUES (\(key), \(try Self.json(value))) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
                )
            } else {
                try query(connection, "DELETE FROM setting WHERE key = \(key)")
            }
        }
    }
}

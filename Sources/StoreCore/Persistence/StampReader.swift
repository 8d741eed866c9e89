// Change stamps (`ChangeTracking`) for a SQLite file, through a connection of its own: the whole
// file's, `PRAGMA data_version`, which moves with every commit by any other connection, in this
// process or another; and the account server's counts of changes by scope (`changeCount`, kept by
// triggers), summed over the shared part and the accounts asked about. A connection that only reads it takes no turn on the file's queue, so that the App
// Store Server API, which reads one per request, does not wait behind a purchase. One connection:
// `data_version` is a count per connection, and two connections' counts do not compare.
import Foundation
import GRDBSQLite
import StoreModel

final class StampReader: @unchecked Sendable {
    private let lock = NSLock()
    private let path: String
    private var connection: OpaquePointer?
    private var statement: OpaquePointer?
    private var scoped: OpaquePointer?
    /// Sums read at `seenVersion` of `data_version`: good while it stays the same, since no commit
    /// came since (this connection only reads), so that an idle file costs one PRAGMA a stamp.
    private var seenVersion: Int64?
    private var sums: [[String]: Int64] = [:]

    init(path: String) { self.path = path }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_finalize(scoped)
        sqlite3_close_v2(connection)
    }

    private func open() throws(StoreError) {
        let opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard opened == SQLITE_OK,
            sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK
        else {
            let reason = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(connection)
            connection = nil
            throw StoreError.storage(path: path, reason: reason)
        }
        sqlite3_busy_timeout(connection, 30_000)
    }

    /// The stamp: SQLite's `data_version` on this connection. A call into SQLite, which may wait
    /// for the file: made on a blocking thread.
    func read() throws(StoreError) -> ChangeStamp {
        lock.lock()
        defer { lock.unlock() }
        return try step()
    }

    /// The sum of the change counts of the shared scope ('') and of `accounts`: counts only grow,
    /// so the sum moves whenever one of them does. Made on a blocking thread.
    func read(accounts: [String]) throws(StoreError) -> ChangeStamp {
        lock.lock()
        defer { lock.unlock() }
        return try step(accounts: accounts)
    }

    /// The same sum for a Swift task's thread, or nil rather than wait (as `readQuickly()`).
    func readQuickly(accounts: [String]) -> ChangeStamp? {
        lock.lock()
        defer { lock.unlock() }
        guard connection != nil else { return nil }
        sqlite3_busy_timeout(connection, 0)
        defer { sqlite3_busy_timeout(connection, 30_000) }
        return try? step(accounts: accounts)
    }

    /// The same stamp for a Swift task's thread, or nil rather than wait on the file: before the
    /// connection is open, or while SQLite is busy. In WAL mode reading `data_version` takes no
    /// lock a writer holds (a read transaction reads the log's index); SQLite may retry for
    /// microseconds while a commit rewrites the index's header, and another thread reading the
    /// stamp holds the lock here for as long. This is what lets the server tell a kept answer
    /// without a hop to its blocking pool (BENCHMARKS.md at 8a86700, "The server on its libraries").
    func readQuickly() -> ChangeStamp? {
        lock.lock()
        defer { lock.unlock() }
        guard connection != nil else { return nil }
        // Busy is an answer here, not a wait.
        sqlite3_busy_timeout(connection, 0)
        defer { sqlite3_busy_timeout(connection, 30_000) }
        return try? step()
    }

    private func step() throws(StoreError) -> ChangeStamp {
        if connection == nil { try open() }
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw failure() }
        return ChangeStamp(sqlite3_column_int64(statement, 0))
    }

    private func step(accounts: [String]) throws(StoreError) -> ChangeStamp {
        let version = try step().value
        if version == seenVersion, let sum = sums[accounts] { return ChangeStamp(sum) }
        if version != seenVersion || sums.count >= 1_024 {
            sums.removeAll(keepingCapacity: true)
            seenVersion = version
        }
        // A commit between the two reads makes this sum newer than `version`: the next read of
        // `data_version` then differs, and it is read again.
        let sum = try sum(accounts: accounts)
        sums[accounts] = sum
        return ChangeStamp(sum)
    }

    private func sum(accounts: [String]) throws(StoreError) -> Int64 {
        if scoped == nil {
            let sql =
                "SELECT coalesce(sum(count), 0) FROM changeCount WHERE scope = '' OR scope IN (SELECT value FROM json_each(?1))"
            guard sqlite3_prepare_v2(connection, sql, -1, &scoped, nil) == SQLITE_OK else { throw failure() }
        }
        defer {
            sqlite3_reset(scoped)
            sqlite3_clear_bindings(scoped)
        }
        let names = (try? JSONEncoder().encode(accounts)) ?? Data("[]".utf8)
        let bound = names.withUnsafeBytes { bytes in
            sqlite3_bind_text(
                scoped, 1, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
        }
        guard bound == SQLITE_OK, sqlite3_step(scoped) == SQLITE_ROW else { throw failure() }
        return sqlite3_column_int64(scoped, 0)
    }

    private func failure() -> StoreError {
        StoreError.storage(path: path, reason: connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open")
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

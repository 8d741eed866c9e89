// A change stamp (`ChangeTracking.changeStamp`) for a SQLite file: `PRAGMA data_version` through a
// connection of its own, which moves with every commit by any other connection, in this process
// or another. A connection that only reads it takes no turn on the file's queue, so that the App
// Store Server API, which reads one per request, does not wait behind a purchase. One connection:
// `data_version` is a count per connection, and two connections' counts do not compare.
import Foundation
import GRDBSQLite

final class StampReader: @unchecked Sendable {
    private let lock = NSLock()
    private let path: String
    private var connection: OpaquePointer?
    private var statement: OpaquePointer?

    init(path: String) { self.path = path }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(connection)
    }

    private func open() throws(StoreError) {
        let opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard opened == SQLITE_OK, sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK else {
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

    /// The same stamp for a Swift task's thread, or nil rather than wait on the file: before the
    /// connection is open, or while SQLite is busy. In WAL mode reading `data_version` takes no
    /// lock a writer holds (a read transaction reads the log's index); SQLite may retry for
    /// microseconds while a commit rewrites the index's header, and another thread reading the
    /// stamp holds the lock here for as long. This is what lets the server tell a kept answer
    /// without a hop to its blocking pool (BENCHMARKS.md, "The server on its libraries").
    func readQuickly() -> ChangeStamp? {
        lock.lock()
        defer { lock.unlock() }
        guard statement != nil else { return nil }
        // Busy is an answer here, not a wait.
        sqlite3_busy_timeout(connection, 0)
        defer { sqlite3_busy_timeout(connection, 30_000) }
        return try? step()
    }

    private func step() throws(StoreError) -> ChangeStamp {
        if statement == nil { try open() }
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else {
            throw StoreError.storage(path: path, reason: String(cString: sqlite3_errmsg(connection)))
        }
        return ChangeStamp(sqlite3_column_int64(statement, 0))
    }
}

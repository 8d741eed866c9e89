// A change stamp (`ChangeTracking.changeStamp`) for a SQLite file, read two ways: through a
// connection of its own (`PRAGMA data_version`), and, once that connection has opened the
// write-ahead log, straight from the log's shared memory, which a commit by any connection of any
// process rewrites. The second costs no SQLite call and no system call (a lock is taken only to
// copy a reference), so that the server can tell whether a kept answer still holds on a Swift
// task's thread, without a hop to its blocking pool (issue 23's target for Get Transaction
// History). The memory is SQLite's own mapping of the connection's log index, so it lives and
// is locked exactly as SQLite's readers' is.
import Foundation
import GRDBSQLite
import Synchronization

final class StampReader: @unchecked Sendable {
    private let lock = NSLock()
    private let path: String
    private var connection: OpaquePointer?
    private var statement: OpaquePointer?
    /// SQLite's mapping of the log index's first page, read (never written) here once the
    /// connection has opened the log.
    private let header = Locked<SharedHeader?>(nil)

    init(path: String) { self.path = path }

    deinit {
        // The mapping is the connection's: no stamp is read from it after this.
        header.withLock { $0 = nil }
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

    /// The stamp from shared memory, or nil: before the first `read`, when the file has no
    /// write-ahead log, or while a commit is halfway through rewriting the log's header.
    func inMemory() -> ChangeStamp? { header.withLock { $0 }?.stamp() }

    /// The stamp, waiting for SQLite if it must. Once the shared memory is mapped every stamp
    /// comes from it, so that stamps read either way compare.
    func read() throws(StoreError) -> ChangeStamp {
        lock.lock()
        defer { lock.unlock() }
        if statement == nil { try open() }
        let version: Int64
        do {
            defer { sqlite3_reset(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else {
                throw StoreError.storage(path: path, reason: String(cString: sqlite3_errmsg(connection)))
            }
            version = sqlite3_column_int64(statement, 0)
        }
        // The step opened the log and mapped its shared memory, and this connection now holds the
        // file open, so the `-shm` file is not removed while this process runs.
        var shared = header.withLock { $0 }
        if shared == nil, let mapped = SharedHeader(connection: connection) {
            header.withLock { $0 = mapped }
            shared = mapped
        }
        if let shared {
            // A commit rewrites the header's two copies in a few instructions; wait them out.
            for _ in 0..<10_000 {
                if let stamp = shared.stamp() { return stamp }
                sched_yield()
            }
        }
        return ChangeStamp(version)
    }
}

/// The write-ahead log index's header, as SQLite keeps it at the start of the `-shm` file
/// (sqlite.org/walformat.html, "The WAL-Index Header"): two copies of 48 bytes that a writer
/// fills second-copy-first, so that a reader who finds them equal read a whole one. Of its
/// fields: `iChange` (offset 8) counts transactions, `isInit` (12) is set once it is built,
/// `mxFrame` (16) is the last valid frame and `aSalt[0]` (32) changes when the log restarts.
final class SharedHeader: @unchecked Sendable {
    static let size = 48
    /// Stamps from shared memory have this bit, `data_version`'s never do: the two never compare equal.
    static let marker: UInt64 = 1 << 62
    let base: UnsafeRawPointer

    /// SQLite's own mapping of the first page of `connection`'s write-ahead log index, asked of
    /// the file through the VFS (`xShmMap`), never by opening the `-shm` file: a second
    /// descriptor closed in this process would drop every POSIX lock SQLite holds on it, and
    /// another process would then take the file for its own, cut it short and rebuild it under
    /// this one's readers. Nil when the log's index is not mapped (no write-ahead log, or none
    /// read yet). Valid while the connection is open.
    init?(connection: OpaquePointer?) {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(connection, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file,
              let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        // Region 0 of 32 KB (the index's page size), without growing the file.
        guard map(file, 0, 32_768, 0, &region) == SQLITE_OK, let region else { return nil }
        base = UnsafeRawPointer(region)
    }

    func stamp() -> ChangeStamp? {
        let first = fields(at: 0)
        if #available(macOS 15.0, *) { atomicMemoryFence(ordering: .acquiring) }
        let second = fields(at: Self.size)
        guard first == second, first.isInit != 0 else { return nil }
        let high = UInt64(first.mxFrame ^ first.salt) << 32
        return ChangeStamp(Int64(bitPattern: (high | UInt64(first.change)) & ~(1 << 63) | Self.marker))
    }

    private struct Fields: Equatable {
        var change: UInt32
        var isInit: UInt8
        var mxFrame: UInt32
        var salt: UInt32
    }

    private func fields(at offset: Int) -> Fields {
        Fields(
            change: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self),
            isInit: base.loadUnaligned(fromByteOffset: offset + 12, as: UInt8.self),
            mxFrame: base.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self),
            salt: base.loadUnaligned(fromByteOffset: offset + 32, as: UInt32.self)
        )
    }
}

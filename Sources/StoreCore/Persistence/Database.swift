// Opening the SQLite files (P1–P3) and the state directory they live in (A7).
import Foundation
import GRDB
import GRDBSQLite
import StoreModel

/// Where a store keeps its files: `server.sqlite` (the account server, A2, and the shared clock)
/// and `devices/NAME.sqlite` (one per device, A3). Created readable by the owner only (A7).
public struct StateDirectory: Sendable {
    public let url: URL

    public init(_ url: URL) { self.url = url }

    public var serverDatabase: URL { url.appendingPathComponent("server.sqlite") }
    public var devicesFolder: URL { url.appendingPathComponent("devices") }
    /// The certificate authority that signs the store's data (S1).
    public var certificateAuthority: URL { url.appendingPathComponent("ca") }
    /// The state folder's own subscription-offer key, for demos (O2): the screen and scenarios
    /// sign promotional offers with it as a developer's server would.
    public var demoOfferKey: URL { url.appendingPathComponent("offer-demo-key.pem") }

    public func deviceDatabase(_ device: String) throws(StoreError) -> URL {
        try Self.validate(device: device)
        return devicesFolder.appendingPathComponent("\(device).sqlite")
    }

    public static func validate(device: String) throws(StoreError) {
        let allowed = device.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
        guard !device.isEmpty, device.count <= 64, allowed, !device.hasPrefix(".") else {
            throw StoreError.invalidDeviceName(device)
        }
    }

    /// Creates the folders (mode 0700) if they are missing.
    public func prepare() throws(StoreError) {
        for folder in [url, devicesFolder] {
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw StoreError.storage(
                    path: folder.path, reason: "cannot create the state folder (\(CatalogLoader.reason(error)))")
            }
        }
    }

    /// The devices that have state here.
    public func devices() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: devicesFolder.path)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") }.map { String($0.dropLast(7)) }.sorted()
    }

    /// "Deleting the app" (A3): removes one device's database and nothing else.
    public func removeDevice(_ device: String) throws(StoreError) {
        let base = try deviceDatabase(device)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let path = base.path + suffix
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw StoreError.storage(path: path, reason: "cannot remove (\(CatalogLoader.reason(error)))")
            }
        }
    }
}

/// One SQLite file and its connection, with reads and writes whose errors name the file.
struct SQLiteFile: Sendable {
    let path: String
    let queue: DatabaseQueue
    /// A connection of its own that only reads `data_version`, so that a change stamp costs no
    /// turn on the queue (the App Store Server API reads one per request); opened on first use,
    /// so that a file nobody asks for stamps (a device's) costs no second connection.
    let stamps: StampReader

    init(url: URL, migrator: DatabaseMigrator) throws(StoreError) {
        path = url.path
        queue = try DatabaseOpener.open(url, migrator: migrator)
        stamps = StampReader(path: path)
    }
}

/// The server and device databases: each is one SQLite file read and written the same way.
protocol SQLiteBacked {
    var file: SQLiteFile { get }
}

extension SQLiteBacked {
    public var path: String { file.path }

    /// An IMMEDIATE transaction (GRDB's default for writers): two processes never deadlock.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        BlockingWatch.check("SQLite write \(file.path)")
        do {
            return try file.queue.write(body)
        } catch {
            throw DatabaseOpener.marked(DatabaseOpener.translate(error, path: file.path), path: file.path)
        }
    }

    /// A write whose commit is not fsynced on its own (synchronous = NORMAL for this transaction;
    /// WAL keeps it safe from a crashed process, a power cut may lose it). Only for records whose
    /// loss costs nothing but a repeat: a notification's delivery, which at-least-once allows (N4).
    func lightWrite<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        BlockingWatch.check("SQLite write \(file.path)")
        do {
            return try file.queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw DatabaseOpener.marked(DatabaseOpener.translate(error, path: file.path), path: file.path)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        BlockingWatch.check("SQLite read \(file.path)")
        do {
            return try file.queue.read(body)
        } catch {
            throw DatabaseOpener.marked(DatabaseOpener.translate(error, path: file.path), path: file.path)
        }
    }

    /// What changes whenever anything in the file may have changed: SQLite's `data_version` as a
    /// connection of its own sees it, so that commits by this process and by every other count.
    /// Two equal stamps mean nothing was committed in between.
    public func changeStamp() throws(StoreError) -> ChangeStamp {
        BlockingWatch.check("SQLite read \(file.path)")
        return try file.stamps.read()
    }
}

enum DatabaseOpener {
    /// Opens (creating if needed) a database in WAL mode with full fsync on commit, waiting for
    /// other processes' locks instead of failing (P3), and migrates it.
    static func open(_ url: URL, migrator: DatabaseMigrator) throws(StoreError) -> DatabaseQueue {
        let path = url.path
        // P4: a file that was reported corrupt stays refused until it is moved aside, or until a
        // good copy is put in its place.
        switch CorruptionMark.look(at: path) {
        case .none: break
        case .unchanged(let reason):
            throw .corruptDatabase(path: path, reason: reason + ", reported by an earlier command")
        case .changed:
            // Written since it was reported: a backup copied over it (`cp` keeps the file, and so
            // its inode), or the reporting command's last checkpoint. Checked whole, read-only, so
            // that nothing writes to it unless it is sound.
            if let damage = try damage(path) {
                CorruptionMark.set(for: path, reason: damage)
                throw .corruptDatabase(path: path, reason: damage)
            }
            CorruptionMark.clear(for: path)
        }
        if !FileManager.default.fileExists(atPath: path) {
            try create(url, migrator: migrator)
        } else if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
            // A new database is put in place whole (below), so an empty one was emptied: it is
            // corrupt, never silently a new device or a new store (P4).
            throw marked(.corruptDatabase(path: path, reason: "the file is empty (0 bytes)"), path: path)
        }
        do {
            return try queue(path, migrator: migrator)
        } catch {
            throw marked(translate(error, path: path), path: path)
        }
    }

    /// What SQLite's quick check finds wrong with the file at `path`, opened read-only (a
    /// read-only connection never checkpoints into the file); nil when it is sound. A check that
    /// cannot run (a lock held too long, a folder it cannot read) is that error, and the mark
    /// stays as it was, so that the next open checks again.
    static func damage(_ path: String) throws(StoreError) -> String? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(30)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            let findings = try queue.read { try String.fetchAll($0, sql: "PRAGMA quick_check") }
            return findings == ["ok"] ? nil : findings.prefix(3).joined(separator: "; ")
        } catch {
            let translated = translate(error, path: path)
            if case .corruptDatabase(_, let reason) = translated { return reason }
            throw translated
        }
    }

    /// A corruption error, remembered beside the file so that no later command writes to it.
    static func marked(_ error: StoreError, path: String) -> StoreError {
        if case .corruptDatabase(_, let reason) = error { CorruptionMark.set(for: path, reason: reason) }
        return error
    }

    /// Makes a new database at `url` whole: built and migrated under a temporary name, then
    /// linked into place (another process that made it first wins, and this one opens theirs).
    static func create(_ url: URL, migrator: DatabaseMigrator) throws(StoreError) {
        let path = url.path
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).new-\(UUID().uuidString)"
        ).path
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: temporary + suffix)
            }
        }
        // Created 0600 before SQLite sees it; SQLite gives its -wal and -shm files the same mode.
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw StoreError.storage(path: path, reason: "cannot create the database file")
        }
        do {
            let made = try queue(temporary, migrator: migrator)
            try made.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try made.close()
        } catch {
            throw translate(error, path: path)
        }
        if link(temporary, path) != 0, errno != EEXIST {
            throw StoreError.storage(
                path: path, reason: "cannot create the database file (\(String(cString: strerror(errno))))")
        }
    }

    static func queue(_ path: String, migrator: DatabaseMigrator) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        // WAL set by hand: GRDB's `.wal` setting creates and drops a table on every open to make
        // sure the -shm file exists, which bumps the schema cookie: a write by every command, even
        // one that changes nothing. The mode is persistent, so asking for it is enough.
        configuration.prepareDatabase { db in
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // Look before migrating: an up-to-date database is then only read.
        if try !queue.read({ try migrator.hasCompletedMigrations($0) }) {
            try migrator.migrate(queue)
        }
        return queue
    }

    static func translate(_ error: Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let corrupt = error as? CorruptValue { return .corruptDatabase(path: path, reason: corrupt.description) }
        if error is RowDecodingError { return .corruptDatabase(path: path, reason: "\(error)") }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT:
                return .corruptDatabase(path: path, reason: error.message ?? "\(error.resultCode)")
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
                return .storage(
                    path: path,
                    reason: "cannot write (\(error.message ?? "\(error.resultCode)")); check the folder's permissions")
            case .SQLITE_FULL, .SQLITE_IOERR:
                // What was committed is kept: a purchase cut here is finished by the next command.
                return .storage(
                    path: path,
                    reason:
                        "cannot write (\(error.message ?? "disk I/O error"): the disk may be full or a file size limit reached); what was already committed is kept and the next command completes it"
                )
            default:
                return .storage(path: path, reason: error.message ?? "\(error.resultCode)")
            }
        }
        return .storage(path: path, reason: "\(error)")
    }
}

/// P4: a database reported corrupt is marked (`FILE.corrupt`: the file's inode, size and
/// modification time, and the reason), and every later open refuses it with the same words while
/// it is that file unchanged, so that nothing writes to a file whose damage was seen once. Moved
/// aside or replaced (another inode), the mark is stale; written in place since (a good copy put
/// over it), the file is checked again before it is used.
enum CorruptionMark {
    enum Finding: Equatable {
        case none
        case unchanged(reason: String)
        case changed
    }

    static func markPath(_ path: String) -> String { path + ".corrupt" }

    /// "inode size seconds.nanoseconds" of the file at `path`.
    static func identity(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    static func set(for path: String, reason: String) {
        guard let identity = identity(path) else { return }
        let text = "\(identity)\n\(reason)\n"
        _ = FileManager.default.createFile(
            atPath: markPath(path), contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    }

    static func clear(for path: String) { try? FileManager.default.removeItem(atPath: markPath(path)) }

    /// Whether the file at `path` is the one that was reported, as it was then.
    static func look(at path: String) -> Finding {
        guard let text = try? String(contentsOfFile: markPath(path), encoding: .utf8) else { return .none }
        let lines = text.split(separator: "\n", maxSplits: 1).map(String.init)
        let marked = (lines.first ?? "").split(separator: " ").map(String.init)
        let current = identity(path)?.split(separator: " ").map(String.init) ?? []
        guard let inode = marked.first, current.first == inode else {
            // Moved aside or replaced: the mark is stale.
            clear(for: path)
            return .none
        }
        // A mark of an earlier version names the inode alone: the file is checked again.
        guard marked == current else { return .changed }
        return .unchanged(
            reason: lines.count > 1 ? lines[1].trimmingCharacters(in: .newlines) : "reported corrupt before")
    }
}

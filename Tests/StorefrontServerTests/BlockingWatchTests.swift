// The promise that the store's blocking work never runs on a Swift task's thread is
// watched at run time (BlockingWatch): these tests show the watch sees a call made inside a task
// and not one made on a thread of its own (as the server's blocking pool runs them), and that the
// server logs each kind once. The end-to-end tests run every `storefront serve` with
// STOREFRONT_STRICT_THREADS=1, so that one such call ends the server and fails them.
import Foundation
import Logging
import NIOPosix
import StoreCore
import StoreModel
import StorefrontServer
import TestSupport
import Testing

/// Log messages, kept.
struct KeptLog: LogHandler {
    let lines: Locked<[String]>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { lines.withLock { $0.append("\(event.message)") } }
}

@Suite("the blocking work watched", .serialized)
struct BlockingWatchTests {
    /// An embedded account server in `state`'s folder.
    func serverDatabase(_ state: TemporaryState) throws -> ServerDatabase {
        try FileManager.default.createDirectory(at: state.url, withIntermediateDirectories: true)
        return try ServerDatabase(url: state.directory.serverDatabase)
    }

    @Test("a database call inside a task is reported, one on the blocking pool is not")
    func taskOrPool() async throws {
        let state = TemporaryState()
        let database = try serverDatabase(state)
        let reports = Locked<[String]>([])
        BlockingWatch.report { what in reports.withLock { $0.append(what) } }
        defer { BlockingWatch.report(to: nil) }
        // Other tests of this process run beside this one: only this database's reports count.
        func mine() -> [String] { reports.withLock { $0 }.filter { $0.contains(state.directory.serverDatabase.path) } }

        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        _ = try await pool.runIfActive { try database.families() }
        try await pool.shutdownGracefully()
        #expect(mine().isEmpty, "the blocking pool is where the work belongs: \(mine())")

        _ = try database.families()
        #expect(mine() == ["SQLite read \(state.directory.serverDatabase.path)"])

        // scrypt, at a cost no other test uses.
        _ = PasswordHasher(cost: 1 << 3).verify("password", against: try PasswordHasher(cost: 1 << 3).hash("password"))
        #expect(reports.withLock { $0 }.filter { $0 == "scrypt (N = 8)" }.count == 2)
    }

    @Test(
        "a reporter called after 200,000 checks is the one installed: the server checks on every query for as long as it runs"
    )
    func manyChecks() async {
        let count = Locked(0)
        BlockingWatch.report { what in if what == "many" { count.withLock { $0 += 1 } } }
        defer { BlockingWatch.report(to: nil) }
        // Kept in a generic Locked, the reporter grew by two thunks a check and overflowed the
        // stack when called after ~100,000 of them.
        for _ in 0..<200_000 { BlockingWatch.check("many") }
        #expect(count.withLock { $0 } == 200_000)
    }

    @Test("the server logs each kind of call on a task's thread once")
    func serverLogsOnce() async throws {
        let state = TemporaryState()
        let database = try serverDatabase(state)
        let lines = Locked<[String]>([])
        ServerApplication.watchBlockingCalls(
            logger: Logger(label: "watch") { _ in KeptLog(lines: lines) }, strict: false)
        defer { BlockingWatch.report(to: nil) }
        for _ in 0..<3 { _ = try database.families() }
        let mine = lines.withLock { $0 }.filter { $0.contains(state.directory.serverDatabase.path) }
        #expect(
            mine == [
                "SQLite read \(state.directory.serverDatabase.path) ran on a Swift task's thread, not the blocking pool"
            ])
    }
}

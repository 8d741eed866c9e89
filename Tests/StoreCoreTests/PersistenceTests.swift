// P1–P3: SQLite state that survives crashes and is never silently replaced.
import Foundation
import GRDB
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Persistence")
struct PersistenceTests {
    @Test("P1 state survives closing and reopening")
    func survivesReopen() throws {
        let state = TemporaryState()
        do {
            let store = try state.signedIn("ann")
            try store.queue.buy("comic.a")
            try store.queue.buy("pack")
            try store.queue.setPolicy(.defer)
        }
        let reopened = try state.store()
        #expect(try reopened.accounts.currentUser() == "ann")
        #expect(try reopened.entitlements.status().owned == ["comic.a"])
        #expect(try reopened.entitlements.status().randomViewsRemaining == 5)
        #expect(try reopened.queue.policy() == .defer)
    }

    @Test("P1 a state folder from before auto-renewable plans upgrades in place: its receipt and expiry are kept")
    func upgradesFromFirstSchema() throws {
        let state = TemporaryState()
        try state.directory.prepare()
        // The server as the first release left it: only the v1 tables.
        let queue = try DatabaseQueue(path: state.directory.serverDatabase.path)
        try ServerDatabase.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO receipt (transactionID, account, productID, kind, quantity, months, bonusDays, purchaseDate, device)
                    VALUES ('0123456789abcdef', 'ann', 'sub3', 'nonRenewingSubscription', 0, 3, 1, ?, 'phone');
                    INSERT INTO subscription (account, expiry) VALUES ('ann', ?);
                    """, arguments: [startDate.storeSeconds, utc(2026, 4, 16, 12).storeSeconds])
        }
        try queue.close()
        let server = try ServerDatabase(url: state.directory.serverDatabase)
        let receipt = try server.receipt(account: "ann")
        #expect(receipt.map(\.event) == [.purchase] && receipt.first?.months == 3 && receipt.first?.group == nil)
        #expect(try server.storedExpiry(account: "ann") == utc(2026, 4, 16, 12))
        #expect(try server.plans(account: "ann").isEmpty)
        #expect(SubscriptionMath.recomputeExpiry(from: receipt, calendar: utcCalendar) == utc(2026, 4, 16, 12))
    }

    @Test("P2 a corrupt device database is reported and left untouched", arguments: ["device", "server"])
    func corrupt(which: String) throws {
        let state = TemporaryState()
        try state.directory.prepare()
        let file = which == "device" ? try state.directory.deviceDatabase("phone") : state.directory.serverDatabase
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: file)
        let failure = error { try state.store() }
        guard case .corruptDatabase(let path, _) = failure else {
            Issue.record("expected corruptDatabase, got \(String(describing: failure))")
            return
        }
        #expect(path == file.path)
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test(
        "P2 a device setting stored as something it cannot be is a corrupt database, never its default",
        arguments: [
            ("policy", "approve-ish"), ("refundPolicy", "sometimes"), ("planLinesSeen:ann", "-3"),
            ("serverSessions", "{not json"),
        ])
    func corruptSetting(key: String, value: String) throws {
        let state = TemporaryState()
        do {
            let store = try state.signedIn("ann")
            try store.queue.buy("comic.a")
        }
        let file = try state.directory.deviceDatabase("phone")
        let queue = try DatabaseQueue(path: file.path)
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
        }
        try queue.close()
        let before = try Data(contentsOf: file)
        let failure = error {
            let store = try state.store()
            _ = try store.queue.policy()
            _ = try store.refunds.policy()
            _ = try store.queue.recover()
        }
        guard case .corruptDatabase(let path, let reason) = failure else {
            Issue.record("\(key): expected corruptDatabase, got \(String(describing: failure))")
            return
        }
        #expect(path == file.path && reason.contains("meta") && reason.contains(value), "\(reason)")
        #expect(try Data(contentsOf: file) == before, "left as it was")
    }

    @Test(
        "P4 an emptied database is corrupt, never a fresh one; once reported, it stays refused until moved aside",
        arguments: ["device", "server"])
    func emptied(which: String) throws {
        let state = TemporaryState()
        do {
            let store = try state.store()
            try store.queue.buy("pack")
        }
        let file = which == "device" ? try state.directory.deviceDatabase("phone") : state.directory.serverDatabase
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        try Data().write(to: file)
        for attempt in 1...2 {
            let failure = error { try state.store() }
            guard case .corruptDatabase(let path, let reason) = failure else {
                Issue.record("attempt \(attempt): expected corruptDatabase, got \(String(describing: failure))")
                return
            }
            #expect(path == file.path && reason.contains("empty"), "attempt \(attempt): \(reason)")
            #expect(try Data(contentsOf: file).isEmpty, "left untouched")
        }
        // Moved aside, the next open starts afresh.
        try FileManager.default.moveItem(at: file, to: file.appendingPathExtension("aside"))
        _ = try state.store()
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(!FileManager.default.fileExists(atPath: file.path + ".corrupt"))
    }

    @Test(
        "P4 a database once found corrupt is refused by every later open, even when its damage does not show at opening"
    )
    func markedCorrupt() throws {
        let state = TemporaryState()
        do { _ = try state.store() }
        let file = try state.directory.deviceDatabase("phone")
        CorruptionMark.set(for: file.path, reason: "database disk image is malformed")
        let failure = error { try state.store() }
        guard case .corruptDatabase(_, let reason) = failure else {
            Issue.record("expected corruptDatabase, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("malformed") && reason.contains("earlier command"))
        // Replaced by another file (another inode): the mark no longer applies.
        let copy = file.appendingPathExtension("copy")
        try FileManager.default.copyItem(at: file, to: copy)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.moveItem(at: copy, to: file)
        _ = try state.store()
    }

    @Test(
        "P4 a good copy put over a reported database in place (as cp does, keeping its inode) is used again; a damaged one is refused again",
        arguments: ["device", "server"])
    func goodCopyInPlace(which: String) throws {
        let state = TemporaryState()
        do {
            let store = try state.signedIn("ann")
            try store.queue.buy("comic.a")
        }
        let file = which == "device" ? try state.directory.deviceDatabase("phone") : state.directory.serverDatabase
        // The backup a careful person keeps: SQLite's own copy of the whole database.
        let backup = state.directory.url.appendingPathComponent("backup.sqlite")
        do {
            let source = try DatabaseQueue(path: file.path)
            let destination = try DatabaseQueue(path: backup.path)
            try source.backup(to: destination)
            try source.close()
            try destination.close()
        }
        let good = try Data(contentsOf: backup)
        let inode = CorruptionMark.identity(file.path)?.split(separator: " ").first
        // Written over in place, so that the file keeps its inode; its modification time is set
        // apart from the last one, as a copy made later has, whatever the clock's grain.
        var stamp = 1_000_000.0
        func overwrite(_ data: Data) throws {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: data)
            try handle.close()
            stamp += 10
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: stamp)], ofItemAtPath: file.path)
            #expect(
                CorruptionMark.identity(file.path)?.split(separator: " ").first == inode, "the same file, written over")
        }
        let garbage = Data((0..<good.count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try overwrite(garbage)
        for attempt in 1...2 {
            guard case .corruptDatabase(_, let reason) = error({ try state.store() }) else {
                Issue.record("attempt \(attempt): the damaged file was not refused")
                return
            }
            #expect(attempt == 1 || reason.contains("earlier command"), "\(reason)")
        }
        #expect(try Data(contentsOf: file) == garbage, "left untouched")
        // Damaged in another way since it was reported: checked again, and refused in its own words.
        var torn = good
        torn.replaceSubrange(good.count / 2..<good.count, with: garbage.prefix(good.count - good.count / 2))
        try overwrite(torn)
        guard case .corruptDatabase(_, let reason) = error({ try state.store() }) else {
            Issue.record("a file damaged again since its mark was not refused")
            return
        }
        #expect(!reason.contains("earlier command"), "checked again, not refused on the old mark: \(reason)")
        #expect(try Data(contentsOf: file) == torn, "left untouched")
        // The good copy put in its place: used again, with what it holds, and the mark is gone.
        try overwrite(good)
        let store = try state.store()
        #expect(try store.entitlements.status().owned == ["comic.a"])
        #expect(!FileManager.default.fileExists(atPath: file.path + ".corrupt"))
    }

    @Test("P2 a truncated database is reported, not replaced")
    func truncated() throws {
        let state = TemporaryState()
        do {
            let store = try state.store()
            for _ in 0..<20 { try store.queue.buy("pack") }
        }
        let file = try state.directory.deviceDatabase("phone")
        // Fold the WAL into the main file, then cut the file in the middle of a page.
        let full = try Data(contentsOf: file)
        if full.count > 4096 {
            try full.prefix(full.count / 2 + 100).write(to: file)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
            do {
                let store = try state.store()
                _ = try store.queue.history()
                _ = try store.entitlements.status()
            } catch let error as StoreError {
                switch error {
                case .corruptDatabase, .storage: break
                default: Issue.record("a torn file is storage trouble (exit status 3), not \(error)")
                }
            }
        }
    }

    @Test("P3 two stores on one device at once lose nothing")
    func concurrentStores() async throws {
        let state = TemporaryState()
        _ = try state.store()
        let directory = state.directory
        let clock = state.clock
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let store = try Store(
                        stateDirectory: directory, device: "phone", catalog: testCatalog, clock: clock,
                        calendar: utcCalendar, passwordHasher: .fastForTests
                    )
                    for _ in 0..<10 {
                        try store.queue.buy("pack")
                        _ = try? store.randomComics.show()
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = try state.store()
        #expect(try store.queue.history().count == 40)
        #expect(try store.queue.history().allSatisfy(\.isFinished))
        // 40 packs of 5, 40 views used (a view never fails while any are left).
        #expect(try store.entitlements.status().randomViewsRemaining == 160)
    }

    @Test("A change stamp moves with every commit, by this connection or another, and stays while nothing is committed")
    func changeStamps() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        let server = store.server
        let before = try server.changeStamp()
        #expect(try server.changeStamp() == before)
        _ = try server.receipt(account: "ann")
        #expect(try server.changeStamp() == before, "a read changes nothing")
        try store.queue.buy("pack")
        let afterPurchase = try server.changeStamp()
        #expect(afterPurchase != before)
        let other = try ServerDatabase(url: state.directory.serverDatabase)
        try other.setWebhook(Webhook(url: "http://127.0.0.1:9/hook"))
        #expect(try server.changeStamp() != afterPurchase, "a commit through another connection")
        let afterOther = try server.changeStamp()
        try store.records.recordRequests([
            ServedRequest(at: Date(), method: "GET", path: "/", status: 200, milliseconds: 1)
        ])
        #expect(try server.changeStamp() != afterOther, "a light write is a commit too")
    }

    @Test(
        "A change stamp is SQLite's data_version through a connection of its own: moved by every commit, through this connection or another, and across a truncating checkpoint; a read moves nothing"
    )
    func stampsFromDataVersion() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        let server = try ServerDatabase(url: state.directory.serverDatabase)
        var seen: Set<ChangeStamp> = []
        var last = try server.changeStamp()
        func step(_ what: String) throws {
            let stamp = try server.changeStamp()
            #expect(stamp != last, "\(what): the stamp moved")
            #expect(seen.insert(stamp).inserted, "\(what): a stamp not seen before")
            last = stamp
        }
        seen.insert(last)
        _ = try server.receipt(account: "ann")
        #expect(try server.changeStamp() == last, "a read changes nothing")
        try store.queue.buy("pack")
        try step("a purchase through another connection")
        try server.setWebhook(Webhook(url: "http://127.0.0.1:9/hook"))
        try step("a write through this one")
        let other = try ServerDatabase(url: state.directory.serverDatabase)
        try other.file.queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        // Whether a checkpoint moves it is SQLite's affair; what follows still does.
        last = try server.changeStamp()
        seen.insert(last)
        for _ in 0..<3 {
            try store.queue.buy("pack")
            try step("one more purchase")
        }
    }

    @Test(
        "Reading the change stamp keeps SQLite's locks on the -shm file: a descriptor of its own, once closed, would drop them all, and another process would then rebuild the file under this one (a bus error in P3's storm)",
        .tags(.python), .notInFastRun
    )
    func stampKeepsLocks() throws {
        let state = TemporaryState()
        _ = try state.signedIn("ann")
        let server = try ServerDatabase(url: state.directory.serverDatabase)
        let shm = state.directory.serverDatabase.path + "-shm"
        /// The process another process finds holding the -shm file's dead-man byte (128, SQLite's
        /// UNIX_SHM_DMS), which SQLite locks shared while the file is in use: F_GETLK, asked by a
        /// process of its own (a descriptor opened and closed here would drop the very locks under
        /// test). One system call, where a reading of /proc/locks is a page at a time and other
        /// tests' locks shift the list between pages.
        func holder() throws -> Int32 {
            let process = Process()
            process.executableURL = try TestTools.python()
            process.arguments = [
                TestTools.repositoryRoot.appendingPathComponent("Tests/Python/lock_holder.py").path, shm, "128",
            ]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return try #require(
                Int32(printed.trimmingCharacters(in: .whitespacesAndNewlines)), "lock_holder.py printed \(printed)")
        }
        /// This process's descriptors on the -shm file, named if the lock is ever missing.
        func descriptors() -> [String] {
            let folder = "/proc/self/fd"
            return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { entry in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")) == shm
            }
        }
        _ = try server.changeStamp()
        #expect(
            try holder() == getpid(),
            "SQLite's shared lock on the -shm file, which tells other processes it is in use; this process's descriptors on it: \(descriptors())"
        )
        withExtendedLifetime(server) {}
    }
}

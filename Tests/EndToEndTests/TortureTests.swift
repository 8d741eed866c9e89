// Proof that nothing is lost: purchases on two devices of one account, each process killed with
// SIGKILL at a random moment (seeded), then the invariants (P1, Q3, R4, A6). Nothing asserted depends on
// how fast the machine is: where the kills land only changes which states are checked.
import Foundation
import GRDB
import StoreCore
import StoreModel
import TestSupport
import Testing

@Suite("torture", .serialized, .tags(.slow), .notInFastRun)
struct TortureTests {
    /// Starts `storefront ARGUMENTS`, kills it with SIGKILL after `microseconds` if still running.
    /// Returns how it ended: killed by the test, or exited with its status.
    func killed(_ session: Session, _ arguments: [String], after microseconds: UInt32?, crashAt point: String?)
        async throws -> (killed: Bool, status: Int32)
    {
        // Some processes also die at a named crash point: the windows a random kill rarely hits.
        let environment = session.environment.merging(point.map { ["STOREFRONT_FAULT": "crash-at:\($0)"] } ?? [:]) {
            $1
        }
        let ended = try await runProgram(
            storefrontBinary, arguments, environment: environment,
            killAfter: microseconds.map { .microseconds(Int($0)) })
        return (ended.signalled, ended.status)
    }

    /// The seed of the storm: $STOREFRONT_TORTURE_SEED replays a failed run.
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["STOREFRONT_TORTURE_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)

    @Test(
        "P1 Q3 a seeded soak of SIGKILLs at random moments: every purchase delivered exactly once, balances and expiry exact, databases intact"
    )
    func crashConsistency() async throws {
        let seed = Self.seed
        let replay = Comment(rawValue: "replay with STOREFRONT_TORTURE_SEED=\(seed)")
        let session = try await Session()
        try await session.signUp("alice", device: "phone")
        try await session.signIn("alice", device: "tablet")
        var generator = SeededGenerator(seed: seed)
        let products = [
            "com.storefront.randomviews", "com.storefront.randomviews", "com.storefront.randomviews",
            "com.storefront.sub.3months", "com.storefront.sub.6months",
            "com.storefront.comic.nightshift", "com.storefront.comic.catjudge", "com.storefront.comic.moonpizza",
        ]
        var packsSeenPurchased = 0
        for round in 0..<240 {
            let device = round % 2 == 0 ? "phone" : "tablet"
            let product = products.randomElement(using: &generator)!
            var arguments = ["buy", product, "--device", device]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: arguments += ["--outcome", "defer"]
            case 1: arguments = ["pending", "--device", device]  // recovery alone, killed too
            case 2: arguments = ["restore", "--device", device]
            default: break
            }
            if round % 7 == 6,
                let waiting = try await session.array(["pending", "--device", device]).first?["id"] as? String
            {
                arguments = ["approve", waiting, "--device", device]
            }
            let points = CrashPoint.allCases.map(\.rawValue)
            let point = Int.random(in: 0..<4, using: &generator) == 0 ? points.randomElement(using: &generator) : nil
            // One round in four runs to its end unless a crash point stops it, so that the soak
            // proves something whatever the machine's speed; the rest are killed at a random moment.
            let delay = round % 4 == 3 ? nil : UInt32.random(in: 5_000...250_000, using: &generator)
            let ended = try await killed(session, arguments, after: delay, crashAt: point)
            // Only a plain `buy` of a pack counts: an `approve` round (also four words) may approve
            // a deferred comic while this round's product happens to be a pack.
            if !ended.killed, ended.status == 0, arguments.count == 4, arguments[0] == "buy",
                product == "com.storefront.randomviews"
            {
                packsSeenPurchased += 1
            }
            if round % 20 == 19 {
                try await session.run(["clock", "advance", "\(Int.random(in: 1...40, using: &generator))d"])
                    .expectSuccess()
            }
        }
        let completedPacks = try await checkInvariants(session, devices: ["phone", "tablet"], replay)
        // Every pack a finished command reported bought is there (the invariants check each is
        // credited exactly once).
        #expect(completedPacks >= packsSeenPurchased, replay)
    }

    /// After the storm: the next command finishes what was left, then every invariant is checked.
    /// Returns how many packs were bought, so that a caller can tell the run proved something.
    func checkInvariants(_ session: Session, devices: [String], _ replay: Comment? = nil) async throws -> Int {
        var completedPacks = 0
        for device in devices {
            try await session.run(["restore", "--device", device]).expectSuccess()
            let history = try await session.array(["history", "--device", device])
            let delivered = history.filter { ["purchased", "restored"].contains($0["state"] as? String) }
            #expect(
                delivered.allSatisfy { $0["finished"] as? Bool == true }, "unfinished on \(device); \(replay ?? "")")
            #expect(
                !history.contains { $0["state"] as? String == "purchasing" && $0["dueAt"] is NSNull },
                "a purchase stuck in purchasing on \(device)")
            let packs = history.filter {
                $0["product"] as? String == "com.storefront.randomviews" && $0["state"] as? String == "purchased"
            }
            completedPacks += packs.count
            let status = try await session.object(["status", "--device", device])
            // R4: the balance is exactly the approved packs of this device, never credited twice.
            #expect(
                status["randomViewsRemaining"] as? Int == 5 * packs.count,
                "\(device): \(packs.count) packs; \(replay ?? "")")
            let receipt = try await session.object(["receipt", "--device", device])
            #expect(receipt["consistent"] as? Bool == true, "\(replay ?? "")")
            #expect(receipt["deviceExpiry"] as? String == receipt["storedExpiry"] as? String)
            // Every purchase this device saw reach `purchased` is on the account's receipt, once;
            // a comic the account already owned is that purchase (W10: its original), not a second line.
            let entries = try #require(receipt["entries"] as? [[String: Any]])
            let receiptIDs = entries.compactMap { $0["id"] as? String }
            #expect(Set(receiptIDs).count == receiptIDs.count)
            for transaction in history where transaction["state"] as? String == "purchased" {
                let id = transaction["id"] as? String ?? ""
                let original = transaction["originalID"] as? String
                #expect(
                    receiptIDs.contains(id) || original.map(receiptIDs.contains) == true,
                    "missing from the receipt: \(transaction)")
            }
        }
        for file in ["server.sqlite"] + devices.map({ "devices/\($0).sqlite" }) {
            let queue = try DatabaseQueue(path: session.stateDirectory.appendingPathComponent(file).path)
            #expect(try await queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok", "\(file)")
        }
        return completedPacks
    }

    @Test("P3 several processes buying, approving and restoring on one account and one device at once")
    func concurrency() async throws {
        let session = try await Session()
        try await session.signUp("alice", device: "phone")
        let environment = session.environment
        let folder = session.stateDirectory
        let failures = await withTaskGroup { group in
            for worker in 0..<4 {
                group.addTask { await Self.work(worker, in: folder, environment: environment) }
            }
            return await group.reduce([], +)
        }
        #expect(failures.isEmpty, "\(failures)")
        let packs = try await checkInvariants(session, devices: ["phone"])
        #expect(packs >= 12)
    }

    /// One of `concurrency`'s workers: twelve rounds of commands in its own process each time; what went wrong.
    static func work(_ worker: Int, in folder: URL, environment: [String: String]) async -> [String] {
        var failures: [String] = []
        let shell: Session
        do {
            shell = try Session(sharing: folder, environment: environment)
        } catch {
            return ["worker \(worker) could not start: \(error)"]
        }
        for round in 0..<12 {
            let arguments: [String]
            switch (worker + round) % 4 {
            case 0: arguments = ["buy", "com.storefront.randomviews", "--device", "phone"]
            case 1: arguments = ["buy", "com.storefront.sub.3months", "--device", "phone"]
            case 2:
                arguments = ["buy", "com.storefront.randomviews", "--device", "phone", "--outcome", "defer"]
            default:
                // Approve whatever is waiting (another worker may get there first), or restore.
                let waiting =
                    (try? await shell.run(["pending", "--json", "--device", "phone"]).array())?.first?["id"]
                    as? String
                arguments =
                    waiting.map { ["approve", $0, "--device", "phone"] } ?? ["restore", "--device", "phone"]
            }
            let result: RunResult
            do {
                result = try await shell.run(arguments)
            } catch {
                failures.append("\(arguments) could not run: \(error)")
                continue
            }
            // Losing a race to approve is a clean refusal (exit 1, "not waiting"), nothing else.
            if result.status != 0, !result.stderr.contains("not waiting for approval") {
                failures.append("\(arguments): \(result)")
            }
        }
        return failures
    }
}

@Suite("bad input corpus", .serialized)
struct BadInputTests {
    /// The bytes of every database in the state folder.
    func databases(_ session: Session) async throws -> [String: Data] {
        var result: [String: Data] = [:]
        let root = session.stateDirectory
        for file in ["server.sqlite", "devices/default.sqlite"] {
            let path = root.appendingPathComponent(file).path
            // Fold the WAL into the file first so that the comparison sees everything.
            let queue = try DatabaseQueue(path: path)
            _ = try await queue.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try queue.close()
            result[file] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return result
    }

    @Test("absurd arguments: a clear line, a non-zero exit, and the databases byte-identical")
    func absurdArguments() async throws {
        let session = try await Session()
        try await session.signUp("alice")
        try await session.run(["buy", "com.storefront.randomviews"]).expectSuccess()
        let before = try await databases(session)
        let cases: [[String]] = [
            ["buy", ""], ["buy", String(repeating: "x", count: 10_000)], ["approve", ""], ["status", "--device", ""],
            ["clock", "advance", "99999999d"], ["clock", "advance", "-1d"], ["clock", "set", "0000-99-99"],
            ["clock", "rate", "0"], ["clock", "rate", "1e308"], ["policy", "set", "delay=:approve"],
            ["buy", "com.storefront.randomviews", "--outcome", "fail="], ["show-image", "/nonexistent.png"],
            ["show-image", "/etc/hostname", "--width", "0"], ["status", "--clock", "warp"],
            ["products", "--catalog", "/nonexistent.json"], ["status", "--device", "a/b"],
            ["account", "signup", "bad name"], ["account", "signup", String(repeating: "n", count: 65)],
            ["refund", ""], ["refund", "zzzz"], ["cancel", ""], ["force-renew", "com.storefront.comic.nightshift"],
            ["grace", "0d"], ["grace", "999d"], ["billing", "maybe"], ["products", "--months", "x=0"],
            ["products", "--months", "com.storefront.sub.3months=4"], ["products", "--locale", ""],
            ["products", "--catalog", "/"], ["products", "--catalog", "/dev/null"],
            ["subscriptions", "--catalog", "/nonexistent.storekit"],
        ]
        for arguments in cases {
            let result = try await session.run(arguments)
            #expect(result.status != 0, "\(arguments) succeeded")
            #expect(!result.signalled, "\(arguments) crashed")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count >= 1 && lines.count <= 4, "\(arguments): \(result.stderr)")
        }
        let after = try await databases(session)
        for (file, bytes) in before {
            let changed = zip(bytes, after[file] ?? Data()).enumerated().filter { $0.element.0 != $0.element.1 }.map(
                \.offset)
            #expect(
                bytes == after[file],
                "\(file): \(bytes.count) → \(after[file]?.count ?? 0) bytes, differing at \(changed.prefix(12))")
        }
    }

    @Test("a garbage or truncated server database is reported with exit 3 and left as it was")
    func brokenServer() async throws {
        let session = try await Session()
        try await session.signUp("alice")
        try await session.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        let file = session.stateDirectory.appendingPathComponent("server.sqlite")
        _ = try await databases(session)
        let whole = try Data(contentsOf: file)
        for broken in [whole.prefix(whole.count / 3), Data(repeating: 0x00, count: 4096) + whole.dropFirst(4096)] {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
            try broken.write(to: file)
            let result = try await session.run(["status"])
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr.contains("server.sqlite"), "\(result.stderr)")
            #expect(try Data(contentsOf: file) == broken)
        }
    }
}

extension TortureTests {
    @Test("a full disk, simulated by a file size limit: a clear error, exit 3, and nothing lost")
    func fullDisk() async throws {
        let session = try await Session()
        try await session.signUp("alice", device: "phone")
        try await session.run(["buy", "com.storefront.randomviews", "--device", "phone"]).expectSuccess()
        // The shell ignores SIGXFSZ so that writes past the limit fail with EFBIG instead of killing.
        let script = session.stateDirectory.appendingPathComponent("limited.sh")
        let command = "'\(storefrontBinary.path)' buy com.storefront.randomviews --device phone"
        try
            "trap '' XFSZ\nulimit -f 100\nfor i in $(seq 1 60); do \(command) >/dev/null 2>>\"$0.err\" || exit $?; done\n"
            .write(to: script, atomically: true, encoding: .utf8)
        let limited = try await runProgram(
            URL(fileURLWithPath: "/bin/sh"), [script.path], environment: session.environment)
        #expect(!limited.signalled && limited.status == 3, "\(limited)")
        let errors = try String(contentsOf: URL(fileURLWithPath: script.path + ".err"), encoding: .utf8)
        #expect(errors.contains("cannot write"), "\(errors)")
        #expect(errors.contains("the next command completes it"), "\(errors)")
        #expect(errors.split(separator: "\n").count == 1, "\(errors)")
        // Without the limit, the next command finishes what was cut, and every invariant holds.
        _ = try await checkInvariants(session, devices: ["phone"])
    }
}

extension BadInputTests {
    /// Runs the binary as someone the folder's permissions apply to: as itself, or, when the tests
    /// run as root (whom permissions do not stop), as nobody through util-linux's setpriv.
    func runUnprivileged(_ session: Session, _ arguments: [String]) async throws -> RunResult {
        let environment = session.environment.merging(["HOME": "/tmp"]) { $1 }
        guard getuid() == 0 else { return try await runProgram(storefrontBinary, arguments, environment: environment) }
        return try await runProgram(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", storefrontBinary.path] + arguments,
            environment: environment)
    }

    @Test("a read-only state folder: a clear line naming the file, exit 3, and every byte left as it was")
    func readOnlyStateFolder() async throws {
        #expect(
            getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "setpriv (util-linux) is needed to drop root")
        let session = try await Session()
        try await session.signUp("alice")
        try await session.run(["buy", "com.storefront.randomviews"]).expectSuccess()
        let before = try await databases(session)
        let files =
            [session.stateDirectory]
            + (FileManager.default.enumerator(at: session.stateDirectory, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL } ?? [])
        for file in files.reversed() {
            let isFolder = (try? file.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            try FileManager.default.setAttributes(
                [.posixPermissions: isFolder ? 0o555 : 0o444], ofItemAtPath: file.path)
        }
        defer {
            for file in files {
                let isFolder = (try? file.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
                try? FileManager.default.setAttributes(
                    [.posixPermissions: isFolder ? 0o755 : 0o644], ofItemAtPath: file.path)
            }
        }
        for arguments in [
            ["buy", "com.storefront.randomviews"], ["status"], ["clock", "advance", "1d"],
            ["account", "signup", "bob"],
        ] {
            let result = try await runUnprivileged(session, arguments)
            #expect(result.status == 3, "\(arguments): \(result)")
            let lines = result.stderr.split(separator: "\n")
            #expect(
                lines.count == 1 && lines[0].contains("check the folder's permissions"),
                "\(arguments): \(result.stderr)")
        }
        for file in files { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path) }
        #expect(try await databases(session) == before)
    }
}

extension BadInputTests {
    struct StoredValue: CustomTestStringConvertible, Sendable {
        let file: String, table: String, column: String, value: String, command: [String]
        var plans = false
        /// Which setting row is corrupted (the `setting` table).
        var key = "billing"
        var testDescription: String { "\(table).\(column) = \(value)" }
    }

    static let storedValues: [StoredValue] = [
        StoredValue(
            file: "devices/default.sqlite", table: "txn", column: "kind", value: "'gift'", command: ["history"]),
        StoredValue(
            file: "devices/default.sqlite", table: "txn", column: "state", value: "'limbo'", command: ["history"]),
        StoredValue(
            file: "devices/default.sqlite", table: "txn", column: "reason", value: "'tired'", command: ["history"]),
        StoredValue(
            file: "devices/default.sqlite", table: "txn", column: "finished", value: "'yes'", command: ["history"]),
        StoredValue(
            file: "devices/default.sqlite", table: "event", column: "state", value: "'limbo'", command: ["history"]),
        StoredValue(
            file: "devices/default.sqlite", table: "event", column: "reason", value: "'tired'", command: ["history"]),
        StoredValue(
            file: "devices/default.sqlite", table: "meta", column: "value", value: "'sometimes'", command: ["status"]),
        StoredValue(file: "server.sqlite", table: "receipt", column: "kind", value: "'gift'", command: ["receipt"]),
        StoredValue(
            file: "server.sqlite", table: "receipt", column: "event", value: "'bonus'", command: ["receipt"],
            plans: true),
        StoredValue(
            file: "server.sqlite", table: "receipt", column: "offer", value: "'halfPrice'", command: ["receipt"],
            plans: true),
        StoredValue(
            file: "server.sqlite", table: "receipt", column: "price", value: "'cheap'", command: ["receipt"],
            plans: true),
        StoredValue(
            file: "server.sqlite", table: "plan", column: "state", value: "'{}'", command: ["status"], plans: true),
        StoredValue(
            file: "server.sqlite", table: "clock", column: "setting", value: "'{\"mode\":\"warp\"}'",
            command: ["status"]),
        StoredValue(
            file: "server.sqlite", table: "setting", column: "value", value: "'{\"failing\":\"maybe\"}'",
            command: ["subscriptions"], plans: true),
        StoredValue(
            file: "server.sqlite", table: "setting", column: "value", value: "'{\"Purchase\":\"StoreKitError.tired\"}'",
            command: ["buy", "com.storefront.randomviews"], key: "simulatedErrors"),
    ]

    @Test(
        "P2 a value Storefront never writes, in any enum or JSON column, exits 3 naming the table and column; nothing is rewritten",
        arguments: storedValues)
    func unknownStoredValue(_ example: StoredValue) async throws {
        let session = try await Session()
        if example.plans {
            session.environment["STOREFRONT_CATALOG"] =
                repositoryRoot.appendingPathComponent("assets/selfies.json").path
        }
        try await session.signUp("alice")
        try await session.run(["policy", "set", "approve"]).expectSuccess()
        try await session.run(["billing", "ok"]).expectSuccess()
        let product = example.plans ? "com.storefront.selfies.sub.allaccess.monthly" : "com.storefront.randomviews"
        try await session.run(["buy", product]).expectSuccess()
        try await session.run(["errors", "set", "app-transaction", "networkError"]).expectSuccess()
        let path = session.stateDirectory.appendingPathComponent(example.file).path
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            let filter =
                example.table == "meta"
                ? " WHERE key = 'policy'" : example.table == "setting" ? " WHERE key = '\(example.key)'" : ""
            try db.execute(sql: "UPDATE \(example.table) SET \(example.column) = \(example.value)\(filter)")
            #expect(db.changesCount >= 1, "nothing to corrupt in \(example.table)")
        }
        _ = try await queue.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try await session.run(example.command)
        #expect(result.status == 3, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(
            lines.count == 1 && lines[0].contains("\(example.table).\(example.column)")
                && lines[0].contains(example.file), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

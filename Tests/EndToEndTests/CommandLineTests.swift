// The `storefront` binary driven as a script would drive it (L1, L2), through the issue's scenarios.
import Foundation
import TestSupport
import Testing

@Suite("storefront command line", .serialized)
struct CommandLineTests {
    let comic = "com.storefront.comic.nightshift"
    let pack = "com.storefront.randomviews"
    let threeMonths = "com.storefront.sub.3months"
    let sixMonths = "com.storefront.sub.6months"

    @Test("L1 products lists the catalog in order with each row's action")
    func products() async throws {
        let session = try await Session()
        let rows = try await session.array(["products"])
        #expect(rows.count == 11)
        let first = rows[0]
        #expect(first["id"] as? String == comic)
        #expect(first["kind"] as? String == "nonConsumable")
        #expect(first["price"] as? String == "0.99")
        #expect(first["currency"] as? String == "USD")
        #expect(first["displayPrice"] as? String == "$0.99")
        #expect(first["action"] as? String == "buy")
        #expect(rows.map { $0["action"] as? String }.suffix(2) == ["signInRequired", "signInRequired"])
        for row in rows {
            for key in ["id", "kind", "title", "description", "price", "currency", "displayPrice", "action"] {
                #expect(row[key] != nil, "missing \(key)")
            }
        }
    }

    @Test(
        "L2 every subcommand that opens a store takes the catalog, the device, the state folder, the user, the outcome policy and the clock; the few that open none are named here; every one refuses an unknown option in one line, exit 2",
        .tags(.slow), .notInFastRun
    )
    func commonOptions() async throws {
        let session = try await Session()
        let options = ["--catalog", "--device", "--state-dir", "--user", "--outcome", "--clock"]
        // Subcommands that open no store of a state folder, and why.
        let storeless: [String: Set<String>] = [
            "catalog check": ["--catalog"],  // reads a file
            "scenario check": ["--catalog"],  // each scenario plays in a state folder of its own
            "scenario play": ["--catalog"],
            "scenario record": ["--catalog"],
            "scenario list": ["--catalog"],
            "show-image": [],  // draws a PNG
            "developer-token": ["--state-dir"],  // the server's token, kept in its state folder
            "shared-secret": ["--state-dir"],  // the app's shared secrets, kept in the server's state folder
            "crash-points": [],  // lists the points a crash can be simulated at
        ]
        var complete = 0
        var named = 0
        var seen: [String: Set<String>] = [:]
        func walk(_ path: [String]) async throws {
            guard path.count < 4 else {
                Issue.record("\(path): deeper than the command line goes")
                return
            }
            let help = try await session.run(path + ["--help"])
            #expect(help.status == 0, "\(path): \(help)")
            // A command whose own arguments are missing says that first; either way, one line, 2.
            let unknown = try await session.run(path + ["--no-such-option", "1"])
            #expect(
                unknown.status == 2 && unknown.stderr.split(separator: "\n").count == 1,
                "\(path) refuses an unknown option: \(unknown)")
            if unknown.stderr.contains("--no-such-option") { named += 1 }
            let names =
                help.stdout.components(separatedBy: "SUBCOMMANDS:").dropFirst().first.map { section in
                    section.components(separatedBy: "\n\n")[0].split(separator: "\n").compactMap { line -> String? in
                        // "  login, signin, sign-in  Sign in…": the name, then its aliases.
                        guard line.hasPrefix("  "), !line.hasPrefix("   "),
                            let name = line.split(whereSeparator: { $0 == " " || $0 == "," }).first, name != "help"
                        else { return nil }
                        return String(name)
                    }
                } ?? []
            guard names.isEmpty else {
                for name in names { try await walk(path + [name]) }
                return
            }
            let taken = Set(options.filter { help.stdout.contains($0 + " ") || help.stdout.contains($0 + "\n") })
            if taken.count == options.count { complete += 1 } else { seen[path.joined(separator: " ")] = taken }
        }
        try await walk([])
        #expect(seen == storeless, "\(seen)")
        #expect(complete >= 70, "\(complete) subcommands take every option")
        #expect(named >= 90, "\(named) commands name the unknown option")
    }

    @Test("sign up, buy a comic, subscribe, and the clock passes expiry (R1 R5 R6)")
    func subscribeAndExpire() async throws {
        let session = try await Session()
        try await session.signUp("alice")
        #expect(try await session.object(["account", "whoami"])["user"] as? String == "alice")
        let bought = try await session.object(["buy", comic])
        #expect(bought["state"] as? String == "purchased")
        #expect(bought["states"] as? [String] == ["purchasing", "purchased"])
        #expect(bought["reason"] is NSNull)
        try await session.run(["buy", threeMonths]).expectSuccess()
        var status = try await session.object(["status"])
        #expect(status["header"] as? String == "Subscribed! Expires: 16/04/2026 (91 Days)")
        #expect(status["expires"] as? String == "2026-04-16T12:00:00Z")
        #expect(status["subscribed"] as? Bool == true)
        #expect(status["daysRemaining"] as? Int == 91)
        #expect(status["owned"] as? [String] == [comic])
        #expect(try await session.array(["products"]).map { $0["action"] as? String }.suffix(2) == ["renew", "renew"])

        // One second before expiry, then at it.
        try await session.run(["clock", "set", "2026-04-16T11:59:59Z"]).expectSuccess()
        #expect(
            try await session.object(["status"])["header"] as? String
                == "Subscribed! Expires: 16/04/2026 (less than 1 Day: 1s left)")
        try await session.run(["clock", "advance", "1s"]).expectSuccess()
        status = try await session.object(["status"])
        #expect(status["header"] as? String == "Not Subscribed")
        #expect(status["subscribed"] as? Bool == false)
        #expect(status["owned"] as? [String] == [comic])
        #expect(try await session.object(["clock"])["now"] as? String == "2026-04-16T12:00:00Z")
    }

    @Test("Ask to Buy: deferred, then approved by a parent in another process (Q1 Q4)")
    func deferAndApprove() async throws {
        let session = try await Session()
        try await session.run(["policy", "set", "defer"]).expectSuccess()
        #expect(try await session.object(["policy"])["policy"] as? String == "defer")
        let deferred = try await session.json(["buy", pack])
        #expect(deferred.status == 0, "a deferred purchase is not a failure")
        let id = try #require(try deferred.object()["id"] as? String)
        let pending = try await session.array(["pending"])
        #expect(pending.map { $0["id"] as? String } == [id])
        #expect(pending.first?["state"] as? String == "deferred")
        let approved = try await session.object(["approve", String(id.prefix(6))])
        #expect(approved["states"] as? [String] == ["purchasing", "deferred", "purchased"])
        #expect(try await session.object(["status"])["randomViewsRemaining"] as? Int == 5)
        #expect(try await session.object(["status"])["randomViewsUnlimited"] as? Bool == false)

        let second = try await session.object(["buy", pack])
        let declined = try await session.json(["decline", try #require(second["id"] as? String)])
        #expect(declined.status == 0)
        #expect(try declined.object()["reason"] as? String == "declined")
        #expect(try await session.object(["status"])["randomViewsRemaining"] as? Int == 5)
    }

    @Test(
        "every failure reason fails with exit 1 and says why (Q4)",
        arguments: ["cancelled", "payment-invalid", "not-allowed", "product-unavailable", "network", "unknown"])
    func failures(reason: String) async throws {
        let session = try await Session()
        let result = try await session.json(["buy", comic, "--outcome", "fail=\(reason)"])
        #expect(result.status == 1)
        #expect(try result.object()["reason"] as? String == reason)
        #expect(try result.object()["state"] as? String == "failed")
        #expect(result.stderr.contains("failed (\(reason):"), "\(result.stderr)")
        #expect(try await session.object(["status"])["owned"] as? [String] == [])
    }

    @Test("a delayed approval lands when the clock passes it; interrupt waits for resolve (Q5)")
    func delayedAndInterrupted() async throws {
        let session = try await Session()
        let slow = try await session.object(["buy", pack, "--outcome", "delay=2m:approve"])
        #expect(slow["state"] as? String == "purchasing")
        #expect(try await session.array(["pending"]).count == 1)
        try await session.run(["clock", "advance", "90s"]).expectSuccess()
        #expect(try await session.object(["status"])["randomViewsRemaining"] as? Int == 0)
        try await session.run(["clock", "advance", "30s"]).expectSuccess()
        #expect(try await session.object(["status"])["randomViewsRemaining"] as? Int == 5)
        let history = try await session.array(["history"])
        #expect(history.first?["purchaseDate"] as? String == "2026-01-15T12:02:00Z")

        let interrupted = try await session.object(["buy", comic, "--outcome", "interrupt"])
        #expect(interrupted["state"] as? String == "interrupted")
        let resolved = try await session.object(["resolve", try #require(interrupted["id"] as? String)])
        #expect(resolved["states"] as? [String] == ["purchasing", "interrupted", "purchased"])
    }

    @Test("restore on a second device: comics and expiry come back, views do not (A4 A5)")
    func restoreOnSecondDevice() async throws {
        let session = try await Session()
        try await session.signUp("alice")
        try await session.run(["buy", comic]).expectSuccess()
        try await session.run(["buy", pack]).expectSuccess()
        try await session.run(["buy", threeMonths]).expectSuccess()
        try await session.signIn("alice", device: "tablet")
        // A renewal on the tablet after the phone's never loses the phone's months (A4).
        try await session.run(["clock", "advance", "10d"]).expectSuccess()
        try await session.run(["buy", sixMonths, "--device", "tablet"]).expectSuccess()
        #expect(
            try await session.object(["status", "--device", "tablet"])["expires"] as? String == "2026-10-17T12:00:00Z")
        let restored = try await session.object(["restore", "--device", "tablet"])
        #expect(restored["restored"] as? [String] == [comic])
        #expect(restored["expires"] as? String == "2026-10-17T12:00:00Z")
        let tablet = try await session.object(["status", "--device", "tablet"])
        #expect(tablet["owned"] as? [String] == [comic])
        #expect(tablet["randomViewsRemaining"] as? Int == 0)
        // Delete the app on the phone, restore: comics and expiry back, views not.
        #expect(try await session.object(["reset-device"])["device"] as? String == "default")
        #expect(try await session.object(["account", "whoami"])["user"] is NSNull)
        try await session.signIn("alice")
        let phoneRestore = try await session.object(["restore"])
        #expect(phoneRestore["restored"] as? [String] == [comic])
        let phone = try await session.object(["status"])
        #expect(phone["expires"] as? String == "2026-10-17T12:00:00Z")
        #expect(phone["randomViewsRemaining"] as? Int == 0)
        #expect(try await session.object(["receipt"])["consistent"] as? Bool == true)
    }

    @Test("Q3 a crash after payment is redelivered exactly once by the next command")
    func crashBeforeFinish() async throws {
        let session = try await Session()
        try await session.signUp("alice")
        let crashed = try await session.run(["buy", pack], environment: ["STOREFRONT_FAULT": "crash-before-finish"])
        #expect(crashed.signalled && crashed.status == 9, "\(crashed)")
        let crashedSub = try await session.run(
            ["buy", threeMonths], environment: ["STOREFRONT_FAULT": "crash-before-finish"])
        // The second command first delivered the pack the first one left, then died itself.
        #expect(crashedSub.signalled)
        #expect(crashedSub.stderr.contains("delivered 1 unfinished transaction(s)"), "\(crashedSub)")
        let next = try await session.run(["clock", "--json"])
        #expect(next.stderr.contains("delivered 1 unfinished transaction(s)"), "\(next)")
        let status = try await session.object(["status"])
        #expect(status["randomViewsRemaining"] as? Int == 5)
        #expect(status["subscribed"] as? Bool == true)
        #expect(status["randomViewsUnlimited"] as? Bool == true, "as the text says: random views left: unlimited")
        let again = try await session.run(["status"])
        #expect(!again.stderr.contains("delivered"))
        #expect(try await session.array(["history"]).allSatisfy { $0["finished"] as? Bool == true })
    }

    @Test("P3 two processes buying on one device lose nothing")
    func twoProcesses() async throws {
        let session = try await Session()
        let environment = session.environment
        let folder = session.stateDirectory
        let count = 12
        let failures = await withTaskGroup { group in
            for _ in 0..<2 {
                group.addTask {
                    var failures = 0
                    let worker = try? Session(sharing: folder, environment: environment)
                    for _ in 0..<count {
                        let status = try? await worker?.run(["buy", "com.storefront.randomviews"]).status
                        if status != 0 { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
        #expect(try await session.object(["status"])["randomViewsRemaining"] as? Int == 2 * count * 5)
        #expect(try await session.array(["history"]).count == 2 * count)
    }

    @Test("bad input: one clear line, a non-zero exit, and nothing changes")
    func badInput() async throws {
        let session = try await Session()
        try await session.signUp("alice")
        try await session.run(["buy", comic]).expectSuccess()
        let before = try await session.snapshot()
        let cases: [([String], [String: String], String)] = [
            (
                ["buy", "com.storefront.comic.nightshfit"], [:],
                "unknown product \"com.storefront.comic.nightshfit\" (did you mean \"com.storefront.comic.nightshift\"?"
            ),
            (["clock", "advance", "3 moons"], [:], "\"3 moons\" is not a duration"),
            (["clock", "advance", "3", "moons"], [:], "\"3 moons\" is not a duration"),
            (["account", "login", "alice"], ["STOREFRONT_PASSWORD": "nope"], "wrong password for \"alice\""),
            (["account", "login", "zed"], ["STOREFRONT_PASSWORD": "x"], "no account named \"zed\""),
            (["buy", comic, "--outcome", "fail=tired"], [:], "unknown failure reason \"tired\""),
            (["policy", "set", "sometimes"], [:], "unknown outcome \"sometimes\""),
            (["approve", "ffffffffffff"], [:], "no transaction \"ffffffffffff\""),
            (["clock", "set", "yesterday"], [:], "\"yesterday\" is not an ISO 8601 time"),
            (
                ["webhook", "set", "ftp://localhost:8000/apple"], [:],
                "\"ftp://localhost:8000/apple\" is not an http:// or https:// URL with a host"
            ),
            (
                ["webhook", "set", "https//localhost:8000/apple"], [:],
                "\"https//localhost:8000/apple\" is not an http:// or https:// URL with a host"
            ),
            (["status", "--device", "../x"], [:], "\"../x\" is not a valid device name"),
            // L1: usage errors are bad input too: one line and exit 2, never the parser's 64.
            (["buy"], [:], "Missing expected argument '<product>' (`storefront buy --help` shows the usage)"),
            (["buy", comic, "--bogus"], [:], "Unknown option '--bogus'"),
            (["clock", "advance"], [:], "(`storefront clock advance --help` shows the usage)"),
            (
                ["clock", "set", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"], [:],
                "Unexpected argument '2026-02-01T00:00:00Z'"
            ),
            (["status", "--device"], [:], "Missing value for '--device <name>'"),
            // An option's values, on the one line too.
            (["serve", "--log-level", "loud"], [:], "one of the following: trace, debug, info, notice, warning"),
            (["bogus"], [:], "unknown subcommand \"bogus\" (`storefront --help` lists them)"),
            (["statsu", "--json"], [:], "unknown subcommand \"statsu\""),
        ]
        for (arguments, environment, message) in cases {
            let result = try await session.run(arguments, environment: environment)
            #expect(result.status == 2, "\(arguments): \(result)")
            let lines = result.stderr.split(separator: "\n").filter { !$0.contains("warning:") }
            #expect(lines.count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(try await session.snapshot() == before)
        #expect(try await session.object(["account", "whoami"])["user"] as? String == "alice")
    }

    @Test("N3 webhook set HOST:PORT/PATH is http://, as --server's HOST:PORT is; the URL stored is said in full")
    func webhookWithoutScheme() async throws {
        let session = try await Session()
        let set = try await session.run(["webhook", "set", "127.0.0.1:8000/apple"])
        #expect(set.status == 0 && set.stdout.hasPrefix("http://127.0.0.1:8000/apple "), "\(set)")
        #expect(try await session.object(["webhook", "--json"])["url"] as? String == "http://127.0.0.1:8000/apple")
        #expect(try await session.run(["webhook", "set", "https://127.0.0.1:8443/apple"]).status == 0)
        #expect(
            try await session.object(["webhook", "--json"])["url"] as? String == "https://127.0.0.1:8443/apple",
            "a scheme given is kept")
    }

    @Test("C5 a bad catalog stops the program with one line naming the file and entry")
    func badCatalog() async throws {
        let session = try await Session()
        let file = session.stateDirectory.appendingPathComponent("bad.json")
        try Data(#"{"products":[{"id":"x","kind":"nonConsumable","title":"X","price":"-2","image":"x.png"}]}"#.utf8)
            .write(to: file)
        let result = try await session.run(["products", "--catalog", file.path])
        #expect(result.status == 2)
        #expect(result.stderr == "storefront: bad.json: products[0] \"x\": price \"-2\" is negative\n")
        let check = try await session.run(["catalog", "check", "--strict"])
        #expect(check.status == 2 || check.stderr.isEmpty, "strict fails only while images are missing")
    }

    @Test("P2 a corrupt database is reported with exit 3 and left as it was")
    func corruptDatabase() async throws {
        let session = try await Session()
        try await session.run(["buy", pack]).expectSuccess()
        let file = session.stateDirectory.appendingPathComponent("devices/default.sqlite")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: file)
        let result = try await session.run(["status"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("is not a usable database"), "\(result.stderr)")
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test("R7 random comics use views, never repeat back to back, and stop at zero")
    func random() async throws {
        let session = try await Session()
        let empty = try await session.run(["random"])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("no random comics left"))
        try await session.run(["buy", pack]).expectSuccess()
        var shown: [String] = []
        for left in (0..<5).reversed() {
            let result = try await session.object(["random"])
            #expect(result["randomViewsRemaining"] as? Int == left)
            shown.append(try #require(result["comic"] as? String))
        }
        for (a, b) in zip(shown, shown.dropFirst()) { #expect(a != b) }
        #expect(try await session.run(["random"]).status == 1)
    }

    @Test("T5 without a terminal the screen says so and points to the subcommands")
    func noTerminal() async throws {
        let session = try await Session()
        let result = try await session.run([])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the screen needs a terminal"))
        #expect(result.stderr.contains("storefront products"))
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        // Options of the screen are the screen's: the same answer, parsed without the command tree.
        let withOptions = try await session.run(["--device", "tablet"])
        #expect(withOptions.status == 1 && withOptions.stderr == result.stderr)
    }

    @Test("A7 the state folder and databases are readable by their owner only")
    func permissions() async throws {
        let session = try await Session()
        try await session.run(["buy", pack]).expectSuccess()
        let attributes = { (path: String) in
            ((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int ?? 0) & 0o777
        }
        #expect(try attributes(session.stateDirectory.path) == 0o700)
        #expect(try attributes(session.stateDirectory.appendingPathComponent("server.sqlite").path) == 0o600)
        #expect(try attributes(session.stateDirectory.appendingPathComponent("devices/default.sqlite").path) == 0o600)
    }
}

extension Session {
    /// A second handle on the same state folder (another terminal).
    convenience init(sharing folder: URL, environment: [String: String]) throws {
        try self.init(existing: folder, environment: environment)
    }
}

final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}

@Suite("storefront show-image")
struct ShowImageTests {
    @Test("T4 plain characters when not a terminal; ANSI colours with --color; bad files exit 2 with the reason")
    func showImage() async throws {
        let session = try await Session()
        let file = repositoryRoot.appendingPathComponent("assets/random/joy.png").path
        let plain = try await session.run(["show-image", file, "--width", "30", "--height", "10"])
        plain.expectSuccess()
        #expect(!plain.stdout.contains("\u{1B}["))
        let lines = plain.stdout.split(separator: "\n")
        #expect(lines.count == 10 && lines.allSatisfy { $0.count == 30 })
        let colour = try await session.run(["show-image", file, "--width", "30", "--height", "10", "--color"])
        #expect(colour.stdout.contains("▀") && colour.stdout.contains("38;5;") && colour.stdout.contains("48;5;"))
        let eight = try await session.run(["show-image", file, "--width", "30", "--height", "10", "--depth", "8"])
        #expect(!eight.stdout.contains("38;5;") && eight.stdout.contains("\u{1B}[0;3"))
        let text = session.stateDirectory.appendingPathComponent("notes.png")
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        try Data("these are notes, not a picture".utf8).write(to: text)
        let bad = try await session.run(["show-image", text.path])
        #expect(bad.status == 2)
        // The file is named as it was typed.
        #expect(bad.stderr == "storefront: \(text.path): not a usable picture (not a PNG or JPEG file)\n")
    }
}

@Suite("storefront scenario check")
struct ScenarioCommandTests {
    @Test("the shipped scenarios pass; a wrong one exits 1 naming its line; --json")
    func check() async throws {
        let session = try await Session()
        let shipped = try await session.run(["scenario", "check"])
        #expect(shipped.status == 0, "\(shipped)")
        #expect(shipped.stdout.contains("in-app-rage.scenario"))
        #expect(shipped.stdout.hasSuffix(" passed, 0 failed\n"))
        let file = session.stateDirectory.appendingPathComponent("wrong.scenario")
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        try "buy \"Night Shift\"\nexpect row \"Night Shift\" shows Buy\n".write(
            to: file, atomically: true, encoding: .utf8)
        let wrong = try await session.run(["scenario", "check", file.path])
        #expect(wrong.status == 1)
        #expect(
            wrong.stdout.contains("✗ line 2: expect row \"Night Shift\" shows Buy — the row shows \"✓\""),
            "\(wrong.stdout)")
        let json = try await session.run(["scenario", "check", file.path, "--json"]).array()
        #expect(json.first?["passed"] as? Bool == false)
        #expect((json.first?["expectations"] as? [[String: Any]])?.first?["line"] as? Int == 2)
    }
}

// W17 through the real server, on SQLite and on PostgreSQL: one account guessed from 64 loopback
// addresses, the owner's device beside the attack, a new device told to wait and let in by the
// developer's unlock, answers a stranger cannot tell apart, and device tokens that are forged,
// copied or revoked. Passwords checked are counted from the server's log (one line names each
// checked failure), never timed.
import Foundation
import StoreCore
import StoreModel
import StorefrontServer
import TestSupport
import Testing

@Suite("Sign-in limits against many addresses, never against the owner", .tags(.postgres, .python), .notInFastRun)
struct SignInLimitTests {
    typealias Backend = StrangerTests.Backend

    /// A team server that locks a name after `lockAfter` failures, and its developer's token.
    static func team(_ backend: Backend, lockAfter: Int) async throws -> (Session, Server, String) {
        let host = try await Session()
        let database = backend == .postgres ? ["--database", try TestPostgres.freshDatabase()] : []
        let server = try await Server(host, arguments: database + ["--sign-in-lock-after", String(lockAfter)])
        let token = try await host.run(["developer-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (host, server, token)
    }

    /// A raw sign-in on the wire: its status and body as sent.
    static func signIn(
        _ server: Server, _ name: String, _ password: String, device: String = "raw", token: String? = nil
    )
        throws -> (status: Int, body: Data)
    {
        let request = AccountRequests.Credentials(name: name, password: password, device: device, deviceToken: token)
        let url = try #require(URL(string: server.base + AccountWire.path))
        switch HTTPCall.post(
            url, headers: ["Content-Type": "application/json"],
            body: try AccountWire.body(AccountWire.methods.signIn, request),
            timeout: 60)
        {
        case .success(let answer): return answer
        case .failure(let problem):
            Issue.record("signIn: \(problem)")
            return (0, Data())
        }
    }

    /// The session a raw sign-up gives, with its device token.
    static func signUp(_ server: Server, _ name: String, device: String) throws -> AccountSession {
        let url = try #require(URL(string: server.base + AccountWire.path))
        let body = try AccountWire.body(
            AccountWire.methods.signUp, AccountRequests.Credentials(name: name, password: "pw-\(name)", device: device))
        guard case .success(let answer) = HTTPCall.post(url, headers: [:], body: body, timeout: 60) else {
            throw ServerError.notListening("sign-up of \(name) failed")
        }
        return try JSONDecoder().decode(AccountWire.Reply<AccountSession>.self, from: answer.body).value
    }

    @Test(
        "W17 400 guesses of one name from 64 addresses check at most the budget; the owner's device signs in during the attack; a new device is told to wait or use a known device, and gets in once the developer unlocks",
        arguments: Backend.allCases)
    func manyAddresses(backend: Backend) async throws {
        let lockAfter = 5
        let (host, server, token) = try await Self.team(backend, lockAfter: lockAfter)
        let owner = try await server.machine(catalogOf: host)
        let newcomer = try await server.machine(catalogOf: host)
        let developer = try await server.machine(catalogOf: host)
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = token
        try await owner.signUp("alice")
        try await owner.run(["account", "logout"]).expectSuccess()

        // The attack: 400 wrong guesses for alice from 127.0.0.2–65, going on until told to stop.
        let stop = FileManager.default.temporaryDirectory.appendingPathComponent("stop-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stop) }
        let guesser = Process()
        guesser.executableURL = try AppleVerifier.python()
        guesser.arguments = [
            repositoryRoot.appendingPathComponent("Tests/Python/signin_guesses.py").path, server.base, "alice", "400",
            "64", stop.path,
        ]
        let output = Pipe()
        guesser.standardOutput = output
        try guesser.run()
        defer { if guesser.isRunning { guesser.terminate() } }
        #expect(try await firstLine(output) == "under way")
        let locked = await waitUntil(seconds: 300) {
            server.wrote("sign-ins to \"alice\" from new devices are locked")
        }
        #expect(locked, "the name locks after \(lockAfter) failures: \(server.errorsTail)")

        // The owner's device, which signed in before, signs in at once while the attack goes on.
        let own = try await owner.run(["account", "login", "alice"], environment: ["STOREFRONT_PASSWORD": "pw-alice"])
        let attackWentOn = guesser.isRunning
        #expect(own.status == 0 && own.stdout.hasPrefix("signed in as alice"), "\(own)")
        #expect(attackWentOn, "the owner signed in while the guesses still came")
        #expect(own.stdout.contains("failed sign-in(s) since the last one, from 127.0.0."), "\(own.stdout)")
        // A new device with the right password is told plainly what to do.
        let new = try await newcomer.run(
            ["account", "login", "alice"], environment: ["STOREFRONT_PASSWORD": "pw-alice"])
        #expect(
            new.status == 2 && new.stderr.contains("sign in from a device that signed in to it before")
                && new.stderr.contains("try again in a few minutes"), "\(new)")

        _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
        let report = try await offPool { output.fileHandleForReading.readDataToEndOfFile() }
        try await guesser.ended()
        let text = String(decoding: report, as: UTF8.self)
        let summary = try #require(try JSONSerialization.jsonObject(with: report) as? [String: Any], "\(text)")
        let sent = summary["sent"] as? Int ?? 0
        let statuses = summary["statuses"] as? [String: Int] ?? [:]
        let bodies = summary["bodies"] as? [String: Int] ?? [:]
        #expect(sent >= 400, "\(summary)")
        #expect(statuses == ["401": sent], "every guess refused alike: \(statuses)")
        #expect(bodies.count == 1, "one answer, byte for byte: \(Array(bodies.keys))")
        let checked = server.checkedSignInFailures
        #expect(
            checked >= 1 && checked <= lockAfter, "\(checked) of \(sent) guesses checked; the budget is \(lockAfter)")
        #expect(server.wrote("sign-in to \"alice\" from 127.0.0."), "the developer's log names the addresses")

        // The developer unlocks alice: the new device gets in.
        let unlocked = try await developer.run(["account", "unlock", "alice"])
        #expect(
            unlocked.status == 0 && unlocked.stdout == "unlocked alice: new devices may sign in again\n", "\(unlocked)")
        try await newcomer.run(["account", "login", "alice"], environment: ["STOREFRONT_PASSWORD": "pw-alice"])
            .expectSuccess()
        // Only the developer unlocks.
        let refused = try await newcomer.run(["account", "unlock", "alice"])
        #expect(refused.status == 1 && refused.stderr.contains("only the developer may"), "\(refused)")
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "W17 to a stranger an unknown name, a wrong password and a locked account answer byte for byte alike; an unknown name costs the checks a real one does, locked or not",
        arguments: Backend.allCases)
    func enumeration(backend: Backend) async throws {
        let lockAfter = 2
        let (_, server, _) = try await Self.team(backend, lockAfter: lockAfter)
        _ = try await Self.signUp(server, "ann", device: "phone")
        var answers: [String: (status: Int, body: Data)] = [:]
        var costs: [String: Int] = [:]
        func attempt(_ label: String, _ name: String, _ password: String) async throws {
            let before = server.checkedSignInFailures
            answers[label] = try await Self.signIn(server, name, password)
            costs[label] = server.checkedSignInFailures - before
        }
        try await attempt("unknown name", "nobody", "guess")
        try await attempt("wrong password", "ann", "guess")
        // Each name's wait after its first failure ends (a quarter second); a second failure locks both.
        try await Task.sleep(for: .seconds(1))
        try await attempt("unknown name, twice", "nobody", "guess")
        try await attempt("wrong password, twice", "ann", "guess")
        try await attempt("locked account, right password", "ann", "pw-ann")
        try await attempt("locked unknown name", "nobody", "guess")
        let distinct = Set(answers.values.map { "\($0.status) " + String(decoding: $0.body, as: UTF8.self) })
        #expect(distinct.count == 1, "\(distinct)")
        #expect(answers.values.allSatisfy { $0.status == 401 })
        #expect(
            costs == [
                "unknown name": 1, "wrong password": 1, "unknown name, twice": 1, "wrong password, twice": 1,
                "locked account, right password": 0, "locked unknown name": 0,
            ], "\(costs)")
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "W17 a device token exempts its own device of its own account only: forged, copied from another account or device, and revoked tokens give no exemption",
        arguments: Backend.allCases)
    func deviceTokens(backend: Backend) async throws {
        let (_, server, _) = try await Self.team(backend, lockAfter: 1)
        let ann = try await Self.signUp(server, "ann", device: "phone")
        let bob = try await Self.signUp(server, "bob", device: "phone")
        let annToken = try #require(ann.deviceToken)
        let bobToken = try #require(bob.deviceToken)
        #expect(annToken != bobToken)
        // One stranger's failure locks ann to unknown clients.
        #expect(try await Self.signIn(server, "ann", "guess").status == 401)
        #expect(try await Self.signIn(server, "ann", "pw-ann").status == 401, "locked")
        let forged = SessionToken.make()
        for (label, device, token) in [
            ("forged", "phone", forged), ("bob's", "phone", bobToken), ("another device's", "tablet", annToken),
        ] {
            let answer = try await Self.signIn(server, "ann", "pw-ann", device: device, token: token)
            #expect(answer.status == 401, "\(label)")
        }
        let own = try await Self.signIn(server, "ann", "pw-ann", device: "phone", token: annToken)
        #expect(own.status == 200, "her own device's token: \(String(decoding: own.body, as: UTF8.self))")
        let session = try #require(
            try JSONDecoder().decode(AccountWire.Reply<AccountSession>.self, from: own.body).value.token)
        // Ann revokes the phone's session (a lost phone): its device token goes with it.
        let wire = StrangerTests.Wire(base: server.base)
        let id = try await offPool { () throws -> String? in
            let listed = try wire.call("deviceSessions", "ann", session: session)
            let phones = (listed.body["value"] as? [[String: Any]] ?? []).filter { $0["device"] as? String == "phone" }
            return phones.first?["id"] as? String
        }
        let revokedID = try #require(id, "ann's phone is listed")
        let revoked = try await offPool { () throws -> Int in
            try wire.call(
                "revokeDeviceSession", AccountRequests.SessionID(account: "ann", id: revokedID), session: session
            )
            .status
        }
        #expect(revoked == 200)
        let afterRevoking = try await Self.signIn(server, "ann", "pw-ann", device: "phone", token: annToken)
        #expect(afterRevoking.status == 401, "a revoked device token")
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }
}

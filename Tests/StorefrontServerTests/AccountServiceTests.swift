// W2 and W6 in-process: the account server's side of `--server` — sessions per device, one
// account never reading or changing another's, revoked and stolen tokens refused, failed sign-ins
// slowed, settings changed only with the developer's token (W9), and nothing changed by a refusal.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel
@testable import StorefrontServer

@Suite("The account server over the network: sessions and refusals")
struct AccountServiceTests {
    struct Fixture: @unchecked Sendable {
        let state = TemporaryState()
        let database: ServerDatabase
        let service: AccountService
        /// The sign-in gate's clock (W11), moved by hand.
        let wall = Locked<TimeInterval>(1_000)
        /// How many passwords were hashed or checked.
        let checks = Locked(0)

        init() throws {
            try state.directory.prepare()
            database = try ServerDatabase(url: state.directory.serverDatabase)
            let wall = wall
            service = AccountService(
                database: database, hasher: PasswordHasher(cost: 1 << 4, counting: checks), clock: state.clock,
                gate: SignInGate(now: { wall.withLock { $0 } }))
        }

        /// Time passes for the gate (a client that waited for its answer).
        func wait(_ seconds: TimeInterval) { wall.withLock { $0 += seconds } }

        /// One method of the table, called as a device calls it.
        func call<Request, Value>(
            _ method: AccountMethod<Request, Value>, _ request: Request, tokens: [String] = []
        ) throws -> (status: Int, value: Value?, error: AccountCallError?, delay: TimeInterval) {
            let answer = service.handle(
                body: try AccountWire.body(method, request),
                authorization: tokens.isEmpty ? nil : "Session " + tokens.joined(separator: " "))
            let value = try? JSONDecoder().decode(AccountWire.Reply<Value>.self, from: answer.body).value
            let error = try? JSONDecoder().decode(RemoteAccountServer.Failure.self, from: answer.body).error
            return (answer.status, value, error, answer.delay)
        }

        /// A call whose answer is not read, only its status and error.
        func refusal<Request, Value>(_ method: AccountMethod<Request, Value>, _ request: Request) -> ([String]) throws
            -> (Int, AccountCallError?)
        {
            { tokens in
                let answer = try self.call(method, request, tokens: tokens)
                return (answer.status, answer.error)
            }
        }

        func session(
            _ method: AccountMethod<AccountRequests.Credentials, AccountSession>, _ name: String, _ password: String,
            _ device: String
        ) throws -> String {
            try #require(
                try call(method, AccountRequests.Credentials(name: name, password: password, device: device)).value?
                    .token)
        }

        func purchase(_ account: String, _ id: String) -> ReceiptEntry {
            ReceiptEntry(
                transactionID: id, account: account, productID: "comic.a", kind: .nonConsumable,
                purchaseDate: utc(2026, 1, 15), device: "phone")
        }
    }

    @Test(
        "W2 sign-up and sign-in give a session per device; the password is checked on the server and kept as a slow hash"
    )
    func sessions() throws {
        let fixture = try Fixture()
        let phone = try fixture.session(AccountWire.methods.signUp, "Ann", "secret", "phone")
        let tablet = try fixture.session(AccountWire.methods.signIn, "ann", "secret", "tablet")
        #expect(phone != tablet)
        #expect(try fixture.database.sessionAccount(token: phone, at: Date()) == "Ann")
        let hash = try #require(try fixture.database.passwordHash(account: "ann")?.hash)
        #expect(hash.hasPrefix("scrypt$") && !hash.contains("secret"))
        // Tokens are kept only as hashes.
        let kept = try fixture.database.read { db in try String.fetchAll(db, sql: "SELECT tokenHash FROM session") }
        #expect(kept.count == 2 && !kept.contains(phone) && !kept.contains(tablet))
        // A purchase the server settled for ann (W9: a device asks, the server records).
        try fixture.database.record(
            fixture.purchase("ann", "1000000000000001"), calendar: Calendar(identifier: .gregorian))
        #expect(
            try fixture.call(AccountWire.methods.receipt, "ann", tokens: [tablet]).value?.count == 1,
            "the other device sees it"
        )
    }

    @Test(
        "W6 who is in which family is read only by its organizer, its members and the developer; a stranger learns only that families exist"
    )
    func familiesRead() throws {
        let fixture = try Fixture()
        let ann = try fixture.session(AccountWire.methods.signUp, "ann", "secret", "phone")
        let bob = try fixture.session(AccountWire.methods.signUp, "bob", "hunter2", "phone")
        let eve = try fixture.session(AccountWire.methods.signUp, "eve", "letmein", "laptop")
        let family = Family(organizer: "ann", members: ["bob"])
        #expect(try fixture.database.changeFamily(FamilyChange(organizer: "ann", expected: nil, new: family)))
        #expect(try fixture.call(AccountWire.methods.families, .init(), tokens: [ann]).value == [family])
        #expect(try fixture.call(AccountWire.methods.families, .init(), tokens: [bob]).value == [family])
        #expect(
            try fixture.call(AccountWire.methods.families, .init(), tokens: [eve]).value == [],
            "a stranger with an account")
        #expect(try fixture.call(AccountWire.methods.families, .init()).value == [], "no session")
        #expect(try fixture.call(AccountWire.methods.hasFamilies, .init()).value == true)
        // Eve cannot write bob in as a member of her family: a member joins only by accepting.
        let written = FamilyChange(organizer: "eve", expected: nil, new: Family(organizer: "eve", members: ["carl"]))
        let joined = try fixture.call(AccountWire.methods.changeFamily, written, tokens: [eve])
        #expect(joined.status == 403 && joined.error?.text.contains("accepting its invitation") == true, "\(joined)")
        // W19: she may invite bob, who is in ann's family, and carl, whom nobody signed up, and the two
        // answer alike, fresh or stale: an invitation tells her nothing of either name.
        let hers = Family(organizer: "eve")
        #expect(try fixture.database.changeFamily(FamilyChange(organizer: "eve", expected: nil, new: hers)))
        var answers: [String: [String]] = [:]
        for name in ["bob", "carl"] {
            let current = try #require(try fixture.database.families().organized(by: "eve"))
            for expected in [current, hers] {
                var invited = current
                invited.invitations.append(Invitation(account: name, at: .distantFuture))
                let answer = try fixture.call(
                    AccountWire.methods.changeFamily, FamilyChange(organizer: "eve", expected: expected, new: invited),
                    tokens: [eve])
                answers[name, default: []].append("\(answer.status) \(String(describing: answer.value))")
            }
        }
        #expect(answers["bob"] == ["200 Optional(true)", "200 Optional(false)"], "\(answers)")
        #expect(answers["bob"] == answers["carl"], "\(answers)")
        let invitations = try fixture.database.families().organized(by: "eve")?.invitations ?? []
        #expect(invitations.map(\.account) == ["bob", "carl"])
        #expect(
            invitations.allSatisfy { $0.at == fixture.state.clock.now() }, "dated by the server's clock: \(invitations)"
        )
        #expect(try fixture.database.families().organized(by: "ann") == family, "bob is still in ann's family alone")
        // The developer reads every family.
        let developer = AccountService(
            database: fixture.database, hasher: .fastForTests, clock: fixture.state.clock,
            developerToken: { "dev-token" })
        let answer = developer.handle(
            body: try AccountWire.body(AccountWire.methods.families, .init()), authorization: nil,
            developer: "dev-token")
        let every = try JSONDecoder().decode(AccountWire.Reply<[Family]>.self, from: answer.body).value
        #expect(every.map(\.organizer) == ["ann", "eve"])
        #expect(try fixture.database.families() == every)
    }

    @Test(
        "W9 nothing is written without a session: a fresh server takes its clock rate from its own catalog when it starts; a device's catalog sets nothing on it, and the old unauthenticated call is no call"
    )
    func defaultsFromTheServersCatalog() throws {
        let file = TestTools.repositoryRoot.appendingPathComponent("Tests/Fixtures/storekit/samples/skdemo.storekit")
        let catalog = try CatalogLoader.load(contentsOf: file).catalog
        let rate = try #require(catalog.clockRate, "SKDemo's _timeRate is an accelerated clock")
        let state = TemporaryState()
        let factory = try StoreFactory(
            stateDirectory: state.directory, catalog: catalog, calendar: utcCalendar, time: .manual(state.clock))
        factory.passwordHasher = .fastForTests
        _ = try ServedStore(factory: factory)
        let setting = try factory.server.clockSetting()
        #expect(setting.mode == .rate && setting.rate == rate, "\(setting)")
        // Asked on the wire with no session, as a device could before, the server knows no such call.
        let fixture = try Fixture()
        let body = Data(#"{"method":"adoptDefaults","request":{"clockRate":1000,"real":0}}"#.utf8)
        let answer = fixture.service.handle(body: body, authorization: nil)
        #expect(
            answer.status == 400 && String(decoding: answer.body, as: UTF8.self).contains("no method"),
            "\(answer.status)")
        #expect(try fixture.database.clockSetting() == .standard, "a fresh server's clock is untouched")
    }

    @Test("W6 one account never reads or changes another's; revoked and unknown tokens are refused; nothing changes")
    func isolation() throws {
        let fixture = try Fixture()
        let ann = try fixture.session(AccountWire.methods.signUp, "ann", "secret", "phone")
        let bob = try fixture.session(AccountWire.methods.signUp, "bob", "hunter2", "phone")
        try fixture.database.record(
            fixture.purchase("bob", "2000000000000001"), calendar: Calendar(identifier: .gregorian))
        let before = try fixture.database.receipt(account: "bob")

        let refused: [(String, ([String]) throws -> (Int, AccountCallError?), [String])] = [
            ("bob's receipt with ann's session", fixture.refusal(AccountWire.methods.receipt, "bob"), [ann]),
            ("bob's plans with ann's session", fixture.refusal(AccountWire.methods.plans, "bob"), [ann]),
            (
                "a purchase on bob's receipt with ann's session",
                fixture.refusal(
                    AccountWire.methods.record,
                    .init(entry: fixture.purchase("bob", "2000000000000002"), timeZone: "UTC")),
                [ann]
            ),
            (
                "plan lines on bob's receipt",
                fixture.refusal(
                    AccountWire.methods.addPlanLines,
                    .init(account: "bob", expected: [:], lines: [fixture.purchase("bob", "2000000000000003")])), [ann]
            ),
            ("bob's notifications", fixture.refusal(AccountWire.methods.notifications, "bob"), [ann]),
            ("bob's device sessions", fixture.refusal(AccountWire.methods.deviceSessions, "bob"), [ann]),
            (
                "revoking bob's session",
                fixture.refusal(
                    AccountWire.methods.revokeDeviceSession,
                    .init(account: "bob", id: String(SessionToken.hash(bob).prefix(12)))), [ann]
            ),
            ("no session", fixture.refusal(AccountWire.methods.receipt, "bob"), []),
            ("a made-up token", fixture.refusal(AccountWire.methods.receipt, "bob"), ["not-a-token"]),
        ]
        for (what, call, tokens) in refused {
            let (status, error) = try call(tokens)
            #expect(status == 401 && error?.kind == .session, "\(what): \(status)")
        }
        // W9: the shared settings are the developer's, whatever sessions a device holds.
        for tokens in [[], [ann], [ann, bob]] {
            let (status, error) = try fixture.refusal(
                AccountWire.methods.setWebhook, Webhook(url: "http://127.0.0.1:9/x"))(
                    tokens)
            #expect(status == 403 && error?.kind == .developer, "\(tokens.count) sessions: \(status)")
        }
        // Lines for bob smuggled into ann's own call.
        let smuggled = try fixture.call(
            AccountWire.methods.addPlanLines,
            .init(account: "ann", expected: [:], lines: [fixture.purchase("bob", "2000000000000004")]), tokens: [ann])
        #expect(smuggled.status != 200)
        // W9: bob's event key, or a type, named in ann's own call writes nothing: the server
        // derives every notification it writes, so bob's real EXPIRED cannot be pre-empted.
        let forged = [
            ServerNotification(
                key: "expired:2000000000000001", account: "ann", type: "EXPIRED", subtype: "VOLUNTARY",
                transactionID: "2000000000000001", createdAt: Date()),
            ServerNotification(
                key: "line:2000000000000001:purchase", account: "ann", type: "REFUND",
                transactionID: "2000000000000001", createdAt: Date()),
        ]
        #expect(try fixture.call(AccountWire.methods.enqueue, forged, tokens: [ann]).value == [])
        #expect(try !fixture.database.hasNotification(key: "expired:2000000000000001"))
        #expect(try fixture.database.notifications(account: "ann").isEmpty)
        let test =
            try fixture.call(
                AccountWire.methods.enqueue,
                [
                    ServerNotification(
                        key: "test:chosen", account: "ann", type: "TEST", createdAt: Date(), uuid: "chosen")
                ], tokens: [ann]
            ).value ?? []
        #expect(
            test.count == 1 && test.first?.uuid != "chosen" && test.first?.key == "test:\(test.first?.uuid ?? "")",
            "the server makes the TEST's UUID")
        // A lookup by id of bob's transaction tells ann nothing.
        #expect(
            try fixture.call(AccountWire.methods.receiptEntry, "2000000000000001", tokens: [ann]).value == .some(nil))
        #expect(try fixture.call(AccountWire.methods.accountsWithPlans, .init(), tokens: [ann]).value == [])

        // Signing out revokes the token for good.
        #expect(try fixture.call(AccountWire.methods.signOut, .init(), tokens: [bob]).status == 200)
        #expect(try fixture.call(AccountWire.methods.receipt, "bob", tokens: [bob]).status == 401)
        #expect(try fixture.database.receipt(account: "bob") == before)
        #expect(try fixture.database.webhook() == nil)
    }

    @Test("W6 failed sign-ins are slowed, doubling to five seconds; a success starts again")
    func slowedSignIns() throws {
        let fixture = try Fixture()
        _ = try fixture.session(AccountWire.methods.signUp, "ann", "secret", "phone")
        var delays: [TimeInterval] = []
        for _ in 0..<7 {
            let answer = try fixture.call(
                AccountWire.methods.signIn, .init(name: "ann", password: "wrong", device: "thief"))
            #expect(answer.status == 401 && answer.error?.kind == .signInRefused)
            delays.append(answer.delay)
            // The thief waited for the answer before guessing again.
            fixture.wait(answer.delay)
        }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 5, 5])
        fixture.wait(5)
        let unknown = try fixture.call(
            AccountWire.methods.signIn, .init(name: "nobody", password: "x", device: "thief"))
        #expect(unknown.delay == 0.25, "unknown names wait too")
        // W11: and get the answer a wrong password gets, so names cannot be told from accounts.
        #expect(
            unknown.status == 401 && unknown.error?.kind == .signInRefused
                && unknown.error?.text == StoreError.signInRefused.description)
        fixture.wait(5)
        #expect(
            try fixture.call(AccountWire.methods.signIn, .init(name: "ann", password: "secret", device: "phone")).delay
                == 0)
        #expect(
            try fixture.call(AccountWire.methods.signIn, .init(name: "ann", password: "wrong", device: "thief")).delay
                == 0.25)
    }

    @Test(
        "W2 a session expires after the lifetime the developer set (real time): its calls are refused from then on, the account's sessions list when it ends, and signing in again gives a new one"
    )
    func sessionsExpire() throws {
        let fixture = try Fixture()
        let real = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let service = AccountService(
            database: fixture.database, hasher: .fastForTests, clock: fixture.state.clock,
            realNow: { real.withLock { $0 } }, sessionLifetime: 3_600)
        func call<Request, Value>(_ method: AccountMethod<Request, Value>, _ request: Request, token: String? = nil)
            throws -> (status: Int, value: Value?)
        {
            let answer = service.handle(
                body: try AccountWire.body(method, request), authorization: token.map { "Session " + $0 })
            return (answer.status, try? JSONDecoder().decode(AccountWire.Reply<Value>.self, from: answer.body).value)
        }
        let made = try call(AccountWire.methods.signUp, .init(name: "ann", password: "secret", device: "phone"))
        let token = try #require(made.value?.token)
        #expect(try call(AccountWire.methods.receipt, "ann", token: token).status == 200)
        let listed = try #require(try call(AccountWire.methods.deviceSessions, "ann", token: token).value?.first)
        #expect(
            listed.expiresAt == Date(timeIntervalSince1970: 1_800_003_600), "\(String(describing: listed.expiresAt))")
        real.withLock { $0 = $0.addingTimeInterval(3_599) }
        #expect(try call(AccountWire.methods.receipt, "ann", token: token).status == 200, "a second before its end")
        real.withLock { $0 = $0.addingTimeInterval(2) }
        #expect(try call(AccountWire.methods.receipt, "ann", token: token).status == 401, "expired")
        let again = try call(AccountWire.methods.signIn, .init(name: "ann", password: "secret", device: "phone"))
        let fresh = try #require(again.value?.token)
        let status = try call(AccountWire.methods.receipt, "ann", token: fresh).status
        #expect(fresh != token && status == 200)
    }

    @Test(
        "W17 failures from unknown clients share the account's budget, whatever their address; a device the account knows (its device token or a session) is never held up by it; an unknown name costs a password check as a wrong password does"
    )
    func guessesShareTheAccountsBudget() throws {
        let fixture = try Fixture()
        let checks = Locked(0)
        let service = AccountService(
            database: fixture.database, hasher: PasswordHasher(cost: 1 << 4, counting: checks),
            clock: fixture.state.clock, gate: SignInGate(now: { fixture.wall.withLock { $0 } }))
        func signIn(
            _ password: String, from client: String, tokens: [String] = [], name: String = "ann",
            device: String = "d", deviceToken: String? = nil
        ) throws -> AccountService.Answer {
            service.handle(
                body: try AccountWire.body(
                    AccountWire.methods.signIn,
                    .init(name: name, password: password, device: device, deviceToken: deviceToken)),
                authorization: tokens.isEmpty ? nil : "Session " + tokens.joined(separator: " "), client: client)
        }
        func session(_ answer: AccountService.Answer) throws -> AccountSession {
            try JSONDecoder().decode(AccountWire.Reply<AccountSession>.self, from: answer.body).value
        }
        let made = try session(
            service.handle(
                body: try AccountWire.body(
                    AccountWire.methods.signUp, .init(name: "ann", password: "secret", device: "phone")),
                authorization: nil, client: "10.0.0.1"))
        let token = try #require(made.token)
        let deviceToken = try #require(made.deviceToken, "sign-up hands out a device token")
        // A guesser fails once from each of five addresses, never waiting between: one check, the
        // rest refused unchecked, since every address draws on ann's one budget.
        let before = checks.withLock { $0 }
        let answers = try (0..<5).map { try signIn("wrong", from: "10.6.6.\($0)") }
        #expect(checks.withLock { $0 } == before + 1, "one check for five addresses")
        #expect(Set(answers.map(\.body)).count == 1, "one answer to a stranger, checked or not")
        #expect(try signIn("secret", from: "10.0.0.2").status == 401, "a new device waits with them")
        #expect(try signIn("secret", from: "10.6.6.6", tokens: [token]).status == 200, "not a device with a session")
        let known = try signIn("secret", from: "10.6.6.6", device: "phone", deviceToken: deviceToken)
        #expect(try known.status == 200 && session(known).deviceToken == nil, "nor the device token's device")
        #expect(
            try signIn("secret", from: "10.6.6.6", device: "tablet", deviceToken: deviceToken).status == 401,
            "a token is its own device's")
        // A name with no account: the same answer, and a password check all the same.
        fixture.wait(10)
        let checked = checks.withLock { $0 }
        let unknown = try signIn("secret", from: "10.0.0.3", name: "nobody")
        #expect(unknown.status == 401 && checks.withLock { $0 } == checked + 1, "\(checks.withLock { $0 } - checked)")
        _ = try signIn("wrong", from: "10.0.0.4")
        #expect(checks.withLock { $0 } == checked + 2, "a wrong password costs one check too")
        fixture.wait(10)
        let wrong = try signIn("wrong", from: "10.0.0.5")
        #expect(unknown.body == wrong.body, "the same bytes: \(String(decoding: unknown.body, as: UTF8.self))")
    }

    @Test(
        "W11 W17 a hundred guesses at once cost one password check per name, a handful per client; an early one is refused unchecked with the answer a wrong password gets, the right password included; after the wait it works; sign-ups are limited per client"
    )
    func concurrentGuesses() throws {
        let fixture = try Fixture()
        _ = try fixture.session(AccountWire.methods.signUp, "ann", "secret", "phone")
        func guesses(_ names: [String], password: String = "wrong") -> [AccountCallError?] {
            let answers = Locked<[AccountCallError?]>([])
            DispatchQueue.concurrentPerform(iterations: names.count) { index in
                let answer = try? fixture.call(
                    AccountWire.methods.signIn, .init(name: names[index], password: password, device: "thief"))
                answers.withLock { $0.append(answer?.error) }
            }
            return answers.withLock { $0 }
        }
        let checks = { fixture.checks.withLock { $0 } }
        // The clock does not move: nobody waits for an answer before the next guess.
        let before = checks()
        let atOnce = guesses(Array(repeating: "ann", count: 100))
        #expect(checks() == before + 1, "one check of ann's password")
        #expect(atOnce.allSatisfy { $0?.kind == .signInRefused })
        let early = try fixture.call(
            AccountWire.methods.signIn, .init(name: "ann", password: "secret", device: "phone"))
        #expect(
            early.status == 401 && early.error?.kind == .signInRefused && early.value == nil,
            "refused before the password is looked at")
        fixture.wait(SignInLimits.shortWait(after: 1))
        #expect(
            try fixture.call(AccountWire.methods.signIn, .init(name: "ann", password: "secret", device: "phone")).value?
                .token
                != nil, "after the wait")
        // One client guessing a hundred names: a few checks, then it waits too.
        let sprayed = checks()
        _ = guesses((0..<100).map { "name\($0)" })
        let after = checks()
        #expect(
            after - sprayed >= 1 && after - sprayed <= SignInLimits.addressInFlight + SignInLimits.addressFreeFailures,
            "\(after - sprayed) checks")
        // Another client is not held up by this one.
        let elsewhere = fixture.service.handle(
            body: try AccountWire.body(
                AccountWire.methods.signIn, .init(name: "ann", password: "secret", device: "tablet")),
            authorization: nil, client: "10.0.0.9"
        )
        #expect(elsewhere.status == 200)
        // Sign-ups: a burst from one client, then one every few seconds.
        var made = 0
        for index in 0..<(Int(SignInGate.signUpBurst) + 5) {
            let answer = fixture.service.handle(
                body: try AccountWire.body(
                    AccountWire.methods.signUp, .init(name: "new\(index)", password: "pw", device: "d")),
                authorization: nil, client: "10.0.0.7"
            )
            if answer.status == 200 { made += 1 } else { #expect(answer.status == 429) }
        }
        #expect(made == Int(SignInGate.signUpBurst))
        fixture.wait(SignInGate.signUpEvery)
        #expect(
            fixture.service.handle(
                body: try AccountWire.body(
                    AccountWire.methods.signUp, .init(name: "later", password: "pw", device: "d")),
                authorization: nil, client: "10.0.0.7"
            ).status == 200)
    }

    @Test(
        "W2 W11 a device names itself as a device folder is named: a sign-in or sign-up whose device name could write to the owner's terminal (`account sessions` lists it) is refused before the password is checked, and keeps no session and no account"
    )
    func deviceNames() throws {
        let fixture = try Fixture()
        _ = try fixture.session(AccountWire.methods.signUp, "ann", "secret", "phone")
        let names = [
            "\u{1B}]52;c;b3duZWQ=\u{07}", "\u{1B}[2K\u{1B}[1Aphone", "phone\n0123abcd  laptop", "",
            String(repeating: "x", count: 65), ".hidden",
        ]
        for device in names {
            for (method, name) in [(AccountWire.methods.signIn, "ann"), (AccountWire.methods.signUp, "mallory")] {
                let answer = try fixture.call(
                    method, AccountRequests.Credentials(name: name, password: "secret", device: device))
                #expect(
                    answer.status == 400 && answer.value == nil && answer.delay == 0,
                    "\(method.name) \(device.debugDescription): \(answer)")
                #expect(
                    answer.error?.storeError(server: "s") == .invalidDeviceName(device),
                    "\(method.name) \(device.debugDescription): \(String(describing: answer.error))")
            }
        }
        #expect(try fixture.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM session") } == 1)
        #expect(try fixture.database.passwordHash(account: "mallory") == nil)
        // A name a device folder takes is a session.
        _ = try fixture.session(AccountWire.methods.signIn, "ann", "secret", "tablet-2.home_b")
    }

    @Test(
        "W1 W9 a server that knows its catalog refuses a new purchase, or a change to another plan, of a product it does not sell, and records nothing; a customer's renewal line is refused whatever it names"
    )
    func unsoldProducts() throws {
        let fixture = try Fixture()
        let service = AccountService(
            database: fixture.database, hasher: .fastForTests, clock: fixture.state.clock,
            developerToken: { "dev-token" }, sold: ["comic.a"])
        let ann = try #require(
            try JSONDecoder().decode(
                AccountWire.Reply<AccountSession>.self,
                from: service.handle(
                    body: try AccountWire.body(
                        AccountWire.methods.signUp, .init(name: "ann", password: "secret", device: "phone")),
                    authorization: nil
                ).body
            ).value.token)
        func call<Request, Value>(_ method: AccountMethod<Request, Value>, _ request: Request) throws -> (
            Int, AccountCallError?
        ) {
            let answer = service.handle(body: try AccountWire.body(method, request), authorization: "Session \(ann)")
            return (answer.status, try? JSONDecoder().decode(RemoteAccountServer.Failure.self, from: answer.body).error)
        }
        var unsold = fixture.purchase("ann", "3000000000000001")
        unsold.productID = "comic.elsewhere"
        let refused = try call(AccountWire.methods.record, .init(entry: unsold, timeZone: "UTC"))
        #expect(
            refused.0 == 400
                && refused.1?.storeError(server: "s") == .notSoldByServer(productID: "comic.elsewhere", server: "s"),
            "\(refused)")
        // The text is what a device that does not know the kind shows: whole, with no gap for a name.
        #expect(
            refused.1?.text.hasPrefix(
                "the account server does not sell comic.elsewhere: its catalog is not this device's") == true,
            "\(refused)")
        var change = unsold
        change.event = .change
        for line in [unsold, change] {
            let lines = try call(AccountWire.methods.addPlanLines, .init(account: "ann", expected: [:], lines: [line]))
            #expect(lines.0 == 400 && lines.1?.kind == .notSold, "\(line.event): \(lines)")
        }
        #expect(try fixture.database.receipt(account: "ann").isEmpty)
        // W9: what the server sells is not a device's to record either (`settlePurchase` is), nor a
        // renewal, sold or not (`settlePlans` is).
        let sold = try call(
            AccountWire.methods.record, .init(entry: fixture.purchase("ann", "3000000000000002"), timeZone: "UTC"))
        #expect(sold.0 == 400 && sold.1?.kind == .refused, "\(sold)")
        var renewal = unsold
        renewal.event = .renewal
        let renewed = try call(AccountWire.methods.addPlanLines, .init(account: "ann", expected: [:], lines: [renewal]))
        #expect(renewed.0 == 400 && renewed.1?.kind == .refused, "\(renewed)")
        #expect(try fixture.database.receipt(account: "ann").isEmpty)
    }

    @Test("W6 a malformed call is refused with a clear error")
    func malformed() throws {
        let fixture = try Fixture()
        let answer = fixture.service.handle(body: Data("{\"receipt\":".utf8), authorization: nil)
        #expect(answer.status == 400)
        let error = try JSONDecoder().decode(RemoteAccountServer.Failure.self, from: answer.body).error
        #expect(error.text.hasPrefix("not a call this server knows"))
    }
}

@Suite("A device's account server that does not answer")
struct SilentServerTests {
    @Test(
        "W4 a server that accepts and never answers costs one wait: the calls right after fail at once with the same words"
    )
    func oneWait() throws {
        let listener = try SilentListener()
        let server = try RemoteAccountServer(
            url: try #require(URL(string: "http://127.0.0.1:\(listener.port)")), timeout: 0.5)
        var problems: [HTTPProblem] = []
        for _ in 0..<3 {
            let outcome = Result { () throws(StoreError) -> ClockSetting in try server.clockSetting() }
            if case .failure(.serverUnreachable(_, let problem)) = outcome { problems.append(problem) }
        }
        #expect(problems.count == 3 && problems.allSatisfy { $0 == problems[0] } && problems[0].timedOut, "\(problems)")
        // Only the first call connected: the backlog holds one connection.
        #expect(listener.takeConnections() == 1)
    }
}

// W2 and W6 in-process: the account server's side of `--server` — sessions per device, one
// account never reading or changing another's, revoked and stolen tokens refused, failed sign-ins
// slowed, settings changed only by a signed-in device, and nothing changed by a refusal.
import Foundation
import Testing
import TestSupport
@testable import StoreCore
@testable import StorefrontServer

@Suite("The account server over the network: sessions and refusals")
struct AccountServiceTests {
    struct Fixture {
        let state = TemporaryState()
        let database: ServerDatabase
        let service: AccountService

        init() throws {
            try state.directory.prepare()
            database = try ServerDatabase(url: state.directory.serverDatabase)
            service = AccountService(database: database, hasher: .fastForTests, clock: state.clock)
        }

        func call<Value: Decodable>(_ call: AccountCall, tokens: [String] = [], as type: Value.Type = Value.self) throws -> (status: Int, value: Value?, error: AccountCallError?, delay: TimeInterval) {
            let answer = service.handle(body: try JSONEncoder().encode(call), authorization: tokens.isEmpty ? nil : "Session " + tokens.joined(separator: " "))
            let value = try? JSONDecoder().decode(RemoteAccountServer.Reply<Value>.self, from: answer.body).value
            let error = try? JSONDecoder().decode(RemoteAccountServer.Failure.self, from: answer.body).error
            return (answer.status, value, error, answer.delay)
        }

        func session(_ call: AccountCall) throws -> String {
            try #require(try self.call(call, as: AccountSession.self).value?.token)
        }

        func purchase(_ account: String, _ id: String) -> ReceiptEntry {
            ReceiptEntry(transactionID: id, account: account, productID: "comic.a", kind: .nonConsumable, purchaseDate: utc(2026, 1, 15), device: "phone")
        }
    }

    @Test("W2 sign-up and sign-in give a session per device; the password is checked on the server and kept as a slow hash")
    func sessions() throws {
        let fixture = try Fixture()
        let phone = try fixture.session(.signUp(name: "Ann", password: "secret", device: "phone"))
        let tablet = try fixture.session(.signIn(name: "ann", password: "secret", device: "tablet"))
        #expect(phone != tablet)
        #expect(try fixture.database.sessionAccount(token: phone) == "Ann")
        let hash = try #require(try fixture.database.passwordHash(account: "ann")?.hash)
        #expect(hash.hasPrefix("scrypt$") && !hash.contains("secret"))
        // Tokens are kept only as hashes.
        let kept = try fixture.database.read { db in try String.fetchAll(db, sql: "SELECT tokenHash FROM session") }
        #expect(kept.count == 2 && !kept.contains(phone) && !kept.contains(tablet))
        #expect(try fixture.call(.record(fixture.purchase("ann", "1000000000000001"), timeZone: "UTC"), tokens: [phone], as: Date?.self).status == 200)
        #expect(try fixture.call(.receipt(account: "ann"), tokens: [tablet], as: [ReceiptEntry].self).value?.count == 1, "the other device sees it")
    }

    @Test("W6 one account never reads or changes another's; revoked and unknown tokens are refused; nothing changes")
    func isolation() throws {
        let fixture = try Fixture()
        let ann = try fixture.session(.signUp(name: "ann", password: "secret", device: "phone"))
        let bob = try fixture.session(.signUp(name: "bob", password: "hunter2", device: "phone"))
        #expect(try fixture.call(.record(fixture.purchase("bob", "2000000000000001"), timeZone: "UTC"), tokens: [bob], as: Date?.self).status == 200)
        let before = try fixture.database.receipt(account: "bob")

        let refused: [(String, AccountCall, [String])] = [
            ("bob's receipt with ann's session", .receipt(account: "bob"), [ann]),
            ("bob's plans with ann's session", .plans(account: "bob"), [ann]),
            ("a purchase on bob's receipt with ann's session", .record(fixture.purchase("bob", "2000000000000002"), timeZone: "UTC"), [ann]),
            ("plan lines on bob's receipt", .addPlanLines(account: "bob", expected: [:], lines: [fixture.purchase("bob", "2000000000000003")]), [ann]),
            ("bob's notifications", .notifications(account: "bob"), [ann]),
            ("bob's device sessions", .deviceSessions(account: "bob"), [ann]),
            ("revoking bob's session", .revokeDeviceSession(account: "bob", id: String(SessionToken.hash(bob).prefix(12))), [ann]),
            ("no session", .receipt(account: "bob"), []),
            ("a made-up token", .receipt(account: "bob"), ["not-a-token"]),
            ("a setting without a session", .setWebhook(Webhook(url: "http://127.0.0.1:9/x")), []),
        ]
        for (what, call, tokens) in refused {
            let answer = try fixture.call(call, tokens: tokens, as: Bool.self)
            #expect(answer.status == 401 && answer.error?.kind == "session", "\(what): \(answer.status)")
        }
        // Lines for bob smuggled into ann's own call.
        let smuggled = try fixture.call(.addPlanLines(account: "ann", expected: [:], lines: [fixture.purchase("bob", "2000000000000004")]), tokens: [ann], as: Bool.self)
        #expect(smuggled.status != 200)
        // A lookup by id of bob's transaction tells ann nothing.
        #expect(try fixture.call(.receiptEntry(transactionID: "2000000000000001"), tokens: [ann], as: ReceiptEntry?.self).value == .some(nil))
        #expect(try fixture.call(.accountsWithPlans, tokens: [ann], as: [String].self).value == [])

        // Signing out revokes the token for good.
        #expect(try fixture.call(.signOut, tokens: [bob], as: Bool.self).status == 200)
        #expect(try fixture.call(.receipt(account: "bob"), tokens: [bob], as: [ReceiptEntry].self).status == 401)
        #expect(try fixture.database.receipt(account: "bob") == before)
        #expect(try fixture.database.webhook() == nil)
    }

    @Test("W6 failed sign-ins are slowed, doubling to five seconds; a success starts again")
    func slowedSignIns() throws {
        let fixture = try Fixture()
        _ = try fixture.session(.signUp(name: "ann", password: "secret", device: "phone"))
        var delays: [TimeInterval] = []
        for _ in 0..<7 {
            let answer = try fixture.call(.signIn(name: "ann", password: "wrong", device: "thief"), as: AccountSession.self)
            #expect(answer.status == 401 && answer.error?.kind == "wrongPassword")
            delays.append(answer.delay)
        }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 5, 5])
        #expect(try fixture.call(.signIn(name: "nobody", password: "x", device: "thief"), as: AccountSession.self).delay == 0.25, "unknown names wait too")
        #expect(try fixture.call(.signIn(name: "ann", password: "secret", device: "phone"), as: AccountSession.self).delay == 0)
        #expect(try fixture.call(.signIn(name: "ann", password: "wrong", device: "thief"), as: AccountSession.self).delay == 0.25)
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
    @Test("W4 a server that accepts and never answers costs one wait: the calls right after fail at once with the same words")
    func oneWait() throws {
        let listener = try SilentListener()
        let server = try RemoteAccountServer(url: try #require(URL(string: "http://127.0.0.1:\(listener.port)")), timeout: 0.5)
        var reasons: [String] = []
        for _ in 0..<3 {
            let outcome = Result { () throws(StoreError) -> ClockSetting in try server.clockSetting() }
            if case .failure(.serverUnreachable(_, let reason)) = outcome { reasons.append(reason) }
        }
        #expect(reasons.count == 3 && Set(reasons).count == 1 && reasons[0].contains("timed out"), "\(reasons)")
        // Only the first call connected: the backlog holds one connection.
        #expect(listener.takeConnections() == 1)
    }
}

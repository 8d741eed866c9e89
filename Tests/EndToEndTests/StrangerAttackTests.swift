// Attacks an outside tester made on a team server with her own session and raw calls on the wire,
// one named test each, on SQLite and PostgreSQL: each is refused or harmless, and what the victims
// hold is unchanged.
import Foundation
import StoreCore
import TestSupport
import Testing

@Suite(
    "a signed-up stranger's attacks on a team server, one by one", .serialized, .tags(.postgres, .python),
    .notInFastRun)
struct StrangerAttackTests {
    typealias Backend = StrangerTests.Backend
    typealias Wire = StrangerTests.Wire
    struct None: Encodable {}

    @Test(
        "W9 a family oracle: a change of someone else's family, even one that changes nothing, gets one refusal whatever it guessed",
        arguments: Backend.allCases)
    func familyOracle(backend: Backend) throws {
        let team = try SelfiesTeam(backend: backend)
        let vic = try team.machine()
        let mem = try team.machine()
        let eve = try team.machine()
        try mem.signUp("mem")
        try vic.signUp("vic")
        try eve.signUp("eve")
        try vic.run(["family", "create"]).expectSuccess()
        try vic.run(["family", "add", "mem"]).expectSuccess()
        let wire = Wire(base: team.server.base)
        let eveSession = try wire.session("eve", password: "pw-eve")
        let vicSession = try wire.session("vic", password: "pw-vic")
        let family = try #require(try wire.families(session: vicSession).first { $0.organizer == "vic" })
        var wrong = family
        wrong.members = ["someone"]
        var answers: [String] = []
        for guess in [family, wrong] {
            let answer = try wire.call(
                "changeFamily", FamilyChange(organizer: "vic", expected: guess, new: guess), session: eveSession)
            #expect(answer.status == 403, "\(answer)")
            let body = try JSONSerialization.data(withJSONObject: answer.body, options: .sortedKeys)
            answers.append("\(answer.status) " + String(decoding: body, as: UTF8.self))
        }
        #expect(answers[0] == answers[1], "the right guess and a wrong one answer the same: \(answers)")
        var joined = family
        joined.members.append("eve")
        let join = try wire.call(
            "changeFamily", FamilyChange(organizer: "vic", expected: family, new: joined), session: eveSession)
        #expect(join.status == 403, "\(join)")
        // The family's own people still may: the organizer's no-op is answered.
        let own = try wire.call(
            "changeFamily", FamilyChange(organizer: "vic", expected: family, new: family), session: vicSession)
        #expect(own.status == 200, "\(own)")
        #expect(try wire.families(session: vicSession).first { $0.organizer == "vic" } == family)
        #expect(team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "O3 W9 an offer code's claims are case-insensitive: a use taken under one spelling is taken under every other, and offer-codes counts what the server enforces",
        arguments: Backend.allCases)
    func offerCodeSpellings(backend: Backend) throws {
        let team = try SelfiesTeam(backend: backend)
        let developer = try team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        let vic = try team.machine()
        let eve = try team.machine()
        try vic.signUp("vic")
        try eve.signUp("eve")
        try developer.run(["offer-codes", "create", "SPRING-PROMO", "--custom", "ERINGIFT7", "--limit", "1"])
            .expectSuccess()
        let wire = Wire(base: team.server.base)
        let eveSession = try wire.session("eve", password: "pw-eve")
        let vicSession = try wire.session("vic", password: "pw-vic")
        struct Claim: Encodable {
            var key, account: String
            var limit: Int
        }
        let first = try wire.call(
            "claim", Claim(key: "offer-code:ERINGIFT7", account: "eve", limit: 1), session: eveSession)
        #expect(first.status == 200 && first.body["value"] as? Bool == true, "\(first)")
        for (spelling, account, session) in [
            ("eringift7", "eve", eveSession), ("ERINGIFT7", "vic", vicSession),
            ("EriNGift7", "eve", eveSession), ("eringift7", "vic", vicSession),
        ] {
            let again = try wire.call(
                "claim", Claim(key: "offer-code:" + spelling, account: account, limit: 1), session: session)
            #expect(again.body["value"] as? Bool != true, "\(spelling) for \(account): \(again)")
        }
        let counted = try wire.call("claims", "offer-code:eringift7", session: vicSession)
        #expect(counted.body["value"] as? Int == 1, "\(counted)")
        let codes = try developer.object(["offer-codes", "list"])["codes"] as? [[String: Any]] ?? []
        #expect(codes.map { [$0["used"] as? Int, $0["limit"] as? Int] } == [[1, 1]], "\(codes)")
        #expect(team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "W9 refusals say nothing of the server's insides, and look-ups need a session: a developer-only call names no database, hasNotification and offerCode refuse a caller with none",
        arguments: Backend.allCases)
    func refusalsWithoutInternals(backend: Backend) throws {
        let team = try SelfiesTeam(backend: backend)
        let eve = try team.machine()
        try eve.signUp("eve")
        let wire = Wire(base: team.server.base)
        let eveSession = try wire.session("eve", password: "pw-eve")
        let state = team.host.stateDirectory.path
        for (method, session) in [("offerCodes", Optional(eveSession)), ("offerCodes", nil)] {
            let answer = try wire.call(method, None(), session: session)
            let text = "\(answer.body)"
            #expect(answer.status == 403, "\(answer)")
            for inside in [state, "server.sqlite", "postgres", "5432", "storefront_"] {
                #expect(!text.contains(inside), "the refusal names \(inside): \(text)")
            }
        }
        for (method, request) in [("hasNotification", "test:x"), ("offerCode", "ERINGIFT7")] {
            let anonymous = try wire.call(method, request)
            #expect(anonymous.status == 401, "\(method) with no session: \(anonymous)")
            let signedIn = try wire.call(method, request, session: eveSession)
            #expect(signedIn.status == 200, "\(method) signed in: \(signedIn)")
        }
        #expect(team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "W9 forged purchase lines: a period at no price under no offer that runs to 2100, a negative price and a consumable's kind for a plan, a purchase naming another account's original transaction: each is refused, and the stranger's own receipt and signed data hold only what the catalog allows",
        arguments: Backend.allCases)
    func forgedLines(backend: Backend) throws {
        let team = try SelfiesTeam(backend: backend)
        let vic = try team.machine()
        let eve = try team.machine()
        try vic.signUp("vic")
        try eve.signUp("eve")
        try vic.run(["buy", "com.storefront.selfies.sub.allaccess"]).expectSuccess()
        let plans = try vic.object(["subscriptions"])["plans"] as? [[String: Any]] ?? []
        let vicsOriginal = try #require(plans.first?["originalTransaction"] as? String)
        let wire = Wire(base: team.server.base)
        let eveSession = try wire.session("eve", password: "pw-eve")
        let product = "com.storefront.selfies.sub.allaccess"
        let now = Date()
        func line(_ id: String, price: Decimal?, expires: Date?, kind: ProductKind = .autoRenewableSubscription)
            -> ReceiptEntry
        {
            ReceiptEntry(
                transactionID: id, account: "eve", productID: product, kind: kind, purchaseDate: now, device: "raw",
                event: .purchase, group: kind == .autoRenewableSubscription ? "selfies" : nil, expiresDate: expires,
                price: price)
        }
        struct AddLines: Encodable {
            var account: String
            var expected: [String: PlanState]
            var lines: [ReceiptEntry]
        }
        struct Record: Encodable {
            var entry: ReceiptEntry
            var timeZone: String
        }
        let forever = try #require(ISO8601DateFormatter().date(from: "2100-01-01T00:00:00Z"))
        var stolen = line("9000000000000003", price: 4.99, expires: now.addingTimeInterval(7 * 86_400))
        stolen.reference = vicsOriginal
        let attempts: [(String, any Encodable)] = [
            (
                "addPlanLines",
                AddLines(account: "eve", expected: [:], lines: [line("9000000000000001", price: 0, expires: forever)])
            ),
            (
                "record",
                Record(entry: line("9000000000000002", price: -50, expires: nil, kind: .consumable), timeZone: "UTC")
            ),
            ("addPlanLines", AddLines(account: "eve", expected: [:], lines: [stolen])),
        ]
        for (method, request) in attempts {
            let answer = try wire.call(method, request, session: eveSession)
            let error = answer.body["error"] as? [String: Any]
            #expect(answer.status == 400 && error?["kind"] as? String == "refused", "\(method): \(answer)")
        }
        let receipt = try eve.object(["receipt"])
        #expect((receipt["entries"] as? [Any])?.count == 0, "\(receipt)")
        #expect((try eve.object(["subscriptions"])["plans"] as? [Any])?.count == 0)
        #expect(team.server.stop().status == 0, "\(team.server.errorsTail)")
    }
}

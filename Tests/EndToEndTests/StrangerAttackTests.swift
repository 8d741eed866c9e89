// Attacks an outside tester made on a team server with her own session and raw calls on the wire,
// one named test each, on SQLite and PostgreSQL: each is refused or harmless, and what the victims
// hold is unchanged.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@Suite(
    "a signed-up stranger's attacks on a team server, one by one", .serialized, .tags(.postgres, .python),
    .notInFastRun)
struct StrangerAttackTests {
    typealias Backend = StrangerTests.Backend
    typealias Wire = StrangerTests.Wire
    struct None: Encodable {}

    /// A team on which vic subscribed to All Access, and eve signed up and holds a raw session.
    struct Subscribed {
        let team: SelfiesTeam
        let eve: Session
        let vicsOriginal: String
        let wire: Wire
        let eveSession: String

        init(backend: Backend) async throws {
            team = try await SelfiesTeam(backend: backend)
            let vic = try await team.machine()
            eve = try await team.machine()
            try await vic.signUp("vic")
            try await eve.signUp("eve")
            try await vic.run(["buy", "com.storefront.selfies.sub.allaccess"]).expectSuccess()
            let plans = try await vic.object(["subscriptions"])["plans"] as? [[String: Any]] ?? []
            vicsOriginal = try #require(plans.first?["originalTransaction"] as? String)
            wire = Wire(base: team.server.base)
            eveSession = try wire.session("eve", password: "pw-eve")
        }
    }

    @Test(
        "W9 a family oracle: a change of someone else's family, even one that changes nothing, gets one refusal whatever it guessed",
        arguments: Backend.allCases)
    func familyOracle(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let vic = try await team.machine()
        let mem = try await team.machine()
        let eve = try await team.machine()
        try await mem.signUp("mem")
        try await vic.signUp("vic")
        try await eve.signUp("eve")
        try await vic.run(["family", "create"]).expectSuccess()
        try await vic.run(["family", "add", "mem"]).expectSuccess()
        try await mem.run(["family", "accept"]).expectSuccess()
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
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "O3 W9 an offer code's claims are case-insensitive: a use taken under one spelling is taken under every other, and offer-codes counts what the server enforces",
        arguments: Backend.allCases)
    func offerCodeSpellings(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let developer = try await team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        let vic = try await team.machine()
        let eve = try await team.machine()
        try await vic.signUp("vic")
        try await eve.signUp("eve")
        try await developer.run(["offer-codes", "create", "SPRING-PROMO", "--custom", "ERINGIFT7", "--limit", "1"])
            .expectSuccess()
        let wire = Wire(base: team.server.base)
        let eveSession = try wire.session("eve", password: "pw-eve")
        let vicSession = try wire.session("vic", password: "pw-vic")
        let product = "com.storefront.selfies.sub.allaccess.monthly"
        let first = try wire.call(
            "grantOffer",
            OfferAsk(transactionID: "9200000000000001", account: "eve", productID: product, code: "ERINGIFT7"),
            session: eveSession)
        #expect(first.status == 200, "\(first)")
        for (index, (spelling, account, session)) in [
            ("eringift7", "eve", eveSession), ("ERINGIFT7", "vic", vicSession),
            ("EriNGift7", "eve", eveSession), ("eringift7", "vic", vicSession),
        ].enumerated() {
            let again = try wire.call(
                "grantOffer",
                OfferAsk(
                    transactionID: "920000000000001\(index)", account: account, productID: product, code: spelling),
                session: session)
            #expect(again.status == 400, "\(spelling) for \(account): \(again)")
        }
        let counted = try wire.call("claims", "offer-code:eringift7", session: vicSession)
        #expect(counted.body["value"] as? Int == 1, "\(counted)")
        let codes = try await developer.object(["offer-codes", "list"])["codes"] as? [[String: Any]] ?? []
        #expect(codes.map { [$0["used"] as? Int, $0["limit"] as? Int] } == [[1, 1]], "\(codes)")
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "W9 refusals say nothing of the server's insides, and look-ups need a session: a developer-only call names no database, hasNotification and offerCode refuse a caller with none",
        arguments: Backend.allCases)
    func refusalsWithoutInternals(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let eve = try await team.machine()
        try await eve.signUp("eve")
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
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "W9 forged purchase lines: a period at no price under no offer that runs to 2100, a negative price and a consumable's kind for a plan, a purchase naming another account's original transaction, and any renewal, cancel, expiry, price consent, refund request, family share or consumption answer a device writes itself: each is refused, and the stranger's own receipt and signed data hold only what the catalog allows",
        arguments: Backend.allCases)
    func forgedLines(backend: Backend) async throws {
        let scene = try await Subscribed(backend: backend)
        let product = "com.storefront.selfies.sub.allaccess"
        let now = Date()
        func line(_ id: String, price: Decimal?, expires: Date?, kind: ProductKind = .autoRenewableSubscription)
            -> ReceiptEntry
        {
            ReceiptEntry(
                transactionID: id, account: "eve", productID: product, kind: kind, purchaseDate: now,
                device: "raw",
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
        stolen.reference = scene.vicsOriginal
        // W9: what the App Store decides (a renewal, a cancel, an expiry, a price consent, a refund
        // request, a family share or its revocation, consumption information) is written by the
        // server only, however plausible the line.
        let events: [ReceiptEvent] = [
            .renewal, .cancel, .expire, .priceConsent, .billingRecovered, .refundRequest, .familyShare, .familyRevoke,
            .consumptionInfo,
        ]
        let decided = events.enumerated().map { index, event in
            var decided = line("90000000000001\(10 + index)", price: 1.99, expires: now.addingTimeInterval(86_400))
            decided.event = event
            return ("addPlanLines", AddLines(account: "eve", expected: [:], lines: [decided]))
                as (String, any Encodable)
        }
        let attempts: [(String, any Encodable)] =
            decided + [
                (
                    "addPlanLines",
                    AddLines(
                        account: "eve", expected: [:], lines: [line("9000000000000001", price: 0, expires: forever)])
                ),
                (
                    "record",
                    Record(
                        entry: line("9000000000000002", price: -50, expires: nil, kind: .consumable), timeZone: "UTC")
                ),
                ("addPlanLines", AddLines(account: "eve", expected: [:], lines: [stolen])),
            ]
        for (method, request) in attempts {
            let answer = try scene.wire.call(method, request, session: scene.eveSession)
            let error = answer.body["error"] as? [String: Any]
            #expect(answer.status == 400 && error?["kind"] as? String == "refused", "\(method): \(answer)")
        }
        // A refund request is an ask the server checks: none for another account, none of the
        // victim's purchase under her own.
        let refunds: [(String, RefundAsk, Int, String)] = [
            (
                "for another account",
                RefundAsk(account: "vic", transactionID: scene.vicsOriginal, reason: .other, device: "raw"), 401,
                "session"
            ),
            (
                "of the victim's purchase",
                RefundAsk(account: "eve", transactionID: scene.vicsOriginal, reason: .other, device: "raw"), 400,
                "unknownTransaction"
            ),
        ]
        for (what, ask, status, kind) in refunds {
            let answer = try scene.wire.call("fileRefundRequest", ask, session: scene.eveSession)
            let error = answer.body["error"] as? [String: Any]
            #expect(answer.status == status && error?["kind"] as? String == kind, "\(what): \(answer)")
        }
        let receipt = try await scene.eve.object(["receipt"])
        #expect((receipt["entries"] as? [Any])?.count == 0, "\(receipt)")
        #expect((try await scene.eve.object(["subscriptions"])["plans"] as? [Any])?.count == 0)
        #expect(try await scene.team.server.stop().status == 0, "\(scene.team.server.errorsTail)")
    }

    @Test(
        "W9 forged purchases: a stranger settles nothing for another account, under another's transaction, with an offer nobody granted, on a billing plan the product lacks or a product the server does not sell, with an outcome she chose or with no payment the server decided; what she buys herself costs what the catalog says, dated no later than the server's clock, once",
        arguments: Backend.allCases)
    func forgedPurchases(backend: Backend) async throws {
        let scene = try await Subscribed(backend: backend)
        let product = "com.storefront.selfies.sub.allaccess"
        let forever = try #require(ISO8601DateFormatter().date(from: "2100-01-01T00:00:00Z"))
        func ask(_ id: String, _ change: (inout PurchaseAsk) -> Void = { _ in }) -> PurchaseAsk {
            var ask = PurchaseAsk(
                transactionID: id, account: "eve", productID: product, device: "raw", at: Date())
            change(&ask)
            return ask
        }
        let refused: [(String, PurchaseAsk, Int, String)] = [
            ("for another account", ask("9300000000000001") { $0.account = "vic" }, 401, "session"),
            ("under the victim's transaction", ask(scene.vicsOriginal), 400, "refused"),
            (
                "with an offer nobody granted",
                ask("9300000000000002") { $0.offer = OfferRedemption(type: .promotional, id: "anything") }, 400,
                "refused"
            ),
            (
                "with an introductory offer nobody granted", ask("9300000000000003") { $0.introductoryOffer = true },
                400, "refused"
            ),
            (
                "monthly, which the product does not offer", ask("9300000000000004") { $0.billingPlan = .monthly }, 400,
                "planRefused"
            ),
            (
                "of a product the server does not sell", ask("9300000000000005") { $0.productID = "com.example.free" },
                400, "notSold"
            ),
        ]
        // A device buys by asking the App Store to decide the payment, which (the team's policy:
        // approve) settles it in the same call; each forged purchase is refused there.
        func decide(_ request: PurchaseAsk, outcome: PurchaseOutcome? = nil) throws -> (
            status: Int, body: [String: Any]
        ) {
            try scene.wire.call(
                "decidePayment", PaymentAsk(purchase: request, outcome: outcome), session: scene.eveSession)
        }
        for (what, request, status, kind) in refused {
            let answer = try decide(request)
            let error = answer.body["error"] as? [String: Any]
            #expect(answer.status == status && error?["kind"] as? String == kind, "\(what): \(answer)")
        }
        // A payment she chose the outcome of, or that the App Store never decided, is not settled.
        let chosen = try decide(ask("9300000000000007"), outcome: .approve)
        #expect(
            chosen.status == 400 && (chosen.body["error"] as? [String: Any])?["kind"] as? String == "developer",
            "a customer chooses no outcome: \(chosen)")
        for id in ["9300000000000006", "9300000000000007"] {
            let answer = try scene.wire.call("settlePurchase", ask(id), session: scene.eveSession)
            let error = answer.body["error"] as? [String: Any]
            #expect(answer.status == 400 && error?["kind"] as? String == "refused", "undecided \(id): \(answer)")
        }
        #expect((try await scene.eve.object(["subscriptions"])["plans"] as? [Any])?.count == 0, "nothing was settled")

        // Her own purchase, dated 2100 and asked twice: one plan, at the catalog's price, from now.
        let own = ask("9300000000000009") { $0.at = forever }
        for _ in 0..<2 {
            let answer = try decide(own)
            #expect(answer.status == 200, "\(answer)")
        }
        let settledAgain = try scene.wire.call("settlePurchase", own, session: scene.eveSession)
        #expect(settledAgain.status == 200, "settling a settled purchase again changes nothing: \(settledAgain)")
        let receipt = try await scene.eve.object(["receipt"])
        let entries = receipt["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == 1, "\(receipt)")
        #expect(
            entries.first?["price"] as? String == "1.99" || entries.first?["price"] as? Double == 1.99, "\(receipt)")
        let bought = try #require(try await scene.eve.object(["subscriptions"])["plans"] as? [[String: Any]])
        let expires = (bought.first?["expires"] as? String).flatMap(ISO8601DateFormatter().date(from:))
        #expect(expires.map { $0 < Date().addingTimeInterval(30 * 86_400) } == true, "\(bought)")
        // Read back as a backend reads it, through the App Store Server API, and verified by Apple's
        // library: the catalog's price and kind, whatever the device sent.
        let developer = try await scene.team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = scene.team.token
        let api = ServeTests()
        let read = try await api.call(
            scene.team.server, try await api.makeKey(developer), bundleID: "com.storefront.selfies",
            [["call": "transaction_info", "id": own.transactionID]])
        let info = try #require(api.result(read[0])["signedTransactionInfo"] as? String, "\(read)")
        let verified = try await AppleVerifier.verify(
            [("transaction", info)], session: scene.team.host, bundleID: "com.storefront.selfies")
        let decoded = verified.first?.decoded ?? [:]
        #expect(verified.first?.ok == true, "\(verified)")
        #expect(
            decoded["price"] as? Int == 1_990 && decoded["type"] as? String == "Auto-Renewable Subscription"
                && decoded["productId"] as? String == product,
            "\(decoded)")
        let purchased = (decoded["purchaseDate"] as? Int).map { Date(timeIntervalSince1970: Double($0) / 1_000) }
        #expect(
            purchased.map { $0 < Date().addingTimeInterval(86_400) } == true, "dated by the server's clock: \(decoded)")
        #expect(try await scene.team.server.stop().status == 0, "\(scene.team.server.errorsTail)")
    }
}

// Issue 69's attacks on settling (W18): a customer's own session on the raw wire, against
// the real server on SQLite and PostgreSQL. What she sends is a request: the App Store settles the
// payment it decided, under a transaction id of Apple's shape, on its own clock.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

extension StrangerAttackTests {
    @Test(
        "W18 settled as something else: Ask to Buy approved for the $0.99 weekly plan and settled as the $5.99 monthly one is refused; ids not of Apple's shape are refused; a purchase dated 2001 is dated by the server's clock; what she holds is what was decided",
        arguments: Backend.allCases)
    func settledAsSomethingElse(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let developer = try await team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        let eve = try await team.machine()
        try await eve.signUp("eve")
        try await developer.run(["policy", "set", "defer"]).expectSuccess()
        let wire = StrangerTests.Wire(base: team.server.base)
        let session = try wire.session("eve", password: "pw-eve")
        let cheap = "com.storefront.selfies.sub.oneaweek"
        let dear = "com.storefront.selfies.sub.allaccess.monthly"
        let id = "9400000000000001"
        let longAgo = Date(timeIntervalSince1970: 978_307_200)  // 2001-01-01
        func ask(_ product: String, id: String = id) -> PurchaseAsk {
            PurchaseAsk(transactionID: id, account: "eve", productID: product, device: "raw", at: longAgo)
        }
        func kind(_ answer: (status: Int, body: [String: Any])) -> String? {
            (answer.body["error"] as? [String: Any])?["kind"] as? String
        }
        let decided = try wire.call("decidePayment", PaymentAsk(purchase: ask(cheap), outcome: nil), session: session)
        #expect(decided.status == 200, "\(decided)")
        let approved = try wire.call(
            "answerPayment", PaymentAnswer(transactionID: id, account: "eve", answer: .approve), developer: team.token)
        #expect(approved.status == 200, "the developer approves the weekly plan: \(approved)")

        let swapped = try wire.call("settlePurchase", ask(dear), session: session)
        #expect(swapped.status == 400 && kind(swapped) == "refused", "settled as the monthly plan: \(swapped)")
        #expect(
            (try await eve.object(["subscriptions"])["plans"] as? [Any])?.isEmpty == true, "nothing was settled")

        // Ids that are not Apple's: refused before anything is decided or written.
        for bad in [
            "", "abc", String(repeating: "9", count: 200), "12:34", "../../etc", "１２３４",
            String(repeating: "1", count: 10_000),
        ] {
            let answer = try wire.call(
                "decidePayment", PaymentAsk(purchase: ask(cheap, id: bad), outcome: nil), session: session)
            #expect(answer.status == 400 && kind(answer) == "refused", "\(bad.prefix(20)): \(answer)")
        }

        let settled = try wire.call("settlePurchase", ask(cheap), session: session)
        #expect(settled.status == 200, "the weekly plan, as decided: \(settled)")
        let entries = try await eve.object(["receipt"])["entries"] as? [[String: Any]] ?? []
        #expect(entries.map { $0["product"] as? String } == [cheap], "\(entries)")
        #expect(entries.map { $0["id"] as? String } == [id])
        let dated = (entries.first?["purchaseDate"] as? String).flatMap(ISO8601DateFormatter().date(from:))
        let clock = (try await developer.object(["clock"])["now"] as? String).flatMap(
            ISO8601DateFormatter().date(from:))
        #expect(
            dated != nil && dated.flatMap { date in clock.map { abs(date.timeIntervalSince($0)) < 3_600 } } == true,
            "dated by the server's clock (\(String(describing: clock))), not 2001: \(entries)")
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "W18 app transaction ids are minted: vic's is not the hash of his name, a stranger who learns it buys nothing under it, and the Server API still names vic by it",
        arguments: Backend.allCases)
    func appTransactionIDs(backend: Backend) async throws {
        let scene = try await Subscribed(backend: backend)
        let vic = try await scene.team.machine()
        try await vic.signIn("vic")
        let app = try await vic.object(["app"])
        let signed = try #require(app["signedAppTransaction"] as? String)
        let vicsID = try #require(try JWS.decode(signed).payload["appTransactionId"] as? String)
        #expect(vicsID != SignedUnits.legacyAppTransactionID("vic"), "not derived from the name")
        #expect(vicsID.count == 16 && vicsID.hasPrefix("7"))
        let taken = try scene.wire.call(
            "decidePayment",
            PaymentAsk(
                purchase: PurchaseAsk(
                    transactionID: vicsID, account: "eve", productID: "com.storefront.selfies.sub.oneaweek",
                    device: "raw", at: Date()), outcome: nil),
            session: scene.eveSession)
        #expect(
            taken.status == 400 && (taken.body["error"] as? [String: Any])?["kind"] as? String == "refused",
            "a purchase under vic's app transaction id: \(taken)")
        let guessed = try scene.wire.call("appTransactionID", "vic", session: scene.eveSession)
        #expect(guessed.status == 401, "a stranger reads no one's id: \(guessed)")
        let developer = try await scene.team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = scene.team.token
        let api = ServeTests()
        let read = try await api.call(
            scene.team.server, try await api.makeKey(developer), bundleID: "com.storefront.selfies",
            [["call": "app_transaction", "id": vicsID]])
        let info = try #require(api.result(read[0])["signedAppTransactionInfo"] as? String, "\(read)")
        #expect(try JWS.decode(info).payload["appTransactionId"] as? String == vicsID)
        #expect(try await scene.team.server.stop().status == 0, "\(scene.team.server.errorsTail)")
    }

    @Test(
        "W18 offers signed for herself: a customer's session gets the free promotional month's signature once; the developer's token gets it again",
        arguments: Backend.allCases)
    func offersSignedForHerself(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let eve = try await team.machine()
        try await eve.signUp("eve")
        let wire = StrangerTests.Wire(base: team.server.base)
        let session = try wire.session("eve", password: "pw-eve")
        let monthly = "com.storefront.selfies.sub.allaccess.monthly"
        func signed(_ item: SigningRequest, developer: Bool = false) throws -> Bool {
            try Self.signed(
                item, wire: wire, session: developer ? nil : session, developer: developer ? team.token : nil)
        }
        let free = SigningRequest.promotionalOfferJWS(productID: monthly, offerID: "thankyou.freemonth")
        #expect(try signed(free), "the first")
        #expect(try !signed(free), "the free month a second time")
        #expect(try signed(.promotionalOfferJWS(productID: monthly, offerID: "comeback.3months")), "another offer")
        #expect(try signed(free, developer: true), "the developer's token signs what it decides")
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    @Test(
        "W18 the developer's policy decides what the server signs for a customer: no introductory offer again until the developer allows it, then as often as allowed; only the customers it names; a customer neither sets the policy nor reads other customers in it, and neither reads nor adds the developer's keys",
        arguments: Backend.allCases)
    func offerPolicy(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let developer = try await team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        let eve = try await team.machine()
        try await eve.signUp("eve")
        let wire = StrangerTests.Wire(base: team.server.base)
        let session = try wire.session("eve", password: "pw-eve")
        let monthly = "com.storefront.selfies.sub.allaccess.monthly"
        func signed(_ item: SigningRequest) throws -> Bool { try Self.signed(item, wire: wire, session: session) }
        let again = SigningRequest.introductoryOfferEligibilityJWS(productID: monthly, allow: true)
        #expect(try !signed(again), "no free trial again until the developer allows it")
        #expect(
            try signed(.introductoryOfferEligibilityJWS(productID: monthly, allow: false)),
            "withholding her own trial costs only her")
        // The customer sets no policy, and neither reads nor changes the developer's keys.
        let standard = OfferSigningPolicy.standard
        var generous = standard
        generous.introductoryUses = 10
        let set = try wire.call("setOfferPolicy", generous, session: session)
        #expect(set.status == 403, "\(set)")
        let keys = try wire.call("apiKeyring", StrangerAttackTests.None(), session: session)
        #expect(keys.status == 403 && keys.body["value"] == nil, "\(keys)")
        let added = try wire.call("setAPIKeyring", APIKeyring(issuerID: "x", keys: []), session: session)
        #expect(added.status == 403, "\(added)")

        try await developer.run(["offer-policy", "set", "--introductory-uses", "2", "--customers", "eve,vic"])
            .expectSuccess()
        #expect(try signed(again) && signed(again), "twice, as the developer allows")
        #expect(try !signed(again), "not a third time")
        let read = try wire.call("offerPolicy", StrangerAttackTests.None(), session: session)
        let customers = (read.body["value"] as? [String: Any])?["customers"] as? [String]
        #expect(read.status == 200 && customers == ["eve"], "she reads the policy as it applies to her: \(read)")
        let shown = try await developer.object(["offer-policy"])
        #expect(shown["customers"] as? [String] == ["eve", "vic"] && shown["introductoryUses"] as? Int == 2)

        try await developer.run(["offer-policy", "set", "--customers", "vic"]).expectSuccess()
        #expect(
            try !signed(.promotionalOfferJWS(productID: monthly, offerID: "comeback.3months")),
            "a policy for other customers signs nothing for her")
        let refused = try await eve.run(["offer-policy", "set", "--every-customer"])
        #expect(refused.status != 0, "\(refused)")
        #expect(try await developer.object(["offer-policy"])["customers"] as? [String] == ["vic"])
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    /// Whether the server signs `item` for eve, asked with her session or the developer's token.
    static func signed(_ item: SigningRequest, wire: Wire, session: String?, developer: String? = nil) throws -> Bool {
        struct Signing: Encodable {
            var account: String
            var items: [SigningRequest]
        }
        let answer = try wire.call(
            "signed", Signing(account: "eve", items: [item]), session: session, developer: developer)
        #expect(answer.status == 200, "\(item): \(answer)")
        return (answer.body["value"] as? [Any])?.first is String
    }
}

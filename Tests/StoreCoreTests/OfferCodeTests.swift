// O3: offer codes — one-time codes good once, custom codes up to a limit and once per account,
// eligibility as the code offer says, OFFER_REDEEMED notifications, offerType 3 in signed data.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Offer codes")
struct OfferCodeTests {
    func store(_ state: TemporaryState, _ user: String, device: String = "phone") throws -> Store {
        try state.signedIn(user, device: device, catalog: selfiesCatalog)
    }

    func redeemError(_ store: Store, _ code: String) -> StoreError? {
        error { try store.queue.redeem(code: code) }
    }

    @Test("O3 a one-time code is redeemed once, whoever tries it next; the plan starts on the code's offer")
    func oneTime() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 1))
        let ann = try store(state, "ann")
        let codes = try ann.offers.createCodes(offer: "ANYONE", count: 2, custom: nil, limit: 1)
        #expect(
            codes.count == 2 && Set(codes.map(\.code)).count == 2
                && codes.allSatisfy { $0.code.count == 11 && $0.limit == 1 })
        let bought = try ann.queue.redeem(code: codes[0].code.lowercased())
        #expect(bought.state == .purchased && bought.offer == OfferRedemption(type: .code, id: "ANYONE"))
        let line = try #require(try ann.server.planLines(account: "ann").last)
        #expect(
            line.offerType == .code && line.offerID == "ANYONE" && line.price == Decimal(string: "9.99")
                && line.expiresDate == utc(2026, 6, 1))
        let bob = try store(state, "bob", device: "tablet")
        #expect(redeemError(bob, codes[0].code) == .offerCodeUsed(codes[0].code, byThisAccount: false))
        #expect(redeemError(ann, codes[0].code) == .offerCodeUsed(codes[0].code, byThisAccount: false))
        try bob.queue.redeem(code: codes[1].code)
        #expect(try ann.offers.codes().map(\.used) == [1, 1])
        #expect(redeemError(bob, "NOSUCHCODE") == .unknownOfferCode("NOSUCHCODE"))
    }

    @Test("O3 a custom code works up to its limit, once per account")
    func custom() throws {
        let state = TemporaryState()
        let ann = try store(state, "ann")
        _ = try ann.offers.createCodes(offer: "ANYONE", count: 1, custom: "FRIENDS24", limit: 2)
        #expect(
            error { try ann.offers.createCodes(offer: "ANYONE", count: 1, custom: "friends24", limit: 5) }
                == .offerCodeExists("friends24"))
        try ann.queue.redeem(code: "friends24")
        #expect(redeemError(ann, "FRIENDS24") == .offerCodeUsed("FRIENDS24", byThisAccount: true))
        let bob = try store(state, "bob", device: "tablet")
        try bob.queue.redeem(code: "FRIENDS24")
        let carl = try store(state, "carl", device: "laptop")
        #expect(redeemError(carl, "FRIENDS24") == .offerCodeUsed("FRIENDS24", byThisAccount: false))
    }

    @Test(
        "O3 eligibility: a new-subscriber code refuses an existing subscriber, an expired-subscriber code refuses a new one; a refused try takes no use"
    )
    func eligibility() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 1))
        let ann = try store(state, "ann")
        let welcome = try ann.offers.createCodes(offer: "WELCOME", count: 1, custom: nil, limit: 1)[0]
        let comeback = try ann.offers.createCodes(offer: "COMEBACK", count: 1, custom: nil, limit: 1)[0]
        guard case .offerRefused(.ineligibleForOffer)? = redeemError(ann, comeback.code) else {
            Issue.record("a new subscriber redeemed an expired-subscriber code")
            return
        }
        try ann.queue.buy("allaccess")
        guard case .offerRefused(.ineligibleForOffer)? = redeemError(ann, welcome.code) else {
            Issue.record("an existing subscriber redeemed a new-subscriber code")
            return
        }
        _ = try ann.plans.perform(.expire, on: "allaccess")
        let bought = try ann.queue.redeem(code: comeback.code)
        #expect(bought.offer?.id == "COMEBACK")
        #expect(try ann.offers.codes().map(\.used) == [0, 1])
        // Pay as you go for two months at 1.99, then the full price.
        state.clock.set(utc(2026, 5, 15))
        _ = try ann.plans.subscriptions()
        let periods = try ann.server.planLines(account: "ann").filter {
            $0.productID == "allaccess.monthly" && ($0.event == .purchase || $0.event == .renewal)
        }
        #expect(periods.map(\.price) == ["1.99", "1.99", "5.99"].map { Decimal(string: $0) })
        let report = try ann.entitlements.receipt()
        #expect(report.storedPlans == report.recomputedPlans)
    }

    @Test(
        "O3 N1 a redeemed code is OFFER_REDEEMED: INITIAL_BUY, RESUBSCRIBE, UPGRADE, and no subtype for the plan one has (from its next renewal)"
    )
    func notifications() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 1))
        let ann = try store(state, "ann")
        let codes = try ann.offers.createCodes(offer: "ANYONE", count: 4, custom: nil, limit: 1).map(\.code)
        try ann.queue.redeem(code: codes[0])
        try ann.queue.redeem(code: codes[1])
        #expect(try ann.plans.subscriptions().first?.pendingOffer == OfferRedemption(type: .code, id: "ANYONE"))
        _ = try ann.plans.perform(.expire, on: "allaccess.monthly")
        try ann.queue.redeem(code: codes[2])
        let bob = try store(state, "bob", device: "tablet")
        try bob.queue.buy("oneaweek")
        try bob.queue.redeem(code: codes[3])
        let told = try ann.server.notifications(account: nil).filter { $0.type == "OFFER_REDEEMED" }.map {
            "\($0.account) \($0.subtype ?? "-")"
        }
        #expect(told == ["ann INITIAL_BUY", "ann -", "ann RESUBSCRIBE", "bob UPGRADE"])
    }

    @Test("O3 S2 the signed transaction of a redeemed code says offerType 3 and the code offer's reference name")
    func signed() throws {
        let state = TemporaryState()
        let ann = try store(state, "ann")
        let code = try ann.offers.createCodes(offer: "WELCOME", count: 1, custom: nil, limit: 1)[0]
        let bought = try ann.queue.redeem(code: code.code)
        let payload = try #require(try ann.signed.transaction(bought)).payload
        #expect(payload["offerType"] as? Int == 3 && payload["offerIdentifier"] as? String == "WELCOME")
        #expect(payload["offerDiscountType"] as? String == "FREE_TRIAL" && payload["offerPeriod"] as? String == "P1M")
    }

    @Test("O3 codes for an offer the catalog does not have are refused by name")
    func unknownOffer() throws {
        let state = TemporaryState()
        let ann = try store(state, "ann")
        guard
            case .offerRefused(.invalidOfferIdentifier(let why))? = error({
                try ann.offers.createCodes(offer: "NOPE", count: 1, custom: nil, limit: 1)
            })
        else {
            Issue.record("made codes for an unknown offer")
            return
        }
        #expect(why.contains("WELCOME, COMEBACK, ANYONE"))
    }
}

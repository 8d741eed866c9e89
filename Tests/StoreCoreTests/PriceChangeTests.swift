// O6: price increases with and without consent, told to subscribers as plan lines, folded so that
// the receipt still gives back the plan (A6).
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Price changes")
struct PriceChangeTests {
    /// ann subscribes to the weekly All Access on 1 March at 9:00; the price changes at noon.
    func subscribed(_ state: TemporaryState) throws -> Store {
        state.clock.set(utc(2026, 3, 1, 9))
        let store = try state.signedIn("ann", device: "phone", catalog: selfiesCatalog)
        try store.queue.buy("allaccess")
        state.clock.set(utc(2026, 3, 1, 12))
        return store
    }

    func lines(_ store: Store) throws -> [ReceiptEntry] {
        _ = try store.plans.subscriptions()
        return try store.server.planLines(account: "ann")
    }

    func told(_ store: Store) throws -> [String] {
        try store.server.notifications(account: "ann").map { "\($0.type) \($0.subtype ?? "-")" }
    }

    @Test(
        "O6 with consent required: PRICE_INCREASE PENDING, then ACCEPTED when ann agrees; she renews at the new price")
    func consentGiven() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        let (change, toldCount) = try store.plans.setPrice(
            Decimal(string: "2.49")!, of: "allaccess", consentRequired: true)
        #expect(change.previous == Decimal(string: "1.99") && toldCount == 1)
        var plan = try #require(try store.plans.subscriptions().first)
        #expect(
            plan.priceIncrease
                == PendingPriceIncrease(price: Decimal(string: "2.49")!, consentRequired: true, answer: nil))
        #expect(try store.signed.renewalInfo(plan).payload["priceIncreaseStatus"] as? Int == 0)
        plan = try store.plans.answerPriceIncrease(of: "allaccess", accept: true)
        #expect(try store.signed.renewalInfo(plan).payload["priceIncreaseStatus"] as? Int == 1)
        state.clock.set(utc(2026, 3, 16))
        let renewals = try lines(store).filter { $0.event == .renewal }
        #expect(renewals.map(\.price) == [Decimal(string: "2.49"), Decimal(string: "2.49")])
        #expect(
            try told(store).filter { $0.hasPrefix("PRICE_INCREASE") } == [
                "PRICE_INCREASE PENDING", "PRICE_INCREASE ACCEPTED",
            ])
        #expect(try store.plans.subscriptions().first?.priceIncrease == nil, "the increase is applied at the renewal")
        let report = try store.entitlements.receipt()
        #expect(report.storedPlans == report.recomputedPlans)
    }

    @Test(
        "O6 with consent required and no answer, or a decline: the plan expires at its next renewal, EXPIRED PRICE_INCREASE, expiration intent 3",
        arguments: [nil, false] as [Bool?])
    func consentMissing(answer: Bool?) throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        _ = try store.plans.setPrice(Decimal(string: "2.49")!, of: "allaccess", consentRequired: true)
        if let answer { _ = try store.plans.answerPriceIncrease(of: "allaccess", accept: answer) }
        state.clock.set(utc(2026, 3, 9))
        let plan = try #require(try store.plans.subscriptions().first)
        #expect(
            plan.phase == .expired && plan.endedAt == utc(2026, 3, 8, 9)
                && plan.endReason == PlanEnd.priceIncreaseNotAccepted.words)
        #expect(try lines(store).last?.event == .expire)
        #expect(try told(store).last == "EXPIRED PRICE_INCREASE")
        #expect(try store.signed.renewalInfo(plan).payload["expirationIntent"] as? Int == 3)
        #expect(!plan.hasAccess)
    }

    @Test("O6 without consent required: PRICE_INCREASE ACCEPTED at once, and the next renewal charges the new price")
    func noConsentNeeded() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        _ = try store.plans.setPrice(Decimal(string: "2.49")!, of: "allaccess", consentRequired: false)
        #expect(try told(store).last == "PRICE_INCREASE ACCEPTED")
        #expect(
            error { try store.plans.answerPriceIncrease(of: "allaccess", accept: true) } != nil, "nothing to agree to")
        state.clock.set(utc(2026, 3, 9))
        #expect(try lines(store).last?.price == Decimal(string: "2.49"))
        #expect(try store.plans.subscriptions().first?.hasAccess == true)
    }

    @Test(
        "O6 a new subscriber pays the new price and is told nothing; a decrease is told to nobody and renews lower; products show the price set"
    )
    func newSubscribersAndDecreases() throws {
        let state = TemporaryState()
        let ann = try subscribed(state)
        _ = try ann.plans.setPrice(Decimal(string: "2.49")!, of: "allaccess", consentRequired: true)
        let bob = try state.signedIn("bob", device: "tablet", catalog: selfiesCatalog)
        try bob.queue.buy("allaccess")
        #expect(try bob.server.planLines(account: "bob").last?.price == Decimal(string: "2.49"))
        #expect(try bob.plans.subscriptions().first?.priceIncrease == nil)
        #expect(
            try bob.entitlements.productRows().first { $0.product.id == "allaccess" }?.product.price
                == Decimal(string: "2.49"))
        let (decrease, toldCount) = try bob.plans.setPrice(
            Decimal(string: "1.49")!, of: "allaccess", consentRequired: false)
        #expect(!decrease.isIncrease && toldCount == 0)
        state.clock.set(utc(2026, 3, 9))
        _ = try bob.plans.subscriptions()
        let last = try #require(try bob.server.planLines(account: "bob").last)
        #expect(last.event == .renewal && last.price == Decimal(string: "1.49"))
    }

    @Test(
        "O6 a crash after the price is stored and before anyone is told: the next action of each subscriber tells them, once"
    )
    func crashAfterPriceChange() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        store.crashPoints = { point throws(StoreError) in
            if point == .priceChanged { throw StoreError.stopped(at: point) }
        }
        #expect(
            error { try store.plans.setPrice(Decimal(string: "2.49")!, of: "allaccess", consentRequired: true) }
                == .stopped(at: .priceChanged))
        store.crashPoints = { _ in }
        #expect(try store.server.planLines(account: "ann").filter { $0.event == .priceIncrease }.isEmpty)
        let reopened = try state.signedIn("ann", device: "phone", catalog: selfiesCatalog)
        _ = try reopened.plans.subscriptions()
        _ = try reopened.plans.subscriptions()
        #expect(try reopened.server.planLines(account: "ann").filter { $0.event == .priceIncrease }.count == 1)
        #expect(try told(reopened).filter { $0 == "PRICE_INCREASE PENDING" }.count == 1)
    }
}

// O4: win-back offers for lapsed subscribers who qualify, listed in renewal info, redeemable once.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Win-back offers")
struct WinBackTests {
    func eligible(_ store: Store) throws -> [String] {
        let plan = try #require(try store.plans.subscriptions().first)
        return try store.signed.renewalInfo(plan).payload["eligibleWinBackOfferIds"] as? [String] ?? []
    }

    @Test(
        "O4 a lapsed subscriber who paid a month qualifies: renewal info lists the offer, it buys once at its price (offerType 4), then no more"
    )
    func qualifies() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 1))
        let store = try state.signedIn("ann", device: "phone", catalog: selfiesCatalog)
        try store.queue.buy("allaccess.monthly")
        _ = try store.plans.perform(.cancel, on: "allaccess.monthly")
        state.clock.set(utc(2026, 3, 20))
        #expect(try eligible(store).isEmpty, "a free trial alone is no paid month")
        guard
            case .offerRefused(.ineligibleForOffer)? = error({
                try store.queue.buy("allaccess.monthly", winBackOffer: "winback")
            })
        else {
            Issue.record("a trial-only subscriber was won back")
            return
        }
        try store.queue.buy("allaccess.monthly")
        state.clock.set(utc(2026, 4, 25))
        _ = try store.plans.perform(.cancel, on: "allaccess.monthly")
        state.clock.set(utc(2026, 6, 1))
        #expect(try eligible(store) == ["winback"])
        let bought = try store.queue.buy("allaccess.monthly", winBackOffer: "winback")
        let payload = try #require(try store.signed.transaction(bought)).payload
        #expect(
            payload["offerType"] as? Int == 4 && payload["offerIdentifier"] as? String == "winback"
                && payload["price"] as? Int64 == 4990)
        #expect(try store.plans.subscriptions().first?.expiresDate == utc(2026, 8, 1))
        _ = try store.plans.perform(.expire, on: "allaccess.monthly")
        #expect(try eligible(store).isEmpty, "once per account")
        let report = try store.entitlements.receipt()
        #expect(report.storedPlans == report.recomputedPlans)
    }

    @Test("O4 lapsed longer than the offer's window, or never subscribed, or subscribed now: not eligible")
    func outsideTheWindow() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 1, 1))
        let store = try state.signedIn("ann", device: "phone", catalog: selfiesCatalog)
        #expect(error { try store.queue.buy("allaccess.monthly", winBackOffer: "winback") } != nil, "never subscribed")
        try store.queue.buy("allaccess")
        state.clock.set(utc(2026, 2, 10))
        #expect(try eligible(store).isEmpty, "subscribed now")
        _ = try store.plans.perform(.cancel, on: "allaccess")
        state.clock.set(utc(2027, 3, 1))
        #expect(try eligible(store).isEmpty, "lapsed over twelve months ago")
        guard
            case .offerRefused(.invalidOfferIdentifier)? = error({
                try store.queue.buy("allaccess", winBackOffer: "nope")
            })
        else {
            Issue.record("an unknown win-back offer was accepted")
            return
        }
    }
}

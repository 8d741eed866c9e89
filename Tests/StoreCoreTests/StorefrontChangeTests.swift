// F3: an account moves to another storefront. Prices and availability follow at once, what it buys
// there is signed in that storefront (its code, Apple's id, its currency and price), what it bought
// before keeps the storefront it was bought in, and a plan that has not ended keeps the account
// where it is, as Apple's support article HT204447 says. A manual clock.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@Suite("An account's storefront changes")
struct StorefrontChangeTests {
    func payload(_ item: SignedItem?) throws -> [String: Any] {
        try JWS.decode(try #require(item).jws).payload
    }

    /// Ann, signed in on the pricing tests' catalog (IRL, euros) on 2 March 2026.
    func ann() throws -> (TemporaryState, Store) {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 2, 12))
        return (state, try state.signedIn("ann", catalog: try StorefrontPricingTests.catalog()))
    }

    @Test(
        "F3 moved to GBR: pounds and Britain's availability at once; a purchase there is signed GBR, 143444, GBP at its price; one from before stays IRL in euros; a second device of the account sees GBR"
    )
    func moved() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 2, 12))
        let catalog = try StorefrontPricingTests.catalog()
        let store = try state.signedIn("ann", catalog: catalog)
        let before = try store.queue.buy("pack")
        #expect(try store.accounts.storefront() == "IRL")
        try store.accounts.setStorefront("gbr")
        #expect(try store.accounts.storefront() == "GBR")
        #expect((store.catalog.storefront, store.catalog.currencyCode) == ("GBR", "GBP"))
        let rows = try store.entitlements.productRows()
        #expect(rows.first { $0.product.id == "pack" }?.product.price == Decimal(string: "0.89"))
        #expect(rows.first { $0.product.id == "euro" }?.action == .notSold, "no price in pounds")
        #expect(rows.first { $0.product.id == "uk" }?.action == .buy, "sold only in Britain")
        #expect(throws: StoreError.notSoldInStorefront(productID: "euro", storefront: "GBR")) {
            try store.queue.buy("euro")
        }
        let after = try payload(try store.signed.transaction(try store.queue.buy("pack")))
        #expect(
            after["storefront"] as? String == "GBR" && after["storefrontId"] as? String == "143444"
                && after["currency"] as? String == "GBP" && after["price"] as? Int == 890, "\(after)")
        let old = try payload(try store.signed.transaction(try store.queue.transaction(before.id)))
        #expect(
            old["storefront"] as? String == "IRL" && old["currency"] as? String == "EUR" && old["price"] as? Int == 990,
            "\(old)")
        // The account server keeps it: another device of the account buys in Britain too.
        let tablet = try state.signedIn("ann", device: "tablet", catalog: catalog)
        #expect(tablet.catalog.storefront == "GBR" && tablet.catalog.product("pack")?.price == Decimal(string: "0.89"))
        // A guest of the same state folder sees the catalog's own storefront.
        try tablet.accounts.signOut()
        #expect(tablet.catalog.storefront == "IRL")
    }

    @Test(
        "F3 a plan that has not ended keeps the account where it is, cancelled or not; once it ends the account moves, and a plan bought there renews there, at its price"
    )
    func plansHold() throws {
        let (state, store) = try ann()
        #expect(throws: StoreError.storefrontRefused(.unknown("XYZ"))) { try store.accounts.setStorefront("XYZ") }
        _ = try store.queue.buy("y")
        let ends = utc(2027, 3, 2, 12)
        #expect(throws: StoreError.storefrontRefused(.subscriptionRunning(productID: "y", until: ends))) {
            try store.accounts.setStorefront("FRA")
        }
        _ = try store.plans.perform(.cancel, on: "y")
        #expect(throws: StoreError.storefrontRefused(.subscriptionRunning(productID: "y", until: ends))) {
            try store.accounts.setStorefront("FRA")
        }
        #expect(try store.accounts.storefront() == "IRL", "nothing changed")
        state.clock.set(utc(2027, 3, 2, 13))
        try store.accounts.setStorefront("FRA")
        let plan = try store.queue.buy("y")
        let signed = try payload(try store.signed.transaction(plan))
        #expect(
            signed["storefront"] as? String == "FRA" && signed["currency"] as? String == "EUR"
                && signed["price"] as? Int == 54990, "\(signed)")
        state.clock.set(utc(2028, 3, 2, 13))
        let status = try #require(try store.plans.subscriptions().first)
        let renewal = try payload(try store.signed.renewalInfo(status))
        #expect(
            renewal["storefront"] as? String == "FRA" && renewal["renewalPrice"] as? Int == 54990, "\(renewal)")
        #expect(status.transactionID != plan.id, "renewed")
        let renewedPayload = try payload(try store.signed.planTransaction(status))
        #expect(
            renewedPayload["transactionReason"] as? String == "RENEWAL"
                && renewedPayload["storefront"] as? String == "FRA" && renewedPayload["price"] as? Int == 54990,
            "\(renewedPayload)")
    }
}

extension StorefrontChangeTests {
    @Test(
        "F3 a payment waiting for a parent when the account moves: cancelled by the app it fails as storeProductNotAvailable with nothing paid; continued it settles in the new storefront at its price, or fails the same way where the product is not sold there"
    )
    func waitingPayment() throws {
        let (state, store) = try ann()
        defer { withExtendedLifetime(state) {} }
        store.queue.onStorefrontChange = .cancel
        let cancelled = try store.queue.buy("pack", outcome: .defer)
        store.queue.onStorefrontChange = .continue
        let continued = try store.queue.buy("pack", outcome: .defer)
        let unsold = try store.queue.buy("euro", outcome: .defer)
        #expect([cancelled, continued, unsold].allSatisfy { $0.state == .deferred && $0.storefront == "IRL" })
        try store.accounts.setStorefront("GBR")
        let failed = try store.queue.approve(cancelled.id)
        #expect(failed.state == .failed && failed.reason == .productUnavailable, "\(failed)")
        let settled = try store.queue.approve(continued.id)
        #expect(settled.state == .purchased)
        let signed = try payload(try store.signed.transaction(settled))
        #expect(
            signed["storefront"] as? String == "GBR" && signed["currency"] as? String == "GBP"
                && signed["price"] as? Int == 890, "\(signed)")
        let notSold = try store.queue.approve(unsold.id)
        #expect(notSold.state == .failed && notSold.reason == .productUnavailable, "\(notSold)")
        #expect(
            try store.entitlements.receipt().entries.map(\.transactionID) == [continued.id],
            "only the continued payment was taken")
    }
}

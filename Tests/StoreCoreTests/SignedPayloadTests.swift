// S2 S3 on the Swift side: the signed payloads decoded and checked field by field — dates in
// milliseconds, prices in milliunits, original ids through renewals and an upgrade, offers,
// revocation — and N1's rules for a line no scenario reaches (a plan whose product left the catalog).
import Foundation
import Testing
import TestSupport
@testable import StoreCore

@Suite("Signed payloads")
struct SignedPayloadTests {
    func payload(_ item: SignedItem?) throws -> [String: Any] {
        try JWS.decode(try #require(item).jws).payload
    }

    @Test("S2 S3 a trial, a paid renewal, an upgrade, its renewal and a refund, decoded from their JWS")
    func planPayloads() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 5, 4, 12))
        let store = try state.signedIn("jo", catalog: selfiesCatalog)
        let first = try store.queue.buy("oneaweek.monthly")
        state.clock.set(utc(2026, 5, 18, 12))
        try store.queue.recover()
        let upgrade = try store.queue.buy("allaccess.monthly")
        state.clock.set(utc(2026, 6, 19, 12))
        try store.queue.recover()
        let history = try store.queue.history()
        let signed = try store.signed.transactions(history)
        let trial = try payload(signed[first.id])
        #expect(trial["transactionId"] as? String == first.id && trial["originalTransactionId"] as? String == first.id)
        #expect(trial["purchaseDate"] as? Int == 1_777_896_000_000 && trial["expiresDate"] as? Int == 1_778_500_800_000, "4 May 12:00 to 11 May, in ms")
        #expect(trial["price"] as? Int == 0 && trial["offerType"] as? Int == 1 && trial["offerDiscountType"] as? String == "FREE_TRIAL")
        #expect(trial["offerPeriod"] as? String == "P1W" && trial["type"] as? String == "Auto-Renewable Subscription")
        #expect(trial["signedDate"] as? Int == 1_781_870_400_000, "signed now, on the store clock")
        let renewals = history.filter(\.isRenewal)
        #expect(renewals.count == 2)
        let paid = try payload(signed[renewals[0].id])
        #expect(paid["price"] as? Int == 2990 && paid["transactionReason"] as? String == "RENEWAL" && paid["offerType"] == nil)
        #expect(paid["originalTransactionId"] as? String == first.id && paid["isUpgraded"] as? Bool == true, "the period the upgrade replaced")
        let upgraded = try payload(signed[upgrade.id])
        #expect(upgraded["originalTransactionId"] as? String == first.id && upgraded["price"] as? Int == 5990)
        #expect(upgraded["originalPurchaseDate"] as? Int == 1_777_896_000_000, "the first purchase's date")
        let next = try payload(signed[renewals[1].id])
        #expect(next["originalTransactionId"] as? String == first.id && next["productId"] as? String == "allaccess.monthly")
        _ = try store.plans.refund(renewals[1].id)
        let refunded = try payload(try store.signed.transaction(try store.queue.transaction(renewals[1].id)))
        #expect(refunded["revocationDate"] as? Int == 1_781_870_400_000 && refunded["revocationReason"] as? Int == 0)
        let plan = try #require(try store.plans.subscriptions().first)
        let renewal = try payload(try store.signed.renewalInfo(plan))
        #expect(renewal["originalTransactionId"] as? String == first.id && renewal["expirationIntent"] as? Int != nil, "\(renewal)")
        #expect(renewal["recentSubscriptionStartDate"] as? Int == 1_777_896_000_000)
    }

    @Test("S2 a pass and a comic: types, prices in milliunits, no expiry on a non-renewing subscription, Apple-shaped ids")
    func oneTimePayloads() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 1, 15, 12))
        let store = try state.signedIn("ann")
        let pass = try payload(try store.signed.transaction(try store.queue.buy("sub3")))
        #expect(pass["type"] as? String == "Non-Renewing Subscription" && pass["price"] as? Int == 2990 && pass["expiresDate"] == nil)
        let comic = try payload(try store.signed.transaction(try store.queue.buy("comic.a")))
        #expect(comic["type"] as? String == "Non-Consumable" && comic["price"] as? Int == 990 && comic["currency"] as? String == "USD")
        #expect(comic["storefront"] as? String == "USA" && comic["storefrontId"] as? String == "143441")
        #expect(comic["bundleId"] as? String == AppIdentity.defaultBundleID && comic["environment"] as? String == "Sandbox")
        let id = try #require(comic["transactionId"] as? String)
        #expect(id.count == 16 && id.allSatisfy(\.isNumber) && id.hasPrefix("2"))
        try store.signed.setIdentity(AppIdentity(bundleID: "com.example.comics", appAppleID: 1_234_567_890, environment: .production))
        let production = try payload(try store.signed.transaction(try store.queue.transaction(id)))
        #expect(production["bundleId"] as? String == "com.example.comics" && production["environment"] as? String == "Production")
        #expect(production["appAppleId"] as? Int == 1_234_567_890)
    }

    @Test("N1 a renewal of a product no longer in the catalog expires the plan: EXPIRED, PRODUCT_NOT_FOR_SALE")
    func productNotForSale() {
        var line = ReceiptEntry(transactionID: "t", account: "a", productID: "gone", kind: .autoRenewableSubscription, purchaseDate: Date(), device: "d", event: .expire)
        line.note = "gone is no longer in the catalog"
        #expect(NotificationRules.forLine(line, before: nil, after: nil, previous: nil)! == ("EXPIRED", "PRODUCT_NOT_FOR_SALE"))
        line.note = "expired by hand"
        #expect(NotificationRules.forLine(line, before: nil, after: nil, previous: nil)! == ("EXPIRED", "VOLUNTARY"))
        line.event = .credit
        #expect(NotificationRules.forLine(line, before: nil, after: nil, previous: nil) == nil, "a credit is part of its upgrade")
    }
}

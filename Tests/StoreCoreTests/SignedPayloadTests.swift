// S2 S3 on the Swift side: the signed payloads decoded and checked field by field — dates in
// milliseconds, prices in milliunits, original ids through renewals and an upgrade, offers,
// revocation — and N1's rules for a line no scenario reaches (a plan whose product left the catalog).
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Signed payloads")
struct SignedPayloadTests {
    func payload(_ item: SignedItem?) throws -> [String: Any] {
        try JWS.decode(try #require(item).jws).payload
    }

    /// Jo's weekly plan with a trial from 4 May 2026, upgraded on 18 May, renewed to 19 June.
    func upgradedPlan(identity: AppIdentity? = nil) throws
        -> (TemporaryState, Store, first: StoreTransaction, upgrade: StoreTransaction, history: [StoreTransaction])
    {
        let state = TemporaryState()
        state.clock.set(utc(2026, 5, 4, 12))
        let store = try state.signedIn("jo", catalog: selfiesCatalog)
        if let identity { try store.signed.setIdentity(identity) }
        let first = try store.queue.buy("oneaweek.monthly")
        state.clock.set(utc(2026, 5, 18, 12))
        try store.queue.recover()
        let upgrade = try store.queue.buy("allaccess.monthly")
        state.clock.set(utc(2026, 6, 19, 12))
        try store.queue.recover()
        return (state, store, first, upgrade, try store.queue.history())
    }

    @Test("S2 S3 a trial, a paid renewal, an upgrade, its renewal and a refund, decoded from their JWS")
    func planPayloads() throws {
        let (state, store, first, upgrade, history) = try upgradedPlan()
        _ = state
        let signed = try store.signed.transactions(history)
        let trial = try payload(signed[first.id])
        #expect(trial["transactionId"] as? String == first.id && trial["originalTransactionId"] as? String == first.id)
        #expect(
            trial["purchaseDate"] as? Int == 1_777_896_000_000 && trial["expiresDate"] as? Int == 1_778_500_800_000,
            "4 May 12:00 to 11 May, in ms")
        #expect(
            trial["price"] as? Int == 0 && trial["offerType"] as? Int == 1
                && trial["offerDiscountType"] as? String == "FREE_TRIAL")
        #expect(trial["offerPeriod"] as? String == "P1W" && trial["type"] as? String == "Auto-Renewable Subscription")
        #expect(trial["signedDate"] as? Int == 1_781_870_400_000, "signed now, on the store clock")
        let renewals = history.filter(\.isRenewal)
        #expect(renewals.count == 2)
        let paid = try payload(signed[renewals[0].id])
        #expect(
            paid["price"] as? Int == 2990 && paid["transactionReason"] as? String == "RENEWAL"
                && paid["offerType"] == nil)
        #expect(
            paid["originalTransactionId"] as? String == first.id && paid["isUpgraded"] as? Bool == true,
            "the period the upgrade replaced")
        let upgraded = try payload(signed[upgrade.id])
        #expect(upgraded["originalTransactionId"] as? String == first.id && upgraded["price"] as? Int == 5990)
        #expect(upgraded["originalPurchaseDate"] as? Int == 1_777_896_000_000, "the first purchase's date")
        let next = try payload(signed[renewals[1].id])
        #expect(
            next["originalTransactionId"] as? String == first.id && next["productId"] as? String == "allaccess.monthly")
        _ = try store.plans.refund(renewals[1].id)
        let refunded = try payload(try store.signed.transaction(try store.queue.transaction(renewals[1].id)))
        #expect(refunded["revocationDate"] as? Int == 1_781_870_400_000 && refunded["revocationReason"] as? Int == 0)
        let plan = try #require(try store.plans.subscriptions().first)
        let renewal = try payload(try store.signed.renewalInfo(plan))
        #expect(
            renewal["originalTransactionId"] as? String == first.id && renewal["expirationIntent"] as? Int != nil,
            "\(renewal)")
        #expect(renewal["recentSubscriptionStartDate"] as? Int == 1_777_896_000_000)
    }

    @Test(
        "S2 S4 a pass and a comic: types, prices in milliunits, no expiry on a non-renewing subscription, Apple-shaped ids"
    )
    func oneTimePayloads() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 1, 15, 12))
        let store = try state.signedIn("ann")
        let pass = try payload(try store.signed.transaction(try store.queue.buy("sub3")))
        #expect(
            pass["type"] as? String == "Non-Renewing Subscription" && pass["price"] as? Int == 2990
                && pass["expiresDate"] == nil)
        let comic = try payload(try store.signed.transaction(try store.queue.buy("comic.a")))
        #expect(
            comic["type"] as? String == "Non-Consumable" && comic["price"] as? Int == 990
                && comic["currency"] as? String == "USD")
        #expect(comic["storefront"] as? String == "USA" && comic["storefrontId"] as? String == "143441")
        #expect(
            comic["bundleId"] as? String == AppIdentity.defaultBundleID && comic["environment"] as? String == "Sandbox")
        let id = try #require(comic["transactionId"] as? String)
        #expect(id.count == 16 && id.allSatisfy(\.isNumber) && id.hasPrefix("2"))
        try store.signed.setIdentity(
            AppIdentity(bundleID: "com.example.comics", appAppleID: 1_234_567_890, environment: .production))
        let production = try payload(try store.signed.transaction(try store.queue.transaction(id)))
        #expect(
            production["bundleId"] as? String == "com.example.comics"
                && production["environment"] as? String == "Production")
        #expect(production["appAppleId"] as? Int == 1_234_567_890)
    }

    /// The JWS's payload decoded strictly as `T` (a count sent as `true` or a flag sent as 1 does
    /// not decode) and written back with JSONEncoder: the same bytes, so that every field signed
    /// is declared in `T` with Apple's type, and the fast writer writes what Codable would.
    func typed<T: SignedPayload>(_ jws: String, as type: T.Type, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> T
    {
        let bytes = try #require(JWS.data(base64URL: jws.split(separator: ".")[1]), sourceLocation: sourceLocation)
        let decoded = try JSONDecoder().decode(T.self, from: bytes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(
            String(decoding: try encoder.encode(decoded), as: UTF8.self) == String(decoding: bytes, as: UTF8.self),
            sourceLocation: sourceLocation)
        return decoded
    }

    @Test(
        "S2 N2 every signed payload decodes strictly as its typed model and is written byte for byte as JSONEncoder writes it"
    )
    func typedPayloads() throws {
        let (state, store, first, upgrade, history) = try upgradedPlan(
            identity: AppIdentity(bundleID: "com.example.comics", appAppleID: 1_234_567_890, environment: .sandbox)
        )
        let signed = try store.signed.transactions(history)
        let trial = try typed(try #require(signed[first.id]).jws, as: TransactionPayload.self)
        #expect(
            trial.offerType == 1 && trial.offerDiscountType == "FREE_TRIAL" && trial.purchaseDate == 1_777_896_000_000)
        let replaced = try typed(
            try #require(signed[history.first(where: \.isRenewal)!.id]).jws, as: TransactionPayload.self)
        #expect(replaced.isUpgraded == true && replaced.price == 2990 && replaced.quantity == 1)
        #expect(
            try typed(try #require(signed[upgrade.id]).jws, as: TransactionPayload.self).originalTransactionId
                == first.id)
        let last = try #require(history.last { $0.isRenewal })
        _ = try store.plans.refund(last.id)
        let refunded = try typed(
            try #require(try store.signed.transaction(try store.queue.transaction(last.id))).jws,
            as: TransactionPayload.self)
        #expect(
            refunded.revocationReason == 0 && refunded.revocationDate == 1_781_870_400_000
                && refunded.appAppleId == 1_234_567_890)
        let plan = try #require(try store.plans.subscriptions().first)
        let renewal = try typed(try store.signed.renewalInfo(plan).jws, as: RenewalInfoPayload.self)
        #expect(
            renewal.autoRenewStatus != nil && renewal.isInBillingRetryPeriod == false && renewal.expirationIntent != nil
        )
        let app = try typed(try store.signed.appTransaction().jws, as: AppTransactionPayload.self)
        #expect(app.versionExternalIdentifier == 0 && app.receiptType == "Sandbox" && app.appAppleId == 1_234_567_890)
        let notifications = try store.server.notifications(account: "jo")
        #expect(notifications.count >= 4)
        for notification in notifications {
            let payload = try typed(try store.notifications.signedPayload(notification), as: NotificationPayload.self)
            #expect(
                payload.notificationType == notification.type && payload.version == "2.0"
                    && payload.data?.appAppleId == 1_234_567_890)
            if notification.group != nil {
                #expect(payload.data?.status != nil)
                _ = try typed(try #require(payload.data?.signedRenewalInfo), as: RenewalInfoPayload.self)
            }
            if let transaction = payload.data?.signedTransactionInfo {
                _ = try typed(transaction, as: TransactionPayload.self)
            }
        }
        // A mass extension's SUMMARY: counts as numbers, the app named as in `data`, no `data`.
        var summary = ServerNotification(
            key: "mass:r1", account: "", type: "RENEWAL_EXTENSION", subtype: "SUMMARY", createdAt: state.clock.now())
        summary.summary =
            #"{"completeDate":1,"failedCount":1,"productId":"allaccess.monthly","requestIdentifier":"r1","storefrontCountryCodes":["USA"],"succeededCount":0}"#
        let mass = try typed(try store.notifications.courier().signedPayload(summary), as: NotificationPayload.self)
        #expect(
            mass.data == nil && mass.summary?.failedCount == 1 && mass.summary?.succeededCount == 0
                && mass.summary?.bundleId == "com.example.comics")
    }

    @Test("N1 a renewal of a product no longer in the catalog expires the plan: EXPIRED, PRODUCT_NOT_FOR_SALE")
    func productNotForSale() {
        var line = ReceiptEntry(
            transactionID: "t", account: "a", productID: "gone", kind: .autoRenewableSubscription, purchaseDate: Date(),
            device: "d", event: .expire)
        line.note = "gone is no longer in the catalog"
        #expect(
            NotificationRules.forLine(line, before: nil, after: nil, previous: nil)! == (
                "EXPIRED", "PRODUCT_NOT_FOR_SALE"
            ))
        line.note = "expired by hand"
        #expect(NotificationRules.forLine(line, before: nil, after: nil, previous: nil)! == ("EXPIRED", "VOLUNTARY"))
        line.event = .credit
        #expect(
            NotificationRules.forLine(line, before: nil, after: nil, previous: nil) == nil,
            "a credit is part of its upgrade")
    }
}

// M4 from real .storekit files: billing plans (`billingPlans`, format 5 and later), offers
// configured per billing plan, and the commitment year a new customer buys on the monthly plan of
// RevenueCat's unit-test catalog. Subscription suites and bundles (format 6) are named, not lost.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("StoreKit files' billing plans")
struct StoreKitBillingPlanTests {
    static let samples = TestTools.repositoryRoot.appendingPathComponent("Tests/Fixtures/storekit/samples")
    static let commitmentID = "com.revenuecat.sampleapp.monthly.12mocommitment"

    /// RevenueCat's sample, moved from its `_storefront` USA to Ireland: Apple sells the monthly plan
    /// with a 12-month commitment outside the USA and Singapore only.
    static func revenueCat() throws -> LoadedCatalog {
        let loaded = try StoreKitCatalog.load(
            contentsOf: samples.appendingPathComponent("revenuecat-unit-tests.storekit"))
        #expect(loaded.catalog.storefront == "USA")
        var catalog = loaded.catalog
        catalog.storefront = "IRL"
        return LoadedCatalog(
            catalog: catalog, warnings: loaded.warnings, imageRoot: loaded.imageRoot,
            unusedAssets: loaded.unusedAssets)
    }

    @Test(
        "RevenueCat's v5.0 unit-test catalog: the 12-month commitment product is sold up front and monthly at 0.50 (6.00 in all), each plan with its own introductory offer and promotional offer; its USA storefront is warned about once"
    )
    func revenueCatTerms() throws {
        let loaded = try Self.revenueCat()
        let terms = try #require(loaded.catalog.product(Self.commitmentID)?.autoRenew)
        #expect(terms.period == .year && terms.soldUpfront)
        #expect(terms.monthlyCommitmentPrice == Decimal(string: "0.5"))
        #expect(terms.introductoryOffer == IntroductoryOffer(mode: .freeTrial, period: .month))
        #expect(
            terms.monthlyIntroductoryOffer == IntroductoryOffer(mode: .freeTrial, period: SubscriptionPeriod(2, .month))
        )
        #expect(
            terms.offers.map { "\($0.id) \($0.billingPlan.rawValue)" } == [
                "upfront.promo.offer BILLED_UPFRONT", "12mocommitment.promo.offer MONTHLY",
            ])
        // The other subscriptions have an up-front plan only.
        let others = loaded.catalog.products.filter { $0.autoRenew != nil && $0.id != Self.commitmentID }
        #expect(!others.isEmpty && others.allSatisfy { $0.autoRenew?.monthlyCommitmentPrice == nil })
        let storefront = loaded.warnings.filter { $0.message.contains("United States or Singapore") }
        #expect(storefront.count == 1, "\(loaded.warnings)")
    }

    @Test(
        "Bought monthly by a new customer: two free months on the monthly plan's own offer (signed MONTHLY, introductory, P2M), then twelve months at 0.50, each signed MONTHLY and numbered 1 to 12 in one commitment worth 6.00; cancelled in its third month, it still bills all twelve, then expires"
    )
    func commitmentYear() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 1, 31, 10))
        let store = try state.signedIn("ann", catalog: try Self.revenueCat().catalog)
        _ = try store.queue.buy(Self.commitmentID, billingPlan: .monthly)
        func current() throws -> (plan: PlanStatus, payload: [String: Any]) {
            let plan = try #require(try store.plans.subscriptions().first)
            let signed = try #require(try store.signed.planTransaction(plan))
            return (plan, try JWS.decode(signed.jws).payload)
        }
        var (plan, payload) = try current()
        #expect(plan.phase == .trial && plan.expiresDate == utc(2026, 3, 31, 10), "\(plan.phase)")
        #expect(payload["billingPlanType"] as? String == "MONTHLY")
        #expect(payload["offerType"] as? Int == 1 && payload["offerPeriod"] as? String == "P2M")
        #expect(payload["commitmentInfo"] == nil, "the trial is not one of the twelve")
        #expect(try store.signed.renewalInfo(plan).payload["renewalBillingPlanType"] as? String == "MONTHLY")

        var ends: Int64?
        var prices: [Int64] = []
        for month in 1...12 {
            // Halfway through each month of the commitment.
            state.clock.set(utc(2026, 3, 31, 10).addingTimeInterval(Double(month - 1) * 30.4 * 86_400 + 86_400 * 15))
            (plan, payload) = try current()
            let info = try #require(payload["commitmentInfo"] as? [String: Any], "month \(month): \(payload)")
            #expect(payload["billingPlanType"] as? String == "MONTHLY")
            #expect(info["billingPeriodNumber"] as? Int == month, "\(info)")
            #expect(info["commitmentPrice"] as? Int64 == 6_000, "\(info)")
            let commitmentEnds = try #require(info["commitmentExpiresDate"] as? Int64)
            #expect(ends == nil || ends == commitmentEnds, "one commitment")
            ends = commitmentEnds
            prices.append(try #require(payload["price"] as? Int64))
            if month == 3 { _ = try store.plans.perform(.cancel, on: Self.commitmentID) }
            #expect(plan.hasAccess, "month \(month)")
        }
        #expect(prices == Array(repeating: 500, count: 12))
        state.clock.set(utc(2027, 4, 15))
        (plan, _) = try current()
        #expect(plan.phase == .expired && !plan.hasAccess, "\(plan.phase)")
        let paid = try store.server.planLines(account: "ann").filter { $0.event == .renewal }
        #expect(paid.count == 12 && paid.allSatisfy { $0.price == Decimal(string: "0.5") })
        #expect(try store.server.plans(account: "ann") == PlanState.replay(try store.server.planLines(account: "ann")))
    }

    @Test(
        "An offer is used with the billing plan it is configured on: the monthly plan's promotional offer with --billing monthly; the up-front plan's with up-front billing only"
    )
    func offersPerPlan() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann", catalog: try Self.revenueCat().catalog)
        let upfront = PromotionalOfferRequest(offerID: "upfront.promo.offer", signature: .jws("x"))
        #expect(
            throws: StoreError.planRefused(.offerOnAnotherPlan(offerID: "upfront.promo.offer", plan: .billedUpfront))
        ) {
            try store.queue.buy(Self.commitmentID, offer: upfront, billingPlan: .monthly)
        }
        let monthly = PromotionalOfferRequest(offerID: "12mocommitment.promo.offer", signature: .jws("x"))
        #expect(
            throws: StoreError.planRefused(.offerOnAnotherPlan(offerID: "12mocommitment.promo.offer", plan: .monthly))
        ) {
            try store.queue.buy(Self.commitmentID, offer: monthly)
        }
        #expect(try store.plans.subscriptions().isEmpty, "nothing bought")
    }

    @Test(
        "Format 6.3 (joodle, Singapore): up-front billing plans read, no monthly plan; subscription suites and bundles are named with the reason, never dropped without a word"
    )
    func formatSix() throws {
        let joodle = try StoreKitCatalog.load(contentsOf: Self.samples.appendingPathComponent("joodle.storekit"))
        let plans = joodle.catalog.products.compactMap(\.autoRenew)
        #expect(plans.count == 2 && plans.allSatisfy { $0.soldUpfront && $0.monthlyCommitmentPrice == nil })
        #expect(joodle.catalog.storefront == "SGP")
        #expect(!joodle.warnings.contains { $0.message.contains("Singapore") }, "no monthly plan, nothing to warn of")

        let json = """
            {"version": {"major": 6, "minor": 3}, "settings": {"_storefront": "IRL"},
             "subscriptionGroups": [{"id": "G1", "name": "Plus", "subscriptions": [
               {"productID": "plus.monthly", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M",
                "displayPrice": "4.99", "billingPlans": [{"billingPlanType": "BILLED_UPFRONT", "displayPrice": "4.99",
                "commitmentDisplayPrice": "4.99", "isEnabled": true}]},
               {"productID": "plus.yearly", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1Y",
                "displayPrice": "49.99", "billingPlans": [{"billingPlanType": "BILLED_UPFRONT", "displayPrice": "49.99",
                "isEnabled": false}, {"billingPlanType": "MONTHLY", "displayPrice": "4.99",
                "commitmentDisplayPrice": "59.88", "isEnabled": true}]}]}],
             "subscriptionSuiteGroups": [{"id": "S1", "name": "Yearly Plan", "subscriptions": [
               {"productID": "plus.suite.yearly", "type": "SubscriptionSuite", "duration": "P1Y", "members": []}]}],
             "subscriptionBundleGroups": [{"id": "B1", "name": "Bundle", "subscriptions": [
               {"productID": "plus.bundle", "type": "SubscriptionBundle"}]}]}
            """
        let (catalog, warnings) = try StoreKitCatalog.parse(Data(json.utf8), fileName: "six.storekit")
        let yearly = try #require(catalog.product("plus.yearly")?.autoRenew)
        #expect(!yearly.soldUpfront && yearly.monthlyCommitmentPrice == Decimal(string: "4.99"))
        for id in ["plus.suite.yearly", "plus.bundle"] {
            #expect(catalog.product(id) == nil)
            #expect(warnings.contains { $0.message.contains("\"\(id)\"") }, "\(id) named: \(warnings)")
        }
        let state = TemporaryState()
        let store = try state.signedIn("ann", catalog: catalog)
        #expect(throws: StoreError.planRefused(.notSoldUpfront(productID: "plus.yearly"))) {
            try store.queue.buy("plus.yearly")
        }
        _ = try store.queue.buy("plus.yearly", billingPlan: .monthly)
        #expect(try store.plans.subscriptions().first?.commitment != nil)
        // The same file in the USA or Singapore: the App Store sells no commitment there.
        for storefront in ["USA", "SGP"] {
            var there = catalog
            there.storefront = storefront
            let elsewhere = try TemporaryState().signedIn("bob", catalog: there)
            #expect(
                throws: StoreError.planRefused(.monthlyNotSoldIn(productID: "plus.yearly", storefront: storefront))
            ) {
                try elsewhere.queue.buy("plus.yearly", billingPlan: .monthly)
            }
            #expect(try elsewhere.plans.subscriptions().isEmpty, "nothing bought in \(storefront)")
        }
    }

    @Test(
        "A plan that offers no monthly commitment is billed up front, and its signed transaction and renewal info say so (BILLED_UPFRONT), as Apple signs standard subscriptions"
    )
    func upfrontOnly() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann", catalog: selfiesCatalog)
        _ = try store.queue.buy("allaccess")
        let plan = try #require(try store.plans.subscriptions().first)
        #expect(selfiesCatalog.product("allaccess")?.autoRenew?.monthlyCommitmentPrice == nil)
        let signed = try #require(try store.signed.planTransaction(plan))
        let payload = try JWS.decode(signed.jws).payload
        #expect(payload["billingPlanType"] as? String == "BILLED_UPFRONT" && payload["commitmentInfo"] == nil)
        let renewal = try store.signed.renewalInfo(plan).payload
        #expect(renewal["renewalBillingPlanType"] as? String == "BILLED_UPFRONT", "\(renewal)")
    }
}

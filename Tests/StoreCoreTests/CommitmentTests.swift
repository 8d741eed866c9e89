// Monthly subscriptions with a 12-month commitment (Apple's billing plan of 2026): a one-year plan
// paid in twelve monthly periods, each a transaction of its own at the monthly price; cancelling
// stops the commitment from renewing, not its months; a commitment that is not cancelled renews
// into another; a change of plan waits for the commitment's end. A6 holds throughout.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Monthly subscriptions with a 12-month commitment")
struct CommitmentTests {
    /// A yearly plan with a monthly commitment (49.99 a year, or 4.99 a month for twelve months),
    /// and a lower yearly plan without one, sold in Ireland (Apple sells no commitment in the USA).
    static let catalog = {
        var catalog = yearlyCatalog
        catalog.storefront = "IRL"
        return catalog
    }()
    private static let yearlyCatalog = Catalog(
        name: "Yearly",
        products: [
            Product(
                id: "y.all", kind: .autoRenewableSubscription, title: "All Access (Yearly)", description: "",
                price: Decimal(string: "49.99")!,
                autoRenew: {
                    var terms = AutoRenewTerms(
                        period: .year, group: "g", rank: 1, unlocks: ["all"],
                        offers: [
                            SubscriptionOffer(
                                id: "free", type: .promotional,
                                terms: IntroductoryOffer(mode: .freeTrial, period: .month)),
                            SubscriptionOffer(
                                id: "BACK", type: .code,
                                terms: IntroductoryOffer(
                                    mode: .payUpFront, period: .year, price: Decimal(string: "29.99")!)),
                        ])
                    terms.monthlyCommitmentPrice = Decimal(string: "4.99")
                    return terms
                }()),
            Product(
                id: "y.lite", kind: .autoRenewableSubscription, title: "Lite (Yearly)", description: "",
                price: Decimal(string: "19.99")!,
                autoRenew: AutoRenewTerms(period: .year, group: "g", rank: 2, unlocks: ["lite"])),
        ])

    func lines(_ store: Store) throws -> [ReceiptEntry] {
        _ = try store.plans.subscriptions()
        return try store.server.planLines(account: "ann").filter { $0.event == .purchase || $0.event == .renewal }
    }

    /// Ann's store, subscribed to y.all on the monthly plan on 31 January 2026 at 10:00.
    func subscribed(_ state: TemporaryState) throws -> Store {
        state.clock.set(utc(2026, 1, 31, 10))
        let store = try state.signedIn("ann", device: "phone", catalog: Self.catalog)
        _ = try store.queue.buy("y.all", billingPlan: .monthly)
        return store
    }

    func plan(_ store: Store) throws -> PlanStatus { try #require(try store.plans.subscriptions().first) }

    /// A6: the stored plans are the fold of the receipt.
    func expectReplayAgrees(_ store: Store) throws {
        #expect(try store.server.plans(account: "ann") == PlanState.replay(try store.server.planLines(account: "ann")))
    }

    @Test(
        "Bought monthly on 31 January: twelve monthly periods at 4.99 on month ends, each numbered in a commitment ending a year on; cancelled in March, the months still come, then it ends"
    )
    func twelveMonthsThenEnds() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        let ends = utc(2027, 1, 31, 10)
        let first = try #require(try lines(store).first)
        #expect(first.price == Decimal(string: "4.99") && first.expiresDate == utc(2026, 2, 28, 10))
        #expect(first.commitment == CommitmentPeriod(number: 1, ends: ends))
        #expect(try plan(store).commitment?.renews == true)

        state.clock.set(utc(2026, 3, 15))
        _ = try store.plans.perform(.cancel, on: "y.all")
        var status = try plan(store)
        #expect(status.autoRenew && status.phase == .active, "the next month still comes: \(status.phase)")
        #expect(status.commitment?.renews == false && status.commitment?.period == 2)
        #expect(throws: StoreError.self, "cancelled once") { try store.plans.perform(.cancel, on: "y.all") }

        state.clock.set(utc(2027, 6, 1))
        let periods = try lines(store)
        #expect(periods.count == 12, "twelve periods and no thirteenth: \(periods.count)")
        #expect(periods.map { $0.commitment?.number } == Array(1...12))
        #expect(
            periods.allSatisfy {
                $0.commitment?.ends == ends && $0.price == Decimal(string: "4.99") && $0.productID == "y.all"
            })
        #expect(
            periods.map(\.expiresDate) == [
                utc(2026, 2, 28, 10), utc(2026, 3, 31, 10), utc(2026, 4, 30, 10), utc(2026, 5, 31, 10),
                utc(2026, 6, 30, 10), utc(2026, 7, 31, 10),
                utc(2026, 8, 31, 10), utc(2026, 9, 30, 10), utc(2026, 10, 31, 10), utc(2026, 11, 30, 10),
                utc(2026, 12, 31, 10), ends,
            ], "month ends clamp and come back")
        status = try plan(store)
        #expect(status.phase == .expired && !status.autoRenew && status.expiresDate == ends)
        try expectReplayAgrees(store)
    }

    @Test(
        "A commitment not cancelled renews into another (month 1, a year on, at the monthly price); turned back on, it renews too; a downgrade bought in it waits for its end and is billed up front"
    )
    func renewsThenChanges() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        state.clock.set(utc(2026, 6, 1))
        _ = try store.plans.perform(.cancel, on: "y.all")
        _ = try store.plans.perform(.renewOn, on: "y.all")
        #expect(try plan(store).commitment?.renews == true)
        state.clock.set(utc(2027, 2, 15))
        let renewed = try #require(try lines(store).last)
        #expect(
            renewed.commitment == CommitmentPeriod(number: 1, ends: utc(2028, 1, 31, 10)),
            "\(String(describing: renewed.commitment))")
        #expect(renewed.purchaseDate == utc(2027, 1, 31, 10) && renewed.price == Decimal(string: "4.99"))

        // An upgrade or downgrade in a commitment waits for it to end.
        _ = try store.queue.buy("y.lite")
        var status = try plan(store)
        #expect(status.productID == "y.all" && status.nextProductID == "y.lite" && status.hasAccess)
        state.clock.set(utc(2028, 2, 15))
        let periods = try lines(store)
        #expect(periods.filter { $0.productID == "y.all" }.count == 24)
        let lite = try #require(periods.last)
        #expect(lite.productID == "y.lite" && lite.commitment == nil && lite.price == Decimal(string: "19.99"))
        #expect(
            lite.purchaseDate == utc(2028, 1, 31, 10) && lite.expiresDate == utc(2029, 1, 31, 10),
            "a year billed up front")
        status = try plan(store)
        #expect(status.commitment == nil && status.productID == "y.lite")
        try expectReplayAgrees(store)
    }

    @Test(
        "What waits for a commitment's end: an offer code redeemed in month 2 is kept through the months and starts the plan billed up front when the commitment ends; an increase of the price billed up front is told to that plan, and its months keep their monthly price"
    )
    func waitsForTheEnd() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        state.clock.set(utc(2026, 3, 15))
        let code = try #require(try store.offers.createCodes(offer: "BACK", count: 1, custom: nil, limit: 1).first)
        let redeemed = try store.queue.redeem(code: code.code)
        #expect(redeemed.state == .purchased)
        var status = try plan(store)
        #expect(status.pendingOffer == OfferRedemption(type: .code, id: "BACK") && status.commitment?.period == 2)

        let (_, told) = try store.plans.setPrice(Decimal(string: "59.99")!, of: "y.all", consentRequired: false)
        #expect(told == 1, "the plan renews billed up front when the commitment ends")
        state.clock.set(utc(2026, 9, 1))
        status = try plan(store)
        #expect(
            status.pendingOffer?.id == "BACK", "kept through the months: \(String(describing: status.pendingOffer))")
        #expect(status.priceIncrease?.price == Decimal(string: "59.99") && status.commitment?.period == 8)

        state.clock.set(utc(2027, 2, 15))
        let periods = try lines(store)
        #expect(periods.filter { $0.commitment != nil }.count == 12)
        #expect(
            periods.allSatisfy { $0.commitment == nil || $0.price == Decimal(string: "4.99") },
            "no month at a changed price")
        let after = try #require(periods.last)
        #expect(after.commitment == nil && after.offerType == .code && after.offerID == "BACK", "\(after)")
        #expect(
            after.purchaseDate == utc(2027, 1, 31, 10) && after.price == Decimal(string: "29.99")
                && after.expiresDate == utc(2028, 1, 31, 10))
        status = try plan(store)
        #expect(
            status.pendingOffer == nil && status.commitment == nil && status.hasAccess && status.autoRenew,
            "\(status.phase)")
        try expectReplayAgrees(store)
    }

    @Test(
        "Switching billing plans on the same product: billed up front chosen in a commitment starts at its end; monthly chosen on a plan billed up front starts a commitment at the next renewal; choosing the plan one renews on is refused as already subscribed, and choosing back clears the change"
    )
    func switchesBillingPlan() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        state.clock.set(utc(2026, 3, 15))
        #expect(throws: StoreError.alreadySubscribed(productID: "y.all")) {
            try store.queue.buy("y.all", billingPlan: .monthly)
        }
        _ = try store.queue.buy("y.all", billingPlan: .billedUpfront)
        var status = try plan(store)
        #expect(
            status.nextBillingPlan == .billedUpfront && status.commitment?.renews == true
                && status.commitment?.period == 2)
        #expect(
            status.summary(calendar: store.calendar, catalog: Self.catalog).contains(
                "of a commitment that ends 31/01/2027, then billed up front"))
        #expect(throws: StoreError.alreadySubscribed(productID: "y.all")) {
            try store.queue.buy("y.all", billingPlan: .billedUpfront)
        }

        state.clock.set(utc(2027, 2, 15))
        var periods = try lines(store)
        #expect(periods.filter { $0.commitment != nil }.count == 12)
        let upfront = try #require(periods.last)
        #expect(
            upfront.commitment == nil && upfront.price == Decimal(string: "49.99")
                && upfront.purchaseDate == utc(2027, 1, 31, 10))
        #expect(upfront.expiresDate == utc(2028, 1, 31, 10))
        status = try plan(store)
        #expect(status.nextBillingPlan == nil && status.commitment == nil)

        // Billed up front: monthly from the next renewal; back and forth, the last choice holds.
        _ = try store.queue.buy("y.all", billingPlan: .monthly)
        #expect(try plan(store).nextBillingPlan == .monthly)
        _ = try store.queue.buy("y.all", billingPlan: .billedUpfront)
        #expect(try plan(store).nextBillingPlan == nil, "back to the plan's own billing")
        _ = try store.queue.buy("y.all", billingPlan: .monthly)
        status = try plan(store)
        #expect(
            status.nextBillingPlan == .monthly
                && status.summary(calendar: store.calendar, catalog: Self.catalog).contains(
                    "then monthly with a 12-month commitment")
        )
        state.clock.set(utc(2028, 2, 15))
        periods = try lines(store)
        let committed = try #require(periods.last)
        #expect(
            committed.commitment == CommitmentPeriod(number: 1, ends: utc(2029, 1, 31, 10))
                && committed.price == Decimal(string: "4.99"))
        #expect(committed.purchaseDate == utc(2028, 1, 31, 10) && committed.expiresDate == utc(2028, 2, 29, 10))
        status = try plan(store)
        #expect(status.nextBillingPlan == nil && status.commitment?.renews == true)
        try expectReplayAgrees(store)
    }

    @Test(
        "The monthly plan is refused for a plan that has none and with an offer of the up-front plan; the catalog refuses one on a period other than a year, and twelve payments below the yearly price or above 1.5 times it"
    )
    func refusals() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann", device: "phone", catalog: Self.catalog)
        #expect(throws: StoreError.planRefused(.noMonthlyCommitment(productID: "y.lite"))) {
            try store.queue.buy("y.lite", billingPlan: .monthly)
        }
        let offer = PromotionalOfferRequest(offerID: "free", signature: .jws("x"))
        #expect(throws: StoreError.planRefused(.offerOnAnotherPlan(offerID: "free", plan: .billedUpfront))) {
            try store.queue.buy("y.all", offer: offer, billingPlan: .monthly)
        }
        #expect(try store.plans.subscriptions().isEmpty, "nothing bought")

        func parse(period: String, price: String, monthly: String) -> String? {
            let json = """
                {"name": "c", "products": [{"id": "p", "kind": "autoRenewableSubscription", "title": "P", "price": "\(price)",
                  "period": "\(period)", "group": "g", "monthlyCommitmentPrice": "\(monthly)"}]}
                """
            do {
                _ = try CatalogLoader.parse(Data(json.utf8), fileName: "c.json")
                return nil
            } catch {
                return error.description
            }
        }
        #expect(parse(period: "P1Y", price: "49.99", monthly: "4.99") == nil)
        #expect(parse(period: "P1Y", price: "48.00", monthly: "4.00") == nil, "exactly the yearly price")
        #expect(parse(period: "P1Y", price: "48.00", monthly: "6.00") == nil, "exactly 1.5 times")
        #expect(parse(period: "P1M", price: "4.99", monthly: "4.99")?.contains("the period \"P1Y\"") == true)
        #expect(parse(period: "P1Y", price: "49.99", monthly: "4.00")?.contains("12 payments of 48.00") == true)
        #expect(parse(period: "P1Y", price: "48.00", monthly: "6.01")?.contains("12 payments of 72.12") == true)
        #expect(parse(period: "P1Y", price: "49.99", monthly: "cheap")?.contains("not a decimal number") == true)
    }

    @Test(
        "An upgrade during a commitment is immediate and ends it: Lite bought monthly, All Access bought in its second month starts at once, billed up front, with the rest of Lite's month credited; the commitment is gone"
    )
    func upgradeEndsCommitment() throws {
        var catalog = Self.catalog
        let lite = try #require(catalog.products.firstIndex { $0.id == "y.lite" })
        var terms = try #require(catalog.products[lite].autoRenew)
        terms.monthlyCommitmentPrice = Decimal(string: "1.99")
        catalog.products[lite] = Product(
            id: "y.lite", kind: .autoRenewableSubscription, title: "Lite (Yearly)", description: "",
            price: Decimal(string: "19.99")!, autoRenew: terms)
        let state = TemporaryState()
        state.clock.set(utc(2026, 1, 31, 10))
        let store = try state.signedIn("ann", device: "phone", catalog: catalog)
        _ = try store.queue.buy("y.lite", billingPlan: .monthly)
        state.clock.set(utc(2026, 3, 15, 10))
        #expect(try plan(store).commitment?.period == 2)
        _ = try store.queue.buy("y.all")
        let status = try plan(store)
        #expect(status.productID == "y.all" && status.hasAccess && status.commitment == nil, "\(status.state)")
        #expect(status.expiresDate == utc(2027, 3, 15, 10) && status.nextProductID == nil)
        let lines = try store.server.planLines(account: "ann")
        let credit = try #require(lines.last { $0.event == .credit })
        #expect(
            credit.productID == "y.lite" && (credit.price ?? 0) < 0 && (credit.price ?? 0) > -Decimal(string: "1.99")!)
        #expect(lines.last?.event == .purchase && lines.last?.productID == "y.all" && lines.last?.commitment == nil)
        try expectReplayAgrees(store)
    }

    @Test(
        "A refund in a commitment: a past month's revokes only that month, and the months go on; the current month's ends the commitment at once, and no month is billed after it"
    )
    func refundsInCommitment() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        state.clock.set(utc(2026, 4, 15, 10))
        let months = try lines(store)
        #expect(months.count == 3, "months 1 to 3")
        var status = try store.plans.refund(months[1].transactionID)
        #expect(status.hasAccess && status.commitment?.period == 3, "\(status.phase)")
        // The REFUND notification and Get All Subscription Statuses both sign this status.
        #expect(PayloadBuilder.status(status) == 1, "a past month's refund leaves her subscribed")
        status = try store.plans.refund(months[2].transactionID)
        #expect(!status.hasAccess && status.phase == .expired, "\(status.phase)")
        #expect(PayloadBuilder.status(status) == 5, "the current month's refund revokes")
        // Her renewal info still names the plan she paid monthly, at its month's price.
        let renewal = try store.signed.renewalInfo(status).payload
        #expect(
            renewal["renewalBillingPlanType"] as? String == "MONTHLY"
                && renewal["renewalPrice"] as? Int64 == months[2].price.map { SignedUnits.milliunits($0) }, "\(renewal)"
        )
        state.clock.set(utc(2026, 7, 15, 10))
        #expect(try lines(store).count == 3, "no month after the refund of the current one")
        try expectReplayAgrees(store)
    }

    @Test(
        "A failed month of a commitment has no grace period: access stops at once, even with grace turned on; a recovery ten days on bills that month and moves the commitment's end ten days later; without recovery it ends after 90 days of billing retry (EXPIRED, BILLING_RETRY)"
    )
    func failedMonth() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        state.clock.set(utc(2026, 3, 15))
        #expect(try plan(store).commitment?.period == 2)
        try store.settings.setBilling(BillingSetting(failing: true, graceDays: 16))
        state.clock.set(utc(2026, 3, 31, 12))
        var status = try plan(store)
        #expect(status.phase == .billingRetry && !status.hasAccess && status.graceUntil == nil, "\(status.phase)")
        state.clock.set(utc(2026, 4, 10, 10))
        #expect(try plan(store).phase == .billingRetry)
        try store.settings.setBilling(BillingSetting(failing: false, graceDays: 16))
        status = try plan(store)
        #expect(status.hasAccess && status.commitment?.period == 3, "\(status.phase)")
        let lost: TimeInterval = 10 * 86_400
        #expect(
            status.commitment?.ends == utc(2027, 1, 31, 10).addingTimeInterval(lost),
            "\(String(describing: status.commitment))")
        try expectReplayAgrees(store)

        let other = TemporaryState()
        let abandoned = try subscribed(other)
        try abandoned.settings.setBilling(BillingSetting(failing: true, graceDays: nil))
        other.clock.set(utc(2026, 3, 1))
        #expect(try plan(abandoned).phase == .billingRetry)
        other.clock.set(utc(2026, 5, 20))
        #expect(try plan(abandoned).phase == .billingRetry, "still retrying after 80 days")
        other.clock.set(utc(2026, 6, 1))
        let ended = try plan(abandoned)
        #expect(
            ended.phase == .expired && ended.ended == .billingRetryGaveUp(days: 90),
            "\(String(describing: ended.ended))")
    }

    @Test(
        "A price change of a plan in a commitment follows a yearly plan's: an increase of the monthly price is told at once, the commitment's months keep their price, and the next commitment pays the new one; declined, the plan bills all twelve months and ends at the commitment's end (EXPIRED, PRICE_INCREASE); an increase of the price billed up front is not told to a plan that renews monthly"
    )
    func priceChangeInCommitment() throws {
        let state = TemporaryState()
        let store = try subscribed(state)
        state.clock.set(utc(2026, 3, 15))
        var (_, told) = try store.plans.setPrice(Decimal(string: "59.99")!, of: "y.all", consentRequired: true)
        #expect(told == 0, "it renews monthly, not billed up front")
        let change: PriceChange
        (change, told) = try store.plans.setPrice(
            Decimal(string: "5.99")!, of: "y.all", billingPlan: .monthly, consentRequired: true)
        #expect(told == 1 && change.previous == Decimal(string: "4.99") && change.plan == .monthly)
        var status = try plan(store)
        #expect(
            status.priceIncrease
                == PendingPriceIncrease(
                    price: Decimal(string: "5.99")!, consentRequired: true, answer: nil))
        #expect(
            status.summary(calendar: utcCalendar, catalog: Self.catalog).contains(
                "price rises to 5.99 from the commitment's end: agree, or it ends when the commitment ends"),
            "\(status.summary(calendar: utcCalendar, catalog: Self.catalog))")
        #expect(try store.plans.priceChanges().count == 2, "one change per billing plan")

        state.clock.set(utc(2026, 9, 1))
        status = try plan(store)
        #expect(status.commitment?.period == 8 && status.priceIncrease?.answer == nil, "months do not clear it")
        status = try store.plans.answerPriceIncrease(of: "y.all", accept: false)
        #expect(status.hasAccess && status.priceIncrease?.answer == false)

        state.clock.set(utc(2027, 3, 1))
        let months = try lines(store)
        #expect(months.count == 12 && months.allSatisfy { $0.price == Decimal(string: "4.99") })
        status = try plan(store)
        #expect(
            status.phase == .expired && status.ended == .priceIncreaseNotAccepted
                && status.expiresDate == utc(2027, 1, 31, 10), "\(String(describing: status.ended))")
        try expectReplayAgrees(store)

        // Agreed to, the next commitment pays the new monthly price.
        let other = TemporaryState()
        let agreeing = try subscribed(other)
        other.clock.set(utc(2026, 3, 15))
        _ = try agreeing.plans.setPrice(
            Decimal(string: "5.99")!, of: "y.all", billingPlan: .monthly, consentRequired: true)
        _ = try agreeing.plans.answerPriceIncrease(of: "y.all", accept: true)
        other.clock.set(utc(2027, 3, 1))
        let renewed = try lines(agreeing)
        #expect(renewed.count == 14)
        #expect(renewed.prefix(12).allSatisfy { $0.price == Decimal(string: "4.99") })
        #expect(
            renewed[12].commitment?.number == 1 && renewed[12].price == Decimal(string: "5.99")
                && renewed[12].purchaseDate == utc(2027, 1, 31, 10))
        #expect(try plan(agreeing).priceIncrease == nil)
        // A new customer buys the monthly plan at its new price.
        let newcomer = try other.signedIn("bo", device: "tablet", catalog: Self.catalog)
        _ = try newcomer.queue.buy("y.all", billingPlan: .monthly)
        let bought = try newcomer.server.planLines(account: "bo").first
        #expect(bought?.price == Decimal(string: "5.99") && bought?.commitment?.number == 1)
        // A downgrade waiting for the commitment's end renews billed up front on another product:
        // the monthly price of this one is not what it will pay.
        let third = TemporaryState()
        let leaving = try subscribed(third)
        third.clock.set(utc(2026, 3, 15))
        _ = try leaving.queue.buy("y.lite")
        let (_, toldLeaving) = try leaving.plans.setPrice(
            Decimal(string: "6.49")!, of: "y.all", billingPlan: .monthly, consentRequired: true)
        let leavingPlan = try plan(leaving)
        #expect(toldLeaving == 0 && leavingPlan.nextProductID == "y.lite" && leavingPlan.priceIncrease == nil)
        #expect(throws: StoreError.planRefused(.noMonthlyCommitment(productID: "y.lite"))) {
            try agreeing.plans.setPrice(
                Decimal(string: "2.00")!, of: "y.lite", billingPlan: .monthly, consentRequired: false)
        }
    }
}

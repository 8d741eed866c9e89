// Auto-renewable subscriptions — renewals as the clock passes, introductory offers,
// cancel, refund, expire, force renew, billing retry and grace, plan changes in a group, and the
// receipt giving back the live state (A6 for plans).
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Auto-renewable subscriptions")
struct AutoRenewTests {
    /// A store on the selfies catalog signed in as `user`, at `date`.
    func store(_ state: TemporaryState, _ user: String, at date: Date? = nil, device: String = "phone") throws -> Store
    {
        if let date { state.clock.set(date) }
        return try state.signedIn(user, device: device, catalog: selfiesCatalog)
    }

    func plan(_ store: Store, _ group: String = "selfies") throws -> PlanStatus {
        try #require(try store.plans.subscriptions().first { $0.group == group })
    }

    /// The account's plan lines after settling what the clock has passed.
    func lines(_ store: Store, _ user: String) throws -> [ReceiptEntry] {
        _ = try store.plans.subscriptions()
        return try store.server.planLines(account: user)
    }

    @Test(
        "A monthly plan bought on 31 January without a trial renews on month ends for a year (28 Feb, 31 Mar, 30 Apr…)")
    func monthEndsClamp() throws {
        let state = TemporaryState()
        let store = try store(state, "ann", at: utc(2025, 12, 1))
        // The one trial of the group is used first, and lapses.
        let trial = try store.queue.buy("allaccess.monthly")
        #expect(try plan(store).phase == .trial)
        _ = try store.plans.perform(.cancel, on: "allaccess.monthly")
        state.clock.set(utc(2026, 1, 31, 10))
        #expect(try plan(store).phase == .expired)
        let second = try store.queue.buy("allaccess.monthly")
        #expect(try lines(store, "ann").last?.offer == nil, "the trial is used once per group")
        #expect(try lines(store, "ann").last?.expiresDate == utc(2026, 2, 28, 10))
        state.clock.set(utc(2027, 1, 31, 10))
        let renewals = try lines(store, "ann").filter { $0.event == .renewal }
        let expected = [
            utc(2026, 2, 28, 10), utc(2026, 3, 31, 10), utc(2026, 4, 30, 10), utc(2026, 5, 31, 10),
            utc(2026, 6, 30, 10),
            utc(2026, 7, 31, 10), utc(2026, 8, 31, 10), utc(2026, 9, 30, 10), utc(2026, 10, 31, 10),
            utc(2026, 11, 30, 10),
            utc(2026, 12, 31, 10), utc(2027, 1, 31, 10),
        ]
        #expect(renewals.map(\.purchaseDate) == expected)
        #expect(renewals.map(\.expiresDate) == Array(expected.dropFirst()) + [utc(2027, 2, 28, 10)])
        // The resubscription keeps the group's original transaction (StoreKit's originalID).
        #expect(renewals.allSatisfy { $0.price == Decimal(string: "5.99") && $0.reference == trial.id })
        #expect(trial.id != second.id)
        #expect(try plan(store).renewals == 12)
    }

    @Test(
        "Q6 A6 a year of monthly renewals: one purchase and twelve renewals in each signed-in device's history, each delivered once, observers told"
    )
    func renewalsReachEveryDevice() throws {
        let state = TemporaryState()
        let phone = try store(state, "ann", at: utc(2025, 12, 1), device: "phone")
        let tablet = try state.signedIn("ann", device: "tablet", catalog: selfiesCatalog)
        // The group's one trial is used and lapses first, so the year is twelve paid renewals.
        let trial = try phone.queue.buy("allaccess.monthly")
        _ = try phone.plans.perform(.cancel, on: "allaccess.monthly")
        state.clock.set(utc(2026, 1, 31, 10))
        try phone.queue.buy("allaccess.monthly")
        var seen: [String] = []
        tablet.queue.observe { event in if event.state == .purchased { seen.append(event.transactionID) } }
        try tablet.queue.publishEvents()
        // The clock passes a month at a time; each device settles as its screen ticks.
        for month in 1...12 {
            state.clock.set(utc(2026, 1, 31, 10).addingTimeInterval(Double(month) * 31 * 86_400))
            try phone.queue.recover()
            try tablet.queue.recover()
            try tablet.queue.recover()
        }
        state.clock.set(utc(2027, 1, 31, 10))
        try phone.queue.recover()
        try tablet.queue.recover()
        for store in [phone, tablet] {
            let history = try store.queue.history().filter { $0.kind == .autoRenewableSubscription }
            let renewals = history.filter(\.isRenewal)
            #expect(renewals.count == 12, "\(store.session.deviceName): \(history.map(\.id))")
            #expect(Set(renewals.map(\.id)).count == 12)
            // The resubscription kept the group's original id: the trial's.
            #expect(renewals.allSatisfy { $0.originalID == trial.id && $0.isFinished && $0.states == [.purchased] })
            #expect(renewals.map { $0.purchaseDate! } == renewals.map { $0.purchaseDate! }.sorted())
            #expect(try store.entitlements.receipt().isConsistent)
        }
        let phoneIDs = try phone.queue.history().filter(\.isRenewal).map(\.id)
        #expect(
            try tablet.queue.history().filter(\.isRenewal).map(\.id) == phoneIDs,
            "the same transaction ids on every device")
        try tablet.queue.publishEvents()
        #expect(seen.sorted() == phoneIDs.sorted(), "observers see each renewal once")
        #expect(try phone.queue.recover().received.isEmpty, "nothing twice")
    }

    @Test("Q6 a crash after the renewals are written and before they are finished: the next start finishes each once")
    func renewalCrash() throws {
        let state = TemporaryState()
        let phone = try store(state, "ann", at: utc(2026, 1, 31, 10), device: "phone")
        try phone.queue.buy("allaccess.monthly")
        state.clock.set(utc(2026, 4, 1))
        phone.crashPoints = { point throws(StoreError) in if point == .renewalsReceived { throw .stopped(at: point) } }
        #expect(throws: StoreError.self) { try phone.queue.recover() }
        let next = try state.store(device: "phone", catalog: selfiesCatalog)
        let cut = try next.queue.history().filter(\.isRenewal)
        #expect(cut.count == 2 && cut.allSatisfy { !$0.isFinished }, "written, not finished")
        let report = try next.queue.recover()
        #expect(Set(report.redelivered) == Set(cut.map(\.id)) && report.received.isEmpty)
        #expect(try next.queue.history().filter(\.isRenewal).allSatisfy(\.isFinished))
        #expect(try next.queue.history().filter(\.isRenewal).count == 2)
    }

    @Test(
        "R6 with a catalog that sells only plans, an active plan is subscribed and the header speaks for it; not the pass's perks"
    )
    func subscribedByPlan() throws {
        let state = TemporaryState()
        let store = try store(state, "ann", at: utc(2026, 1, 31, 10))
        #expect(try store.entitlements.status().header == "Not Subscribed")
        try store.queue.buy("allaccess.monthly")
        let status = try store.entitlements.status()
        #expect(status.isSubscribed && !status.hasPass)
        #expect(status.header == "Subscribed! Expires: 07/02/2026 (7 Days)", "the trial's end")
        _ = try store.plans.perform(.cancel, on: "allaccess.monthly")
        state.clock.set(utc(2026, 2, 7, 9, 59, 59))
        #expect(try store.entitlements.status().isSubscribed, "cancelled: access to the period's end")
        state.clock.set(utc(2026, 2, 7, 10))
        let lapsed = try store.entitlements.status()
        #expect(!lapsed.isSubscribed && lapsed.header == "Not Subscribed", "to the second (R6)")
    }

    @Test("A monthly plan with a one-week trial bought on 31 January: trial to 7 Feb, then the 7th of each month")
    func trialThenMonthly() throws {
        let state = TemporaryState()
        let store = try store(state, "bob", at: utc(2026, 1, 31, 10))
        try store.queue.buy("allaccess.monthly")
        let first = try lines(store, "bob")[0]
        #expect(first.offer == .freeTrial && first.price == 0 && first.expiresDate == utc(2026, 2, 7, 10))
        #expect(try plan(store).phase == .trial)
        state.clock.set(utc(2027, 1, 31, 10))
        let renewals = try lines(store, "bob").filter { $0.event == .renewal }
        #expect(renewals.map(\.purchaseDate) == (0..<12).map { utc(2026 + ($0 + 1) / 12, ($0 + 1) % 12 + 1, 7, 10) })
        #expect(renewals.allSatisfy { $0.offer == nil && $0.price == Decimal(string: "5.99") })
        #expect(try plan(store).phase == .active)
    }

    @Test("A monthly plan whose one-week trial ends on 31 January renews on month ends after it")
    func trialEndsOnMonthEnd() throws {
        let state = TemporaryState()
        let store = try store(state, "cy", at: utc(2026, 1, 24, 9))
        try store.queue.buy("oneaweek.monthly")
        state.clock.set(utc(2026, 6, 1))
        let renewals = try lines(store, "cy").filter { $0.event == .renewal }
        #expect(
            renewals.map(\.purchaseDate) == [
                utc(2026, 1, 31, 9), utc(2026, 2, 28, 9), utc(2026, 3, 31, 9), utc(2026, 4, 30, 9), utc(2026, 5, 31, 9),
            ])
        #expect(try plan(store).expiresDate == utc(2026, 6, 30, 9))
    }

    @Test("The introductory offer is used once per group per account; another account still has it")
    func trialOnce() throws {
        let state = TemporaryState()
        let ann = try store(state, "ann")
        try ann.queue.buy("oneaweek.monthly")
        #expect(try lines(ann, "ann").last?.offer == .freeTrial)
        _ = try ann.plans.perform(.expire, on: "oneaweek.monthly")
        try ann.queue.buy("allaccess.monthly")
        #expect(try lines(ann, "ann").last?.offer == nil, "another product of the same group: no second trial")
        let bob = try store(state, "bob", device: "tablet")
        try bob.queue.buy("allaccess.monthly")
        #expect(try lines(bob, "bob").last?.offer == .freeTrial)
    }

    @Test("A pay-as-you-go offer charges its price for its periods, then the full price")
    func payAsYouGo() throws {
        let state = TemporaryState()
        let store = try store(state, "ann")
        try store.queue.buy("comics.yearly")
        #expect(try store.entitlements.status().unlocked == ["comic.a"], "all-comics unlocks every comic")
        state.clock.set(StoreDuration(years: 3).added(to: startDate, calendar: utcCalendar))
        let charged = try lines(store, "ann").filter { $0.group == "comics" }.map { $0.price.map(PriceFormatter.plain) }
        #expect(charged == ["4.99", "4.99", "9.99", "9.99"])
        #expect(try lines(store, "ann").last?.expiresDate == utc(2030, 1, 15, 12))
    }

    @Test("Cancel keeps access to the period's end, then the plan ends with no renewal")
    func cancelKeepsAccess() throws {
        let state = TemporaryState()
        let store = try store(state, "carol")
        try store.queue.buy("allaccess")
        state.clock.advance(.days(2), calendar: utcCalendar)
        let cancelled = try store.plans.perform(.cancel, on: "oneaweek")
        #expect(cancelled.phase == .cancelled && cancelled.hasAccess && cancelled.renewsAt == nil)
        #expect(
            error { try store.plans.perform(.cancel, on: "allaccess") }
                == .planRefused(.ruleRefused(.alreadyCancelled, attempt: .perform(.cancel, group: "selfies"))))
        state.clock.set(startDate.addingTimeInterval(7 * 86_400 - 1))
        #expect(try plan(store).hasAccess)
        #expect(try store.entitlements.status().entitlements == ["all-selfies"])
        state.clock.advance(seconds: 1)
        #expect(try plan(store).phase == .expired)
        #expect(try store.entitlements.status().entitlements.isEmpty)
        state.clock.advance(.months(2), calendar: utcCalendar)
        #expect(try lines(store, "carol").map(\.event) == [.purchase, .cancel])
        #expect(
            error { try store.plans.perform(.renewOn, on: "allaccess") } != nil,
            "an ended plan cannot be turned back on")
    }

    @Test("Turning auto-renew back on before the end keeps the plan renewing")
    func renewOn() throws {
        let state = TemporaryState()
        let store = try store(state, "carol")
        try store.queue.buy("allaccess")
        _ = try store.plans.perform(.cancel, on: "allaccess")
        let on = try store.plans.perform(.renewOn, on: "allaccess")
        #expect(on.phase == .active && on.renewsAt == startDate.addingTimeInterval(7 * 86_400))
        state.clock.advance(.days(15), calendar: utcCalendar)
        #expect(try plan(store).renewals == 2)
    }

    @Test("A refund of the current period ends access at once; a refund of an earlier one does not")
    func refundEndsAccess() throws {
        let state = TemporaryState()
        let store = try store(state, "dave")
        let bought = try store.queue.buy("allaccess")
        state.clock.advance(.days(8), calendar: utcCalendar)
        #expect(try plan(store).renewals == 1)
        let old = try store.plans.refund(bought.id)
        #expect(old.hasAccess, "the first week is over; refunding it leaves the current one")
        #expect(error { try store.plans.refund(bought.id) } != nil, "a line is refunded once")
        let current = try plan(store).transactionID
        let refunded = try store.plans.refund(String(current.prefix(6)))
        #expect(!refunded.hasAccess && refunded.phase == .expired && refunded.endReason == "refunded")
        #expect(refunded.endedAt == state.clock.now())
        state.clock.advance(.months(1), calendar: utcCalendar)
        #expect(try lines(store, "dave").filter { $0.event == .renewal }.count == 1)
        #expect(
            try lines(store, "dave").filter { $0.event == .refund }.map(\.price) == [
                Decimal(string: "-1.99"), Decimal(string: "-1.99"),
            ])
    }

    @Test("Expire now ends the plan; force renew starts a new period now")
    func expireAndForceRenew() throws {
        let state = TemporaryState()
        let store = try store(state, "erin")
        try store.queue.buy("allaccess")
        state.clock.advance(.days(3), calendar: utcCalendar)
        let renewed = try store.plans.perform(.forceRenew, on: "allaccess")
        #expect(renewed.renewals == 1 && renewed.expiresDate == startDate.addingTimeInterval(10 * 86_400))
        let expired = try store.plans.perform(.expire, on: "allaccess")
        #expect(!expired.hasAccess && expired.endReason == "expired by hand")
        #expect(error { try store.plans.perform(.forceRenew, on: "allaccess") } != nil)
        #expect(
            error { try store.plans.perform(.expire, on: "comic.a") } == .planRefused(.notAPlan(productID: "comic.a")))
    }

    @Test("R9 under `clock rate sandbox` a plan renews as the sandbox does (1 week = 3 minutes) 12 times, then expires")
    func sandboxRenewsTwelveTimes() throws {
        let state = TemporaryState()
        let store = try store(state, "fay")
        var sandbox = ClockSetting(mode: .rate, rate: ClockSetting.sandboxRate)
        sandbox.sandboxPeriods = true
        try store.server.setClockSetting(sandbox)
        try store.queue.buy("allaccess")
        let period = 180 * ClockSetting.sandboxRate
        #expect(try plan(store).expiresDate == startDate.addingTimeInterval(period))
        state.clock.advance(.months(12), calendar: utcCalendar)
        let all = try lines(store, "fay")
        let renewals = all.filter { $0.event == .renewal }
        #expect(renewals.count == AutoRenewal.sandboxRenewalLimit)
        #expect(
            renewals.enumerated().allSatisfy {
                $0.element.purchaseDate == startDate.addingTimeInterval(period * Double($0.offset + 1))
            })
        #expect(all.last?.event == .expire)
        #expect(all.last?.purchaseDate == startDate.addingTimeInterval(period * 13))
        #expect(try plan(store).phase == .expired)
    }

    @Test(
        "Billing retry without a grace period: access ends at the failed renewal; a later retry succeeds and starts a new period"
    )
    func billingRetry() throws {
        let state = TemporaryState()
        let store = try store(state, "gus")
        try store.queue.buy("allaccess")
        try store.settings.setBilling(BillingSetting(failing: true))
        state.clock.advance(.days(8), calendar: utcCalendar)
        let failing = try plan(store)
        #expect(failing.phase == .billingRetry && !failing.hasAccess)
        #expect(failing.billingFailedAt == startDate.addingTimeInterval(7 * 86_400))
        state.clock.advance(.days(1), calendar: utcCalendar)
        try store.settings.setBilling(BillingSetting(failing: false))
        let recovered = try plan(store)
        #expect(recovered.phase == .active)
        #expect(recovered.expiresDate == startDate.addingTimeInterval(16 * 86_400), "a new week from the recovery")
        #expect(try lines(store, "gus").map(\.event) == [.purchase, .billingFailure, .billingRecovered, .renewal])
    }

    @Test("In billing retry, buying the plan again is a new payment: the plan starts again now")
    func buyAgainInRetry() throws {
        let state = TemporaryState()
        let store = try store(state, "gil")
        let first = try store.queue.buy("allaccess")
        try store.settings.setBilling(BillingSetting(failing: true))
        state.clock.advance(.days(9), calendar: utcCalendar)
        #expect(try plan(store).phase == .billingRetry)
        #expect(try store.entitlements.productRows().first { $0.product.id == "allaccess" }?.action == .resubscribe)
        try store.queue.buy("allaccess")
        let again = try plan(store)
        #expect(again.phase == .active && again.expiresDate == startDate.addingTimeInterval(16 * 86_400))
        #expect(again.originalTransactionID == first.id)
        #expect(try store.entitlements.receipt().isConsistent)
    }

    @Test("Billing retry with a grace period: access continues; recovered in grace, no days are lost")
    func billingGrace() throws {
        let state = TemporaryState()
        let store = try store(state, "hal")
        try store.queue.buy("allaccess")
        try store.settings.setBilling(BillingSetting(failing: true, graceDays: 16))
        state.clock.advance(.days(8), calendar: utcCalendar)
        let grace = try plan(store)
        #expect(grace.phase == .gracePeriod && grace.hasAccess)
        #expect(grace.graceUntil == startDate.addingTimeInterval(23 * 86_400))
        state.clock.advance(.days(2), calendar: utcCalendar)
        try store.settings.setBilling(BillingSetting(failing: false, graceDays: 16))
        #expect(
            try plan(store).expiresDate == startDate.addingTimeInterval(14 * 86_400),
            "the period runs from the failed date")
    }

    @Test("Billing retry gives up after 60 days; past the grace period there is no access")
    func billingGivesUp() throws {
        let state = TemporaryState()
        let store = try store(state, "ida")
        try store.queue.buy("allaccess")
        try store.settings.setBilling(BillingSetting(failing: true, graceDays: 3))
        state.clock.advance(.days(12), calendar: utcCalendar)
        #expect(try plan(store).phase == .billingRetry)
        state.clock.advance(.days(70), calendar: utcCalendar)
        let ended = try plan(store)
        #expect(ended.phase == .expired && ended.endedAt == startDate.addingTimeInterval(67 * 86_400))
        #expect(ended.endReason == "billing retry gave up after 60 days")
    }

    @Test("An upgrade mid-period takes effect at once with a prorated credit; a downgrade waits for the renewal")
    func upgradeAndDowngrade() throws {
        let state = TemporaryState()
        let store = try store(state, "jo")
        let first = try store.queue.buy("oneaweek")
        #expect(try store.entitlements.productRows().first { $0.product.id == "allaccess" }?.action == .upgrade)
        state.clock.advance(.days(2), calendar: utcCalendar)
        try store.queue.buy("allaccess")
        let upgraded = try plan(store)
        #expect(upgraded.productID == "allaccess" && upgraded.originalTransactionID == first.id)
        #expect(upgraded.expiresDate == startDate.addingTimeInterval(9 * 86_400))
        let credit = try #require(try lines(store, "jo").first { $0.event == .credit })
        #expect(credit.price == Decimal(string: "-0.71"), "0.99 × 5/7 of the week left")
        #expect(credit.reference == first.id)
        #expect(
            try store.entitlements.productRows().first { $0.product.id == "oneaweek.monthly" }?.action == .downgrade)
        let downgrade = try store.queue.buy("oneaweek.monthly")
        #expect(
            try lines(store, "jo").last?.transactionID == downgrade.id,
            "recovery finds a downgrade on the receipt by its id")
        let scheduled = try plan(store)
        #expect(scheduled.productID == "allaccess" && scheduled.nextProductID == "oneaweek.monthly")
        #expect(
            try store.entitlements.productRows().first { $0.product.id == "oneaweek.monthly" }?.action == .scheduled)
        state.clock.set(startDate.addingTimeInterval(9 * 86_400))
        let switched = try plan(store)
        #expect(switched.productID == "oneaweek.monthly" && switched.nextProductID == nil && switched.offer == nil)
        #expect(switched.expiresDate == utc(2026, 2, 24, 12))
        #expect(switched.unlocks == ["one-selfie-a-week"])
    }

    @Test("Buying the plan one has is refused; a crossgrade to another period waits for the renewal")
    func crossgrade() throws {
        let state = TemporaryState()
        let store = try store(state, "kim")
        try store.queue.buy("allaccess")
        #expect(error { try store.queue.buy("allaccess") } == .alreadySubscribed(productID: "allaccess"))
        try store.queue.buy("allaccess.monthly")
        #expect(try plan(store).nextProductID == "allaccess.monthly")
        try store.queue.buy("allaccess")
        #expect(try plan(store).nextProductID == nil, "buying the current plan again keeps it")
    }

    @Test("A deferred plan purchase starts the plan when approved, at the approval")
    func deferredPlan() throws {
        let state = TemporaryState()
        let store = try store(state, "lee")
        let asked = try store.queue.buy("allaccess", outcome: .defer)
        #expect(try store.plans.subscriptions().isEmpty)
        state.clock.advance(.days(1), calendar: utcCalendar)
        try store.queue.approve(asked.id)
        #expect(try plan(store).expiresDate == startDate.addingTimeInterval(8 * 86_400))
        #expect(error { try store.queue.buy("oneaweek", outcome: .approve) } == nil)
    }

    @Test("Guests cannot subscribe (A1)")
    func guests() throws {
        let state = TemporaryState()
        let store = try state.store(catalog: selfiesCatalog)
        #expect(error { try store.queue.buy("allaccess") } == .signInRequired(productID: "allaccess"))
        #expect(try store.entitlements.productRows().first?.action == .signInRequired)
    }

    @Test(
        "A6 for plans: after any sequence of these actions the receipt gives back the stored plan",
        arguments: [1, 2, 3, 4] as [UInt64])
    func receiptReplaysPlans(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let state = TemporaryState()
        let stores = [try store(state, "ann"), try store(state, "bob", device: "tablet")]
        let products = selfiesCatalog.products.filter { $0.kind == .autoRenewableSubscription }.map(\.id)
        let offerKey = try TestOfferKey(installedIn: stores[0])
        var billing = BillingSetting()
        for step in 0..<200 {
            let store = stores[Int.random(in: 0..<2, using: &random)]
            let product = products[Int.random(in: 0..<products.count, using: &random)]
            switch Int.random(in: 0..<18, using: &random) {
            case 0, 1: _ = try? store.queue.buy(product, outcome: Bool.random(using: &random) ? .approve : .defer)
            case 2: _ = try? store.plans.perform(.cancel, on: product)
            case 3: _ = try? store.plans.perform(.renewOn, on: product)
            case 4: _ = try? store.plans.perform(.expire, on: product)
            case 5: _ = try? store.plans.perform(.forceRenew, on: product)
            case 6:
                if let line = try store.entitlements.receipt().entries.filter({
                    $0.event == .renewal || $0.event == .purchase
                }).randomElement(using: &random) {
                    _ = try? store.plans.refund(line.transactionID)
                }
            case 7:
                billing.failing.toggle()
                try store.settings.setBilling(billing)
            case 8:
                billing.graceDays = [nil, 3, 16].randomElement(using: &random)!
                try store.settings.setBilling(billing)
            case 9:
                if let pending = try store.queue.pending().first { _ = try? store.queue.approve(pending.id) }
            case 10:
                // O2: a promotional offer, bought by a new, current or past subscriber.
                let (product, offer) = [
                    ("allaccess.monthly", "comeback"), ("allaccess.monthly", "free.month"), ("oneaweek", "upfront"),
                ]
                .randomElement(using: &random)!
                _ = try? store.queue.buy(
                    product, outcome: .approve, offer: try offerKey.request(store, product: product, offer: offer))
            case 12:
                // O6: a price change, and answers to it.
                // Mostly increases, which are told to subscribers; now and then a decrease.
                let current =
                    try store.plans.priceChanges().first { $0.productID == product }?.price
                    ?? selfiesCatalog.product(product)!.price
                let step = Decimal(Int.random(in: -50...300, using: &random)) / 100
                _ = try? store.plans.setPrice(
                    max(current + step, 0), of: product, consentRequired: Bool.random(using: &random))
            case 13:
                _ = try? store.plans.answerPriceIncrease(of: product, accept: Bool.random(using: &random))
            case 15:
                // O5: ann's family with bob, sharing on and off, bob in and out.
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    _ = try? stores[0].family.create()
                    _ = try? stores[0].family.add("bob")
                    _ = try? stores[1].family.accept()
                case 1: _ = try? stores[1].family.leave("bob")
                default:
                    _ = try? stores[0].family.share(
                        product.hasPrefix("allaccess") ? product : "allaccess", on: Bool.random(using: &random))
                }
            case 14:
                // O7: a refund request of a plan period, answered either way, now and then reversed.
                if let line = try store.entitlements.receipt().entries.filter({
                    $0.event == .renewal || $0.event == .purchase
                }).randomElement(using: &random) {
                    _ = try? store.refunds.request(line.transactionID, reason: .other)
                    _ = try? store.refunds.decide(line.transactionID, approve: Bool.random(using: &random))
                    if Bool.random(using: &random) { _ = try? store.refunds.reverse(line.transactionID) }
                }
            case 11:
                // O3: an offer code of any eligibility.
                let offer = ["WELCOME", "COMEBACK", "ANYONE"].randomElement(using: &random)!
                if let code = try? store.offers.createCodes(offer: offer, count: 1, custom: nil, limit: 1).first {
                    _ = try? store.queue.redeem(code: code.code, outcome: .approve)
                }
            default:
                state.clock.advance(seconds: TimeInterval(Int.random(in: 3600...(40 * 86_400), using: &random)))
            }
            for store in stores {
                let report = try store.entitlements.receipt()
                #expect(report.storedPlans == report.recomputedPlans, "seed \(seed), step \(step)")
                if report.storedPlans != report.recomputedPlans { return }
            }
        }
        #expect(
            try stores.map { try $0.entitlements.receipt().entries.count }.reduce(0, +) > 20,
            "the history did something")
        let offered = try stores.flatMap { try $0.entitlements.receipt().entries }.filter {
            $0.offerType == .promotional
        }
        #expect(!offered.isEmpty, "seed \(seed): the history sold promotional offers")
        let redeemed = try stores.flatMap { try $0.entitlements.receipt().entries }.filter { $0.offerType == .code }
        #expect(!redeemed.isEmpty, "seed \(seed): the history redeemed offer codes")
        let increases = try stores.flatMap { try $0.entitlements.receipt().entries }.filter {
            $0.event == .priceIncrease
        }
        #expect(!increases.isEmpty, "seed \(seed): the history told price increases")
        let refundLines = try stores.flatMap { try $0.entitlements.receipt().entries }.filter {
            $0.event == .refundRequest
        }
        #expect(!refundLines.isEmpty, "seed \(seed): the history asked for refunds")
        let shares = try stores.flatMap { try $0.entitlements.receipt().entries }.filter { $0.event == .familyShare }
        #expect(!shares.isEmpty, "seed \(seed): the history shared with the family")
    }
}

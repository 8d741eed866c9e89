// Auto-renewable subscriptions: the rules that write a plan's receipt lines as the clock
// passes period ends (renewals, billing failures, the sandbox's renewal limit) and as people act
// (subscribe, upgrade, cancel, refund, expire, force a renewal). The state they act on, and the
// fold that makes it from those lines, is PlanState.swift.
import Foundation

/// The rules that write plan lines. Pure: it reads the state and the time it is given and returns
/// the lines to record, in order; nothing is stored here.
public struct AutoRenewal {
    public var calendar: Calendar
    /// Store seconds per real second when the clock is accelerated: periods then last as long as
    /// the App Store sandbox makes them (1 month = 5 real minutes) and a plan renews 12 times.
    public var sandboxRate: Double?
    public var billing: BillingSetting
    public var product: (String) -> Product?
    /// O6: the latest price change of each billing plan of each product (`product` already
    /// answers at its prices).
    public var priceChanges: [PriceChange.Key: PriceChange] = [:]
    /// Billing retry gives up this long after the failed renewal (the App Store tries for 60 days;
    /// for a monthly plan with a 12-month commitment, 90).
    public static let retryDays = 60
    public static let commitmentRetryDays = 90

    /// Whether the plan's next period is a month of a commitment (one running, or one starting).
    static func inCommitment(_ state: PlanState) -> Bool {
        state.commitment != nil || state.nextBillingPlan == .monthly
    }

    static func retryDays(_ state: PlanState) -> Int { inCommitment(state) ? commitmentRetryDays : retryDays }
    public static let sandboxRenewalLimit = 12

    public init(
        calendar: Calendar, sandboxRate: Double?, billing: BillingSetting, product: @escaping (String) -> Product?
    ) {
        self.calendar = calendar
        self.sandboxRate = sandboxRate
        self.billing = billing
        self.product = product
    }

    /// `from` + `count` periods: calendar arithmetic, or sandbox minutes on an accelerated clock.
    public func end(from start: Date, period: SubscriptionPeriod, count: Int) -> Date {
        if let sandboxRate {
            return start.addingTimeInterval((Double(period.sandboxSeconds * count) * sandboxRate).rounded())
                .wholeSeconds
        }
        return period.duration(times: count).added(to: start, calendar: calendar).wholeSeconds
    }

    private func days(_ count: Int, after date: Date) -> Date {
        if let sandboxRate {
            // The sandbox shortens retry and grace as it shortens periods: a day as 1/30 of a month.
            return date.addingTimeInterval((Double(count * 10) * sandboxRate).rounded()).wholeSeconds
        }
        return StoreDuration(days: count).added(to: date, calendar: calendar).wholeSeconds
    }

    /// A line with the fields every plan line has.
    func line(
        _ event: ReceiptEvent, _ state: PlanState?, productID: String, group: String, at: Date, context: LineContext
    ) -> ReceiptEntry {
        ReceiptEntry(
            transactionID: context.makeID(), account: context.account, productID: productID,
            kind: .autoRenewableSubscription, purchaseDate: at, device: context.device, event: event, group: group,
            reference: state?.originalTransactionID
        )
    }

    public struct LineContext {
        public var account: String
        public var device: String
        public var makeID: () -> String

        public init(account: String, device: String, makeID: @escaping () -> String) {
            self.account = account
            self.device = device
            self.makeID = makeID
        }
    }

    // MARK: The clock passing

    /// Every line the time between the plan's state and `now` writes: renewals at each period end,
    /// billing failures, recoveries and expiries, each dated when it happened.
    public func advance(_ initial: PlanState, to now: Date, context: LineContext) -> [ReceiptEntry] {
        // O6: a price increase of the price the plan renews at is told at the time it was made,
        // between the periods before it and those after. A plan in a commitment renews at the
        // commitment's end, so its months keep their price, as a year billed up front does.
        guard
            let change = priceChanges[initial.renewalPriceKey],
            change.isIncrease, change.at <= now, initial.endedAt == nil,
            (initial.priceChangeSeen ?? .distantPast) < change.at, initial.began(before: change)
        else { return advancePeriods(initial, to: now, context: context) }
        var lines = advancePeriods(initial, to: change.at, context: context)
        var state = lines.reduce(initial) { PlanState.apply($0, $1) ?? $0 }
        if state.endedAt == nil, state.renewalPriceKey == change.key, state.began(before: change) {
            var told = line(
                .priceIncrease, state, productID: state.productID, group: state.group, at: change.at, context: context)
            told.price = change.price
            told.meaning = change.consentRequired ? .consentRequired : nil
            told.until = change.at
            lines.append(told)
            state = PlanState.apply(state, told) ?? state
        }
        return lines + advancePeriods(state, to: now, context: context)
    }

    private func advancePeriods(_ initial: PlanState, to now: Date, context: LineContext) -> [ReceiptEntry] {
        var lines: [ReceiptEntry] = []
        var state = initial
        func add(_ line: ReceiptEntry) {
            lines.append(line)
            state = PlanState.apply(state, line) ?? state
        }
        // A bound on the loop: a weekly plan advanced by a century is 5,218 renewals.
        for _ in 0..<100_000 {
            guard state.endedAt == nil else { break }
            if let failedAt = state.billingFailedAt {
                let retry = Self.retryDays(state)
                let giveUp = days(retry, after: failedAt)
                if giveUp <= now {
                    var expiry = line(
                        .expire, state, productID: state.productID, group: state.group, at: giveUp, context: context)
                    expiry.meaning = .ended(.billingRetryGaveUp(days: retry))
                    add(expiry)
                    continue
                }
                guard !billing.failing, state.autoRenew else { break }
                // Recovered within the grace period: no days lost, the period runs from the old date.
                let start = state.graceUntil.map { now < $0 } ?? false ? state.expiresDate : now
                add(
                    line(
                        .billingRecovered, state, productID: state.productID, group: state.group, at: now,
                        context: context))
                // A commitment's months are twelve whatever was lost: its end moves as late as
                // the recovery came (Apple's lifecycle of monthly plans).
                var resumed = state
                if let commitment = state.commitment, start > state.expiresDate {
                    resumed.commitment?.ends = commitment.ends.addingTimeInterval(
                        start.timeIntervalSince(state.expiresDate))
                }
                add(renewal(resumed, at: start, context: context))
                continue
            }
            guard state.autoRenew, state.expiresDate <= now else { break }
            let at = state.expiresDate
            if sandboxRate != nil, state.renewals >= Self.sandboxRenewalLimit {
                var expiry = line(
                    .expire, state, productID: state.productID, group: state.group, at: at, context: context)
                expiry.meaning = .ended(.sandboxRenewalLimit(renewals: Self.sandboxRenewalLimit))
                add(expiry)
                continue
            }
            if billing.failing {
                var failure = line(
                    .billingFailure, state, productID: state.productID, group: state.group, at: at, context: context)
                // A month of a commitment has no billing grace period: access stops at once.
                failure.until = Self.inCommitment(state) ? nil : billing.graceDays.map { days($0, after: at) }
                add(failure)
                continue
            }
            add(renewal(state, at: at, context: context))
        }
        return lines
    }

    /// The renewal line of a period starting at `at`: the next offer period while one is left,
    /// else the plan's product (or the one a downgrade switches to) at full price.
    func renewal(_ state: PlanState, at: Date, context: LineContext) -> ReceiptEntry {
        // Within a commitment the product cannot change: a change waits for its end.
        if let commitment = state.commitment, commitment.hasMonthsLeft {
            var renewal = line(
                .renewal, state, productID: state.productID, group: state.group, at: at, context: context)
            renewal.price = commitment.price
            renewal.commitment = CommitmentPeriod(number: commitment.period + 1, ends: commitment.ends)
            renewal.expiresDate = monthEnd(state, at: at)
            return renewal
        }
        let productID = state.nextProductID.flatMap { product($0) != nil ? $0 : nil } ?? state.productID
        guard let product = product(productID), let terms = product.autoRenew else {
            var expiry = line(.expire, state, productID: state.productID, group: state.group, at: at, context: context)
            expiry.meaning = .ended(.notForSale(productID: productID))
            return expiry
        }
        // O6: a price increase that needs consent, not given by the renewal, ends the plan.
        if productID == state.productID, let increase = state.priceIncrease, !increase.renews {
            var expiry = line(.expire, state, productID: state.productID, group: state.group, at: at, context: context)
            expiry.meaning = .ended(.priceIncreaseNotAccepted)
            return expiry
        }
        var renewal = line(.renewal, state, productID: productID, group: state.group, at: at, context: context)
        // An offer bought while subscribed starts with this period (O2).
        if let pending = state.pendingOffer, let offer = terms.offer(pending.id, type: pending.type) {
            sell(&renewal, on: offer.terms, at: at)
            (renewal.offerType, renewal.offerID) = (offer.type, offer.id)
            return renewal
        }
        if state.offer == .payAsYouGo, state.offerPeriodsLeft > 0, productID == state.productID,
            let offer = terms.terms(of: state.offerType, id: state.offerID, billingPlan: state.offerBillingPlan)
        {
            renewal.offer = .payAsYouGo
            (renewal.offerType, renewal.offerID) = (state.offerType, state.offerID)
            renewal.price = offer.price
            renewal.expiresDate =
                state.continues(
                    at: at, productID: productID, offer: .payAsYouGo, type: state.offerType, id: state.offerID)
                ? end(from: state.anchor, period: offer.period, count: state.periodsSinceAnchor + 1)
                : end(from: at, period: offer.period, count: 1)
            return renewal
        }
        // A commitment that renews starts another at the product's monthly price, unless the
        // customer chose to be billed up front; a change to the monthly plan starts one.
        let monthlyNext =
            state.nextBillingPlan.map { $0 == .monthly } ?? (state.commitment != nil && productID == state.productID)
        if monthlyNext, let monthly = terms.monthlyCommitmentPrice {
            renewal.price = monthly
            renewal.commitment = CommitmentPeriod(
                number: 1,
                ends: end(from: at, period: BillingPlan.commitmentPeriod, count: BillingPlan.commitmentPeriods))
            renewal.expiresDate = monthEnd(state, at: at)
            return renewal
        }
        renewal.price = product.price
        renewal.expiresDate =
            state.continues(at: at, productID: productID, offer: nil)
            ? end(from: state.anchor, period: terms.period, count: state.periodsSinceAnchor + 1)
            : end(from: at, period: terms.period, count: 1)
        return renewal
    }

    /// The end of a commitment's month that starts at `at`: counted from the run's anchor when it
    /// follows the last month, so that month ends clamp and come back.
    private func monthEnd(_ state: PlanState, at: Date) -> Date {
        state.continues(at: at, productID: state.productID, offer: nil, monthly: true)
            ? end(from: state.anchor, period: BillingPlan.commitmentPeriod, count: state.periodsSinceAnchor + 1)
            : end(from: at, period: BillingPlan.commitmentPeriod, count: 1)
    }

    // MARK: People acting

    /// What buying `product` at `at` writes: a new plan (on the introductory offer if the
    /// account has not used one in the group), an upgrade or same-length crossgrade at once with
    /// a prorated credit for what was left, or a downgrade or other crossgrade at the next renewal.
    /// Prices a line that starts `offer`: its first period (pay as you go) or all of them at once.
    func sell(_ line: inout ReceiptEntry, on offer: IntroductoryOffer, at: Date) {
        line.offer = offer.mode
        line.price = offer.price
        switch offer.mode {
        case .payAsYouGo:
            line.quantity = offer.periods
            line.expiresDate = end(from: at, period: offer.period, count: 1)
        case .freeTrial, .payUpFront:
            line.quantity = 1
            line.expiresDate = end(from: at, period: offer.period, count: offer.periods)
        }
    }

    /// With `offer` (promotional, code or win-back), a new plan or an immediate upgrade starts on
    /// it, and a subscriber of the same product (or one whose change waits for the renewal) gets
    /// it from the next renewal, as the App Store does. `introductoryOffer`, the developer's signed
    /// word, decides whether a new plan starts on the introductory offer in place of the rule
    /// (once per group).
    public func subscribe(
        _ product: Product, state: PlanState?, at: Date, transactionID: String, context: LineContext,
        offer: SubscriptionOffer? = nil, billingPlan: BillingPlan? = nil, introductoryOffer: Bool? = nil
    ) -> [ReceiptEntry] {
        guard let terms = product.autoRenew else { return [] }
        // Monthly with a 12-month commitment: the first of twelve monthly periods, at the monthly
        // price, on no offer.
        let monthly = billingPlan == .monthly ? terms.monthlyCommitmentPrice : nil
        func commit(_ purchase: inout ReceiptEntry) {
            guard let monthly else { return }
            (purchase.offer, purchase.offerType, purchase.offerID, purchase.quantity) = (nil, nil, nil, 0)
            purchase.price = monthly
            purchase.expiresDate = end(from: at, period: BillingPlan.commitmentPeriod, count: 1)
            purchase.commitment = CommitmentPeriod(
                number: 1,
                ends: end(from: at, period: BillingPlan.commitmentPeriod, count: BillingPlan.commitmentPeriods)
            )
        }
        var purchase = ReceiptEntry(
            transactionID: transactionID, account: context.account, productID: product.id,
            kind: .autoRenewableSubscription, purchaseDate: at, device: context.device, event: .purchase,
            group: terms.group, price: product.price
        )
        guard let state, state.hasAccess(at: at) || state.billingFailedAt != nil && state.endedAt == nil else {
            // A resubscription keeps the group's original transaction (StoreKit's originalID).
            purchase.reference = state?.originalTransactionID
            let plan = billingPlan ?? .billedUpfront
            if let offer {
                sell(&purchase, on: offer.terms, at: at)
                (purchase.offerType, purchase.offerID) = (offer.type, offer.id)
            } else if let offer = terms.introductoryOffer(for: plan),
                introductoryOffer ?? !(state?.introOfferUsed ?? false)
            {
                sell(&purchase, on: offer, at: at)
            } else {
                purchase.expiresDate = end(from: at, period: terms.period, count: 1)
            }
            // An offer of the monthly plan comes first; the commitment's twelve months start when
            // it ends (the line says the plan it is on, and the fold waits for the renewal).
            if plan == .monthly, purchase.offer != nil {
                purchase.billingPlan = .monthly
            } else {
                commit(&purchase)
            }
            return [purchase]
        }
        let current = self.product(state.productID)
        // A line that stands for the purchase carries its transaction id, so that recovery after a
        // crash finds it on the receipt whatever kind of line it is.
        func purchaseLine(_ event: ReceiptEvent) -> ReceiptEntry {
            var entry = line(event, state, productID: product.id, group: terms.group, at: at, context: context)
            entry.transactionID = transactionID
            entry.meaning = .byPurchase
            if event == .change, let offer { (entry.offerType, entry.offerID) = (offer.type, offer.id) }
            if event == .change { entry.billingPlan = billingPlan }
            return entry
        }
        if state.productID == product.id, state.billingFailedAt == nil {
            // M4: another billing plan for the plan one has starts at the next renewal, or when
            // the commitment ends.
            if let billingPlan, billingPlan != state.renewingBillingPlan {
                var change = purchaseLine(.change)
                // Back to the plan's own billing: the change clears the one waiting.
                if billingPlan == state.billingPlan { change.billingPlan = nil }
                return [change]
            }
            // Buying the plan one has: turns auto-renew back on, or cancels a pending downgrade.
            // (In billing retry it is a new payment: the plan starts again below.) With an offer,
            // the offer waits for the next renewal.
            if state.nextProductID != nil || offer != nil { return [purchaseLine(.change)] }
            return state.willRenew ? [] : [purchaseLine(.renewOn)]
        }
        let currentRank = current?.autoRenew?.rank ?? Int.max
        // A commitment is kept to its end: a downgrade or crossgrade starts when it ends. An
        // upgrade is immediate and ends the commitment (Apple's lifecycle of monthly plans).
        if state.commitment?.hasMonthsLeft == true, state.billingFailedAt == nil, terms.rank >= currentRank {
            return [purchaseLine(.change)]
        }
        let samePeriod = current?.autoRenew?.period.approximateDays == terms.period.approximateDays
        let now = terms.rank < currentRank || (terms.rank == currentRank && samePeriod) || state.billingFailedAt != nil
        guard now else { return [purchaseLine(.change)] }
        var lines: [ReceiptEntry] = []
        let total = state.expiresDate.timeIntervalSince(state.periodStart)
        let left = state.expiresDate.timeIntervalSince(at)
        if state.periodPrice > 0, total > 0, left > 0, state.billingFailedAt == nil {
            var credit = line(.credit, state, productID: state.productID, group: terms.group, at: at, context: context)
            credit.reference = state.transactionID
            credit.price = -Self.cents(state.periodPrice * Decimal(left / total))
            credit.note = "prorated refund for the rest of the period"
            lines.append(credit)
        }
        purchase.reference = state.originalTransactionID
        purchase.expiresDate = end(from: at, period: terms.period, count: 1)
        if let offer {
            sell(&purchase, on: offer.terms, at: at)
            (purchase.offerType, purchase.offerID) = (offer.type, offer.id)
        }
        commit(&purchase)
        lines.append(purchase)
        return lines
    }

    static func cents(_ value: Decimal) -> Decimal {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 2, .plain)
        return rounded
    }
}

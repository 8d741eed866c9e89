// Auto-renewable subscriptions (issue 5): the state of one account's plan in one subscription
// group, as a fold over the receipt lines that change it, and the rules that write those lines as
// the clock passes period ends (renewals, billing failures, the sandbox's renewal limit) and as
// people act (subscribe, upgrade, cancel, refund, expire, force a renewal).
//
// The fold is the only way state changes: the server applies each line it records to the stored
// state, and `PlanState.replay` applies the whole receipt to nothing. Their agreeing is A6 for
// these plans, and it fails the moment a rule changes state without writing a line.
import Foundation

public struct PlanState: Sendable, Equatable, Codable {
    /// The `endReason` of a plan a refund ended.
    public static let refunded = PlanEnd.refunded.words

    public var group: String
    public var productID: String
    /// The line that pays for the current period.
    public var transactionID: String
    /// The purchase that started the plan; kept through renewals and upgrades.
    public var originalTransactionID: String
    public var periodStart: Date
    public var expiresDate: Date
    /// What the current period cost (0 in a free trial), for prorating an upgrade.
    public var periodPrice: Decimal
    /// Period ends are counted from here so that month ends clamp and come back (31 Jan → 28 Feb
    /// → 31 Mar) instead of drifting to the 28th.
    public var anchor: Date
    public var periodsSinceAnchor: Int
    /// The introductory offer the current period is on, and how many offer periods follow it.
    public var offer: IntroductoryOffer.Mode?
    public var offerPeriodsLeft: Int
    /// Which offer the current period is on (nil with an `offer`: the introductory one).
    public var offerType: OfferType? = nil
    public var offerID: String? = nil
    /// An offer bought while subscribed, that the next renewal starts (O2).
    public var pendingOffer: OfferRedemption? = nil
    /// O6: a price increase told to the subscriber, until the renewal it applies to; and the
    /// time of the last price change told (so that it is told once).
    public var priceIncrease: PendingPriceIncrease? = nil
    public var priceChangeSeen: Date? = nil
    public var autoRenew: Bool
    /// A downgrade waiting for the next renewal.
    public var nextProductID: String?
    /// Renewals since the plan started (the sandbox stops at 12).
    public var renewals: Int
    /// When a renewal could not be charged; nil while billing works.
    public var billingFailedAt: Date?
    /// Access continues until here after a billing failure (billing grace period).
    public var graceUntil: Date?
    /// An introductory offer has been used in this group by this account.
    public var introOfferUsed: Bool
    /// Ended before its period ran out (refund, expire, billing retry gave up), and why.
    public var endedAt: Date?
    public var endReason: String?
    /// A monthly plan with a 12-month commitment: where the current period stands in it. Within a
    /// commitment every period renews (`autoRenew` stays on, as Apple's renewal info says of the
    /// next billing period); cancelling stops the commitment from renewing when it ends.
    public var commitment: PlanCommitment? = nil

    /// Auto-renew as the subscriber set it: for a commitment, whether it renews when it ends.
    public var willRenew: Bool { commitment?.renews ?? autoRenew }

    /// Has access at `now`: in a paid or offer period, or in a billing grace period.
    public func hasAccess(at now: Date) -> Bool {
        guard endedAt == nil else { return false }
        if now < expiresDate, billingFailedAt == nil { return true }
        if billingFailedAt != nil, let graceUntil { return now < graceUntil }
        return false
    }

    public func phase(at now: Date) -> PlanPhase {
        if endedAt != nil { return .expired }
        if billingFailedAt != nil { return hasAccess(at: now) ? .gracePeriod : .billingRetry }
        guard now < expiresDate else { return .expired }
        if offer == .freeTrial { return autoRenew ? .trial : .trialCancelled }
        if offer != nil { return autoRenew ? .introductoryOffer : .cancelled }
        return autoRenew ? .active : .cancelled
    }

    /// The state after one more receipt line. Lines of other groups and accounts are the caller's
    /// to filter out.
    public static func apply(_ state: PlanState?, _ line: ReceiptEntry) -> PlanState? {
        if line.event == .purchase { return started(by: line, previous: state) }
        guard var state else { return nil }
        state.apply(line)
        return state
    }

    /// The plan a purchase line starts (a new plan, or an upgrade that replaces the old one).
    static func started(by line: ReceiptEntry, previous: PlanState?) -> PlanState {
        let at = line.purchaseDate
        var state = PlanState(
            group: line.group ?? "", productID: line.productID, transactionID: line.transactionID,
            originalTransactionID: line.reference ?? line.transactionID, periodStart: at,
            expiresDate: line.expiresDate ?? at, periodPrice: line.price ?? 0, anchor: at, periodsSinceAnchor: 1,
            offer: line.offer, offerPeriodsLeft: line.offer == nil ? 0 : max(line.quantity - 1, 0),
            offerType: line.offer == nil ? nil : line.offerType, offerID: line.offer == nil ? nil : line.offerID, autoRenew: true,
            nextProductID: nil, renewals: 0, billingFailedAt: nil, graceUntil: nil,
            introOfferUsed: (previous?.introOfferUsed ?? false) || line.soldOn == .introductory, endedAt: nil, endReason: nil
        )
        // A new plan pays the price of its day: a change told before it is not told again.
        state.priceChangeSeen = previous?.priceChangeSeen
        state.commitment = line.commitment.map { PlanCommitment(period: $0.number, ends: $0.ends, price: line.price ?? 0, renews: true) }
        return state
    }

    /// One line that is not a purchase, applied in place.
    mutating func apply(_ line: ReceiptEntry) {
        let at = line.purchaseDate
        switch line.event {
        case .purchase:
            self = Self.started(by: line, previous: self)
        case .credit:
            break
        case .renewal:
            if continues(at: at, productID: line.productID, offer: line.offer, type: line.offerType, id: line.offerID, monthly: line.commitment != nil) {
                periodsSinceAnchor += 1
            } else {
                anchor = at
                periodsSinceAnchor = 1
            }
            // Most renewals are at full price after full price: the offer fields are touched only
            // when a side has an offer (the fold runs over a million lines in A6's check).
            if line.offer != nil || offer != nil {
                let startsOffer = line.offer != nil && (line.offerType != offerType || line.offerID != offerID || offer == nil)
                offerPeriodsLeft = line.offer == nil ? 0 : startsOffer ? max(line.quantity - 1, 0) : max(offerPeriodsLeft - 1, 0)
                offer = line.offer
                offerType = line.offer == nil ? nil : line.offerType
                offerID = line.offer == nil ? nil : line.offerID
            } else {
                offerPeriodsLeft = 0
            }
            if pendingOffer != nil { pendingOffer = nil }
            if priceIncrease != nil { priceIncrease = nil }
            if productID != line.productID { productID = line.productID }
            transactionID = line.transactionID
            periodStart = at
            expiresDate = line.expiresDate ?? at
            periodPrice = line.price ?? 0
            renewals += 1
            billingFailedAt = nil
            graceUntil = nil
            if nextProductID == line.productID { nextProductID = nil }
            if let period = line.commitment {
                // A new commitment renews until cancelled; the last period of one that will not
                // renew is the last period.
                let renews = period.number == 1 || (commitment?.renews ?? true)
                commitment = PlanCommitment(period: period.number, ends: period.ends, price: line.price ?? 0, renews: renews)
                if period.number >= BillingPlan.commitmentPeriods, !renews { autoRenew = false }
            } else if commitment != nil {
                commitment = nil
            }
        case .cancel:
            // Within a commitment the periods still come; the commitment does not renew.
            if let current = commitment, current.period < BillingPlan.commitmentPeriods {
                commitment?.renews = false
            } else {
                autoRenew = false
                commitment?.renews = false
            }
        case .renewOn:
            autoRenew = true
            commitment?.renews = true
        case .refund:
            if line.reference == transactionID {
                endedAt = at
                endReason = Self.refunded
                autoRenew = false
            }
        case .expire:
            endedAt = at
            endReason = line.planEnd?.words
            autoRenew = false
        case .billingFailure:
            billingFailedAt = at
            graceUntil = line.until
        case .billingRecovered:
            billingFailedAt = nil
            graceUntil = nil
        case .change:
            nextProductID = line.productID == productID ? nil : line.productID
            pendingOffer = line.offerType.map { OfferRedemption(type: $0, id: line.offerID ?? "") }
            autoRenew = true
            commitment?.renews = true
        case .extend:
            expiresDate = line.expiresDate ?? expiresDate
            anchor = expiresDate
            periodsSinceAnchor = 0
        case .priceIncrease:
            let consent = line.meaning == .consentRequired
            priceIncrease = PendingPriceIncrease(price: line.price ?? 0, consentRequired: consent, answer: consent ? nil : true)
            priceChangeSeen = line.until
        case .priceConsent:
            priceIncrease?.answer = line.meaning != .declined
        case .refundReversed:
            // O7: the refund of the current period taken back: the plan runs again.
            if line.reference == transactionID, endReason == Self.refunded {
                endedAt = nil
                endReason = nil
                autoRenew = true
            }
        case .refundRequest, .refundDeclined, .consumptionInfo, .familyShare, .familyRevoke:
            break
        }
    }

    /// The current period began before `change` (a period begun at the same moment, as on a
    /// frozen clock, did unless it already pays the new price).
    func began(before change: PriceChange) -> Bool {
        periodStart < change.at || periodStart == change.at && periodPrice != change.price
    }

    /// A renewal at `at` continues the current run of equal periods: it starts where the last
    /// period ended, on the same product and the same side of the introductory offer.
    func continues(
        at: Date, productID: String, offer: IntroductoryOffer.Mode?, type: OfferType? = nil, id: String? = nil, monthly: Bool = false
    ) -> Bool {
        // A commitment's months and a year paid up front are runs of their own.
        guard at == expiresDate, productID == self.productID, monthly == (commitment != nil) else { return false }
        // The same offer, or none: a new offer's periods are counted from its own start.
        return offer == nil ? self.offer == nil : (offer == self.offer && type == offerType && id == offerID)
    }

    /// A6 for auto-renewable plans: every group's state from the receipt alone, lines in the order
    /// they were recorded.
    public static func replay(_ lines: [ReceiptEntry]) -> [String: PlanState] {
        var plans: [String: PlanState] = [:]
        // Lines of one group come in runs: the state of the run's group is kept in a local and
        // mutated in place, and goes back to the dictionary when the group changes.
        var group: String?
        var current: PlanState?
        // By index rather than `for line in lines`, which copies every line (seven strings) out of the array.
        for index in lines.indices where lines[index].kind == .autoRenewableSubscription {
            let lineGroup = lines[index].group ?? ""
            if lineGroup != group {
                if let group { plans[group] = current }
                group = lineGroup
                current = plans[lineGroup]
            }
            if lines[index].event == .purchase {
                current = started(by: lines[index], previous: current)
            } else {
                current?.apply(lines[index])
            }
        }
        if let group { plans[group] = current }
        return plans
    }
}

/// A monthly plan's place in its 12-month commitment, its monthly price (fixed for the
/// commitment), and whether the commitment renews when it ends.
public struct PlanCommitment: Sendable, Equatable, Codable {
    public var period: Int
    public var ends: Date
    public var price: Decimal
    public var renews: Bool
}

public enum PlanPhase: String, Sendable, Codable {
    case trial
    /// In a free trial with auto-renew off: access to the trial's end, then nothing.
    case trialCancelled = "trial-cancelled"
    case introductoryOffer = "introductory-offer"
    case active
    /// Auto-renew off: access continues to the period's end.
    case cancelled
    case gracePeriod = "grace-period"
    case billingRetry = "billing-retry"
    case expired
}

/// The rules that write plan lines. Pure: it reads the state and the time it is given and returns
/// the lines to record, in order; nothing is stored here.
public struct AutoRenewal {
    public var calendar: Calendar
    /// Store seconds per real second when the clock is accelerated: periods then last as long as
    /// the App Store sandbox makes them (1 month = 5 real minutes) and a plan renews 12 times.
    public var sandboxRate: Double?
    public var billing: BillingSetting
    public var product: (String) -> Product?
    /// O6: the latest price change of each product (`product` already answers at its price).
    public var priceChanges: [String: PriceChange] = [:]
    /// Billing retry gives up this long after the failed renewal (the App Store tries for 60 days).
    public static let retryDays = 60
    public static let sandboxRenewalLimit = 12

    public init(calendar: Calendar, sandboxRate: Double?, billing: BillingSetting, product: @escaping (String) -> Product?) {
        self.calendar = calendar
        self.sandboxRate = sandboxRate
        self.billing = billing
        self.product = product
    }

    /// `from` + `count` periods: calendar arithmetic, or sandbox minutes on an accelerated clock.
    public func end(from start: Date, period: SubscriptionPeriod, count: Int) -> Date {
        if let sandboxRate {
            return start.addingTimeInterval((Double(period.sandboxSeconds * count) * sandboxRate).rounded()).wholeSeconds
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
    private func line(
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
        // O6: a price increase of the plan's product is told at the time it was made, between the
        // periods before it and those after.
        guard let change = priceChanges[initial.productID], change.isIncrease, change.at <= now, initial.endedAt == nil,
              (initial.priceChangeSeen ?? .distantPast) < change.at, initial.began(before: change)
        else { return advancePeriods(initial, to: now, context: context) }
        var lines = advancePeriods(initial, to: change.at, context: context)
        var state = lines.reduce(initial) { PlanState.apply($0, $1) ?? $0 }
        if state.endedAt == nil, state.productID == change.productID, state.began(before: change) {
            var told = line(.priceIncrease, state, productID: state.productID, group: state.group, at: change.at, context: context)
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
                let giveUp = days(Self.retryDays, after: failedAt)
                if giveUp <= now {
                    var expiry = line(.expire, state, productID: state.productID, group: state.group, at: giveUp, context: context)
                    expiry.meaning = .ended(.billingRetryGaveUp(days: Self.retryDays))
                    add(expiry)
                    continue
                }
                guard !billing.failing, state.autoRenew else { break }
                // Recovered within the grace period: no days lost, the period runs from the old date.
                let start = state.graceUntil.map { now < $0 } ?? false ? state.expiresDate : now
                add(line(.billingRecovered, state, productID: state.productID, group: state.group, at: now, context: context))
                add(renewal(state, at: start, context: context))
                continue
            }
            guard state.autoRenew, state.expiresDate <= now else { break }
            let at = state.expiresDate
            if sandboxRate != nil, state.renewals >= Self.sandboxRenewalLimit {
                var expiry = line(.expire, state, productID: state.productID, group: state.group, at: at, context: context)
                expiry.meaning = .ended(.sandboxRenewalLimit(renewals: Self.sandboxRenewalLimit))
                add(expiry)
                continue
            }
            if billing.failing {
                var failure = line(.billingFailure, state, productID: state.productID, group: state.group, at: at, context: context)
                failure.until = billing.graceDays.map { days($0, after: at) }
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
        let committed = state.commitment.map { $0.period < BillingPlan.commitmentPeriods } ?? false
        if committed, let commitment = state.commitment {
            var renewal = line(.renewal, state, productID: state.productID, group: state.group, at: at, context: context)
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
           let offer = terms.terms(of: state.offerType, id: state.offerID) {
            renewal.offer = .payAsYouGo
            (renewal.offerType, renewal.offerID) = (state.offerType, state.offerID)
            renewal.price = offer.price
            renewal.expiresDate = state.continues(at: at, productID: productID, offer: .payAsYouGo, type: state.offerType, id: state.offerID)
                ? end(from: state.anchor, period: offer.period, count: state.periodsSinceAnchor + 1)
                : end(from: at, period: offer.period, count: 1)
            return renewal
        }
        // A commitment that renews starts another at the product's monthly price.
        if state.commitment != nil, productID == state.productID, let monthly = terms.monthlyCommitmentPrice {
            renewal.price = monthly
            renewal.commitment = CommitmentPeriod(number: 1, ends: end(from: at, period: BillingPlan.commitmentPeriod, count: BillingPlan.commitmentPeriods))
            renewal.expiresDate = monthEnd(state, at: at)
            return renewal
        }
        renewal.price = product.price
        renewal.expiresDate = state.continues(at: at, productID: productID, offer: nil)
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
    /// it from the next renewal, as the App Store does.
    public func subscribe(
        _ product: Product, state: PlanState?, at: Date, transactionID: String, context: LineContext,
        offer: SubscriptionOffer? = nil, billingPlan: BillingPlan? = nil
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
                number: 1, ends: end(from: at, period: BillingPlan.commitmentPeriod, count: BillingPlan.commitmentPeriods)
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
            if let offer {
                sell(&purchase, on: offer.terms, at: at)
                (purchase.offerType, purchase.offerID) = (offer.type, offer.id)
            } else if let offer = terms.introductoryOffer, !(state?.introOfferUsed ?? false) {
                sell(&purchase, on: offer, at: at)
            } else {
                purchase.expiresDate = end(from: at, period: terms.period, count: 1)
            }
            commit(&purchase)
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
            return entry
        }
        if state.productID == product.id, state.billingFailedAt == nil {
            // Buying the plan one has: turns auto-renew back on, or cancels a pending downgrade.
            // (In billing retry it is a new payment: the plan starts again below.) With an offer,
            // the offer waits for the next renewal.
            if state.nextProductID != nil || offer != nil { return [purchaseLine(.change)] }
            return state.willRenew ? [] : [purchaseLine(.renewOn)]
        }
        // A commitment is kept to its end: another plan starts when it ends.
        if let commitment = state.commitment, commitment.period < BillingPlan.commitmentPeriods, state.billingFailedAt == nil {
            return [purchaseLine(.change)]
        }
        let currentRank = current?.autoRenew?.rank ?? Int.max
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

    /// Every plan that has access or is in billing retry can be acted on; an ended one cannot.
    public enum Refusal: Error, Equatable, Codable, Sendable {
        case noPlan
        case expired
        case alreadyCancelled
        case alreadyRenewing
        case notAPlanPeriod
        case alreadyRefunded
        case noPriceIncrease
    }

    private func live(_ state: PlanState?, at: Date) throws(Refusal) -> PlanState {
        guard let state else { throw .noPlan }
        guard state.hasAccess(at: at) || (state.endedAt == nil && state.billingFailedAt != nil) else { throw .expired }
        return state
    }

    /// Auto-renew off: access continues to the period's end. In billing retry, the plan ends now.
    public func cancel(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        let state = try live(state, at: at)
        guard state.willRenew else { throw .alreadyCancelled }
        var lines = [line(.cancel, state, productID: state.productID, group: state.group, at: at, context: context)]
        if state.billingFailedAt != nil {
            var expiry = line(.expire, state, productID: state.productID, group: state.group, at: at, context: context)
            expiry.meaning = .ended(.cancelledDuringBillingRetry)
            lines.append(expiry)
        }
        return lines
    }

    public func renewOn(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        let state = try live(state, at: at)
        guard !state.willRenew else { throw .alreadyRenewing }
        return [line(.renewOn, state, productID: state.productID, group: state.group, at: at, context: context)]
    }

    public func expire(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        let state = try live(state, at: at)
        var expiry = line(.expire, state, productID: state.productID, group: state.group, at: at, context: context)
        expiry.meaning = .ended(.byHand)
        return [expiry]
    }

    /// Renews now, whatever is left of the period (Xcode's "renew subscription now"); in billing
    /// retry or grace, the charge succeeds. A new run of periods starts now.
    public func forceRenew(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        var state = try live(state, at: at)
        var lines: [ReceiptEntry] = []
        if state.billingFailedAt != nil {
            let recovered = line(.billingRecovered, state, productID: state.productID, group: state.group, at: at, context: context)
            lines.append(recovered)
            state = PlanState.apply(state, recovered) ?? state
        }
        lines.append(renewal(state, at: at, context: context))
        return lines
    }

    /// Refunds one purchase or renewal line: if it pays for the current period, access ends now.
    public func refund(
        _ refunded: ReceiptEntry, state: PlanState?, receipt: [ReceiptEntry], at: Date, context: LineContext
    ) throws(Refusal) -> [ReceiptEntry] {
        guard refunded.event == .purchase || refunded.event == .renewal else { throw .notAPlanPeriod }
        if ReceiptEntry.revoked(in: receipt).contains(refunded.transactionID) { throw .alreadyRefunded }
        var refund = line(.refund, state, productID: refunded.productID, group: refunded.group ?? "", at: at, context: context)
        refund.reference = refunded.transactionID
        refund.price = refunded.price.map { -$0 }
        return [refund]
    }
}

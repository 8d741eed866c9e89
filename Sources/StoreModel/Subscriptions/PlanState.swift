// The state of one account's auto-renewable plan in one subscription group, as a fold
// over the receipt lines that change it; AutoRenewal.swift writes those lines.
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
    /// M4: a change of billing plan waiting for the next renewal (or the commitment's end).
    public var nextBillingPlan: BillingPlan? = nil

    /// The billing plan of the current period.
    public var billingPlan: BillingPlan { commitment != nil ? .monthly : .billedUpfront }
    /// The billing plan the plan's own product renews on: the one a change chose, else its own (a
    /// commitment renews into another, and a plan billed up front stays so).
    public var renewingBillingPlan: BillingPlan { nextBillingPlan ?? billingPlan }
    /// The billing plan whose price the plan renews at when the current period (or commitment)
    /// ends: an offer bought for that renewal is billed up front, and so is what follows it; a
    /// commitment renews into another only on its own product.
    public var renewalBillingPlan: BillingPlan {
        if pendingOffer != nil { return .billedUpfront }
        if let nextBillingPlan { return nextBillingPlan }
        return commitment != nil && (nextProductID ?? productID) == productID ? .monthly : .billedUpfront
    }
    /// The price a change must be of for the plan to hear of it: its product's, on the billing plan
    /// it renews at.
    public var renewalPriceKey: PriceChange.Key { .init(productID: productID, plan: renewalBillingPlan) }
    /// The billing plan the current offer is configured on: the monthly plan's, when a
    /// commitment waits for the offer's end.
    public var offerBillingPlan: BillingPlan {
        offer != nil && commitment == nil && nextBillingPlan == .monthly ? .monthly : .billedUpfront
    }

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
            offerType: line.offer == nil ? nil : line.offerType, offerID: line.offer == nil ? nil : line.offerID,
            autoRenew: true,
            nextProductID: nil, renewals: 0, billingFailedAt: nil, graceUntil: nil,
            introOfferUsed: (previous?.introOfferUsed ?? false) || line.soldOn == .introductory, endedAt: nil,
            endReason: nil
        )
        // A new plan pays the price of its day: a change told before it is not told again.
        state.priceChangeSeen = previous?.priceChangeSeen
        state.commitment = line.commitment.map {
            PlanCommitment(period: $0.number, ends: $0.ends, price: line.price ?? 0, renews: true)
        }
        // An offer of the monthly plan: the commitment starts when it ends.
        if line.commitment == nil, line.billingPlan == .monthly { state.nextBillingPlan = .monthly }
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
            if continues(
                at: at, productID: line.productID, offer: line.offer, type: line.offerType, id: line.offerID,
                monthly: line.commitment != nil)
            {
                periodsSinceAnchor += 1
            } else {
                anchor = at
                periodsSinceAnchor = 1
            }
            // Most renewals are at full price after full price: the offer fields are touched only
            // when a side has an offer (the fold runs over a million lines in A6's check).
            if line.offer != nil || offer != nil {
                let startsOffer =
                    line.offer != nil && (line.offerType != offerType || line.offerID != offerID || offer == nil)
                offerPeriodsLeft =
                    line.offer == nil ? 0 : startsOffer ? max(line.quantity - 1, 0) : max(offerPeriodsLeft - 1, 0)
                offer = line.offer
                offerType = line.offer == nil ? nil : line.offerType
                offerID = line.offer == nil ? nil : line.offerID
            } else {
                offerPeriodsLeft = 0
            }
            // An offer bought in a commitment waits for its end, as a change of plan does; a month
            // within it is not the renewal the offer is for.
            if pendingOffer != nil, (line.commitment?.number ?? 1) == 1 { pendingOffer = nil }
            if nextBillingPlan != nil, (line.commitment?.number ?? 1) == 1 { nextBillingPlan = nil }
            if priceIncrease != nil, (line.commitment?.number ?? 1) == 1 { priceIncrease = nil }
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
                commitment = PlanCommitment(
                    period: period.number, ends: period.ends, price: line.price ?? 0, renews: renews)
                if period.number >= BillingPlan.commitmentPeriods, !renews { autoRenew = false }
            } else if commitment != nil {
                commitment = nil
            }
        case .cancel:
            // Within a commitment the periods still come; the commitment does not renew.
            if commitment?.hasMonthsLeft == true {
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
            nextBillingPlan = line.billingPlan
            autoRenew = true
            commitment?.renews = true
        case .extend:
            expiresDate = line.expiresDate ?? expiresDate
            anchor = expiresDate
            periodsSinceAnchor = 0
        case .priceIncrease:
            let consent = line.meaning == .consentRequired
            priceIncrease = PendingPriceIncrease(
                price: line.price ?? 0, consentRequired: consent, answer: consent ? nil : true)
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
        at: Date, productID: String, offer: IntroductoryOffer.Mode?, type: OfferType? = nil, id: String? = nil,
        monthly: Bool = false
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

    /// The current period is not the commitment's last: another month of it comes whatever the
    /// customer set, and the plan cannot change until then.
    public var hasMonthsLeft: Bool { period < BillingPlan.commitmentPeriods }
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

// What a plan action is, and a plan as the screen and the command line show it.
import Foundation

/// What a person can do to a plan, besides buying and refunding.
public enum PlanAction: String, Sendable, Codable, CaseIterable {
    case cancel
    case renewOn = "renew-on"
    case expire
    case forceRenew = "force-renew"

    var verb: String {
        switch self {
        case .cancel: "cancel"
        case .renewOn: "turn auto-renew on for"
        case .expire: "expire"
        case .forceRenew: "renew"
        }
    }
}

/// What `storefront subscriptions` and the screen say about one plan: the plan as its lines fold
/// (every field of `PlanState` reads through, `status.expiresDate`), and what it means now.
@dynamicMemberLookup
public struct PlanStatus: Sendable, Equatable {
    public let state: PlanState
    public var title: String
    public var phase: PlanPhase
    public var hasAccess: Bool
    /// When it renews next, if it will.
    public var renewsAt: Date?
    /// O5: the organizer whose plan Family Sharing shares with this account; nil for its own.
    public var familySharedBy: String?
    /// The comics it unlocks now: none without access.
    public var unlocks: [String]

    public init(_ state: PlanState, catalog: Catalog, now: Date) {
        let product = catalog.product(state.productID)
        self.state = state
        title = product?.title ?? state.productID
        phase = state.phase(at: now)
        hasAccess = state.hasAccess(at: now)
        renewsAt =
            state.autoRenew && state.endedAt == nil && state.billingFailedAt == nil && now < state.expiresDate
            ? state.expiresDate : nil
        unlocks = hasAccess ? product?.autoRenew?.unlocks ?? [] : []
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<PlanState, Value>) -> Value { state[keyPath: keyPath] }

    /// Until when the plan gives access as things stand: its period's end, or the end of a
    /// billing grace period that runs longer.
    public var accessUntil: Date { max(state.expiresDate, state.graceUntil ?? state.expiresDate) }

    /// One line for the screen and the command line: "All Access (Monthly): free trial, renews 07/02/2026".
    public func summary(calendar: Calendar, catalog: Catalog) -> String {
        let day = { (date: Date) in SubscriptionMath.formatDay(date, calendar: calendar) }
        // A monthly commitment says where it stands, and whether it renews when it ends: first,
        // as a change or an offer waits for its end.
        var next = ""
        if let commitment = state.commitment, phase != .expired {
            let renews =
                commitment.renews && state.nextBillingPlan != .billedUpfront && state.priceIncrease?.renews != false
            let end = renews ? "renews" : "ends"
            next +=
                ", month \(commitment.period) of \(BillingPlan.commitmentPeriods) of a commitment that \(end) \(day(commitment.ends))"
            if commitment.renews, state.nextBillingPlan == .billedUpfront { next += ", then billed up front" }
        }
        if state.nextBillingPlan == .monthly { next += ", then monthly with a 12-month commitment" }
        if let nextProductID = state.nextProductID {
            next += " → \(catalog.product(nextProductID)?.title ?? nextProductID) at renewal"
        }
        if let pending = state.pendingOffer { next += ", then \(pending.type.name) \(pending.id)" }
        if let increase = state.priceIncrease, state.endedAt == nil {
            let price = PriceFormatter.plain(increase.price)
            // A commitment's months keep their price: the new one is the next commitment's.
            let (from, then) =
                state.commitment?.hasMonthsLeft == true
                ? (" from the commitment's end", "when the commitment ends") : ("", "then")
            let told: String =
                switch (increase.consentRequired, increase.answer) {
                case (false, _), (true, true?): " at the new price \(price)\(from)"
                case (true, nil): " — price rises to \(price)\(from): agree, or it ends \(then)"
                case (true, false?): " — price increase to \(price) declined: it ends \(then)"
                }
            next += told
        }
        switch phase {
        case .trial:
            let name = state.offerType.map { " (\($0.name) \(state.offerID ?? ""))" } ?? ""
            return "\(title): free trial\(name), renews \(day(state.expiresDate))\(next)"
        case .introductoryOffer:
            let name = state.offerType.map { "\($0.name) \(state.offerID ?? "")" } ?? "introductory offer"
            return "\(title): \(name), renews \(day(state.expiresDate))\(next)"
        case .active: return "\(title): renews \(day(state.expiresDate))\(next)"
        case .trialCancelled: return "\(title): free trial, cancelled, ends \(day(state.expiresDate))"
        case .cancelled: return "\(title): cancelled, ends \(day(state.expiresDate))"
        case .gracePeriod:
            return "\(title): billing problem, grace period until \(day(state.graceUntil ?? state.expiresDate))"
        case .billingRetry:
            return "\(title): billing retry since \(day(state.billingFailedAt ?? state.expiresDate)), no access"
        case .expired:
            return "\(title): expired \(day(state.endedAt ?? state.expiresDate))"
                + (state.endReason.map { " (\($0))" } ?? "")
        }
    }
}

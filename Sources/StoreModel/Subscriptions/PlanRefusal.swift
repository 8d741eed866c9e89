// Why a plan could not be changed, as data: the store throws it, the command line, the
// screen and the account server's wire carry it, and `description` words it once.
import Foundation

public enum PlanRefusal: Codable, Equatable, Sendable, CustomStringConvertible {
    /// `price set` on a product that is not an auto-renewable subscription.
    case priceOfNonPlan(productID: String, kind: ProductKind)
    case negativePrice
    /// A plan action on a product that is not an auto-renewable subscription.
    case notAPlan(productID: String)
    /// A refund of the current period of a group that has no plan.
    case noPlanToRefund(productID: String)
    /// The plan was written and is not there to report.
    case noPlan
    /// The plan's rules refused what was tried.
    case ruleRefused(AutoRenewal.Refusal, attempt: PlanAttempt)
    /// Accepting a retention message that offers neither a plan nor a promotional offer.
    case nothingToAccept
    /// `buy --billing monthly` of a product that has no monthly plan with a 12-month commitment.
    case noMonthlyCommitment(productID: String)
    /// `buy --billing monthly` in a storefront where Apple does not sell the 12-month commitment.
    case monthlyNotSoldIn(productID: String, storefront: String)
    /// An offer used with a billing plan it is not configured on.
    case offerOnAnotherPlan(offerID: String, plan: BillingPlan)
    /// A plan whose up-front billing plan the catalog disabled, bought without `--billing monthly`.
    case notSoldUpfront(productID: String)

    public var description: String {
        switch self {
        case .priceOfNonPlan(let id, let kind):
            "only an auto-renewable subscription's price can change here; \"\(id)\" is a \(kind.rawValue)"
        case .negativePrice: "a price cannot be negative"
        case .monthlyNotSoldIn(let id, let storefront):
            "the App Store does not sell \(id)'s monthly plan with a 12-month commitment in storefront \(storefront) (nor in \(Storefronts.withoutMonthlyCommitment.subtracting([storefront]).sorted().joined(separator: ", "))): buy it billed up front"
        case .notAPlan(let id): "\"\(id)\" is not an auto-renewable subscription"
        case .noPlanToRefund(let id): "no plan in the group of \(id) to refund"
        case .noPlan: "no plan"
        case .nothingToAccept: "nothing to accept: the retention message offers no plan and no promotional offer"
        case .noMonthlyCommitment(let id):
            "\"\(id)\" has no monthly billing plan with a 12-month commitment (a one-year plan gives one with \"monthlyCommitmentPrice\" in the catalog)"
        case .offerOnAnotherPlan(let id, let plan):
            "the offer \"\(id)\" is configured on the \(plan.words) billing plan: buy with --billing \(plan == .monthly ? "monthly" : "upfront")"
        case .notSoldUpfront(let id):
            "\"\(id)\" is not sold billed up front (its catalog disables that billing plan): buy with --billing monthly"
        case .ruleRefused(let refusal, let attempt): "cannot \(attempt.verb) \(attempt.subject): \(Self.why(refusal))"
        }
    }

    static func why(_ refusal: AutoRenewal.Refusal) -> String {
        switch refusal {
        case .noPlan: "there is no plan in that group yet (subscribe with `storefront buy PRODUCT`)"
        case .expired: "it has expired (subscribe again with `storefront buy PRODUCT`)"
        case .alreadyCancelled: "auto-renew is already off (`storefront renew-on PRODUCT` turns it back on)"
        case .alreadyRenewing: "auto-renew is already on"
        case .notAPlanPeriod: "only a purchase or a renewal can be refunded"
        case .alreadyRefunded: "it was refunded already"
        case .noPriceIncrease:
            "no price increase waits for consent (`storefront price set PRODUCT PRICE --consent-required` makes one)"
        }
    }
}

/// What was tried on a plan when its rules refused it.
public enum PlanAttempt: Codable, Equatable, Sendable {
    case settle
    case subscribe
    case refund(transactionID: String)
    case perform(PlanAction, group: String)
    case answerPriceIncrease(agree: Bool, group: String)

    var verb: String {
        switch self {
        case .settle: "settle"
        case .subscribe: "subscribe"
        case .refund: "refund"
        case .perform(let action, _): action.verb
        case .answerPriceIncrease(let agree, _):
            agree ? "agree to the price increase of" : "decline the price increase of"
        }
    }

    var subject: String {
        switch self {
        case .settle, .subscribe: "the plan"
        case .refund(let id): id
        case .perform(_, let group), .answerPriceIncrease(_, let group): "the \(group) plan"
        }
    }
}

// Auto-renewable plans and their terms as `--json` writes them: `subscriptions`, `status`,
// `cancel`, the plan actions, `products`.
import Foundation
import StoreCore
import StoreModel

/// A plan of the signed-in account (`PlanStatus`), with its signed forms where a command has them.
struct PlanOutput: Encodable {
    struct Commitment: Encodable {
        var period, periods: Int
        var ends: String?
        var monthlyPrice: String
        var renews: Bool
    }

    struct PriceIncrease: Encodable {
        var price: String
        var consentRequired: Bool
        /// agreed, declined, or nil while unanswered.
        var answer: String?
    }

    var group, product, title, phase: String
    var hasAccess, autoRenew: Bool
    var expires, renewsAt, graceUntil, billingFailedAt, nextProduct: String?
    var renewals: Int
    var offer: String?
    var offerType: Int?
    var offerIdentifier, pendingOffer: String?
    var introOfferUsed: Bool
    var unlocks: [String]
    var transaction, originalTransaction: String
    var endedAt, endReason: String?
    var commitment: Commitment?
    var nextBillingPlan: String?
    var priceIncrease: PriceIncrease?
    /// S2: its renewal info and its latest transaction, signed (`subscriptions`).
    var signedRenewalInfo: Omitted<String>
    var signedTransaction: Omitted<String?>

    init(_ plan: PlanStatus, _ context: Context, signedRenewalInfo: String? = nil, signedTransaction: String?? = nil) {
        group = plan.group
        product = plan.productID
        title = plan.title
        phase = plan.phase.rawValue
        hasAccess = plan.hasAccess
        autoRenew = plan.autoRenew
        expires = context.dateText(plan.expiresDate)
        renewsAt = context.dateText(plan.renewsAt)
        graceUntil = context.dateText(plan.graceUntil)
        billingFailedAt = context.dateText(plan.billingFailedAt)
        nextProduct = plan.nextProductID
        renewals = plan.renewals
        offer = plan.offer?.rawValue
        offerType = plan.offer == nil ? nil : (plan.offerType ?? .introductory).rawValue
        offerIdentifier = plan.offerID
        pendingOffer = plan.pendingOffer?.id
        introOfferUsed = plan.introOfferUsed
        unlocks = plan.unlocks
        transaction = plan.transactionID
        originalTransaction = plan.originalTransactionID
        endedAt = context.dateText(plan.endedAt)
        endReason = plan.endReason
        commitment = plan.commitment.map {
            Commitment(
                period: $0.period, periods: BillingPlan.commitmentPeriods, ends: context.dateText($0.ends),
                monthlyPrice: PriceFormatter.plain($0.price), renews: $0.renews)
        }
        nextBillingPlan = plan.nextBillingPlan?.rawValue
        priceIncrease = plan.priceIncrease.map {
            PriceIncrease(
                price: PriceFormatter.plain($0.price), consentRequired: $0.consentRequired,
                answer: $0.answer.map { $0 ? "agreed" : "declined" })
        }
        self.signedRenewalInfo = Omitted(signedRenewalInfo)
        self.signedTransaction = Omitted(signedTransaction)
    }
}

/// An auto-renewable product's terms, written among the product's own fields (`products`).
struct PlanTermsOutput: Encodable {
    struct IntroOffer: Encodable {
        var mode, period: String
        var periods: Int
        var price: String
    }

    /// M4: a billing plan the product is sold on, as Apple requires it shown before purchase: what
    /// is billed and how often, what the commitment comes to and for how long, and that plan's
    /// offers (its introductory offer first).
    struct PricingTerms: Encodable {
        var billingPlanType, billingPrice, billingPeriod, commitmentPrice, commitmentPeriod: String
        var offers: [OfferOutput]
    }

    var period, group: String
    var rank: Int
    var unlocks: [String]
    var introOffer: IntroOffer?
    var monthlyCommitmentPrice: String?
    /// O2–O4: the offers a purchase can name (`buy --offer`, `offer-codes create`, `buy --win-back`).
    var offers: [OfferOutput]
    var pricingTerms: [PricingTerms]

    init(_ terms: AutoRenewTerms, price: Decimal) {
        period = terms.period.description
        group = terms.group
        rank = terms.rank
        unlocks = terms.unlocks
        introOffer = terms.introductoryOffer.map {
            IntroOffer(
                mode: $0.mode.rawValue, period: $0.period.description, periods: $0.periods,
                price: PriceFormatter.plain($0.price))
        }
        monthlyCommitmentPrice = terms.monthlyCommitmentPrice.map { PriceFormatter.plain($0) }
        offers = terms.offers.map(OfferOutput.init)
        func plan(_ type: BillingPlan, billing: Decimal, period: SubscriptionPeriod, commitment: Decimal)
            -> PricingTerms
        {
            let intro = terms.introductoryOffer(for: type).map {
                SubscriptionOffer(id: "", type: .introductory, terms: $0, billingPlan: type)
            }
            let offers = (intro.map { [$0] } ?? []) + terms.offers.filter { $0.billingPlan == type }
            return PricingTerms(
                billingPlanType: type.rawValue, billingPrice: PriceFormatter.plain(billing),
                billingPeriod: period.description, commitmentPrice: PriceFormatter.plain(commitment),
                commitmentPeriod: terms.period.description, offers: offers.map(OfferOutput.init))
        }
        pricingTerms = []
        if terms.soldUpfront {
            pricingTerms.append(plan(.billedUpfront, billing: price, period: terms.period, commitment: price))
        }
        if let monthly = terms.monthlyCommitmentPrice {
            pricingTerms.append(
                plan(
                    .monthly, billing: monthly, period: BillingPlan.commitmentPeriod,
                    commitment: monthly * Decimal(BillingPlan.commitmentPeriods)))
        }
    }
}

/// A subscription offer; an introductory offer has no id.
struct OfferOutput: Encodable {
    var id: String?
    var type, mode, period: String
    var periods: Int
    var price: String

    init(_ offer: SubscriptionOffer) {
        id = offer.type == .introductory ? nil : offer.id
        type = offer.type.key
        mode = offer.terms.mode.rawValue
        period = offer.terms.period.description
        periods = offer.terms.periods
        price = PriceFormatter.plain(offer.terms.price)
    }
}

/// `billing` and `grace`, and the billing fields of `subscriptions`.
struct BillingOutput: Encodable {
    var billing: String
    var graceDays: Int?

    init(_ billing: BillingSetting) {
        self.billing = billing.failing ? "fail" : "ok"
        graceDays = billing.graceDays
    }
}

// What a device asks of the App Store around a purchase (W9), and what the App Store grants: the
// values that cross from a device to the keeper of the records (Checkout, or a team server).
import Foundation

/// What a device asks before a purchase's payment: the offers it names for it.
public struct OfferAsk: Sendable, Equatable, Codable {
    /// The transaction the device made for the purchase, and the account it is for.
    public var transactionID: String
    public var account: String
    public var productID: String
    /// StoreKit's `.promotionalOffer(…)`, `.winBackOffer(…)`, an offer code's redemption, and
    /// `.introductoryOfferEligibility(compactJWS:)`.
    public var promotional: PromotionalOfferRequest?
    public var winBackOfferID: String?
    public var code: String?
    public var introductoryOfferEligibility: String?

    public init(
        transactionID: String = "", account: String = "", productID: String,
        promotional: PromotionalOfferRequest? = nil, winBackOfferID: String? = nil, code: String? = nil,
        introductoryOfferEligibility: String? = nil
    ) {
        self.transactionID = transactionID
        self.account = account
        self.productID = productID
        self.promotional = promotional
        self.winBackOfferID = winBackOfferID
        self.code = code
        self.introductoryOfferEligibility = introductoryOfferEligibility
    }

    /// It names a promotional, win-back or code offer (not only the introductory one's JWS).
    package var namesOffer: Bool { promotional != nil || winBackOfferID != nil || code != nil }
    /// There is anything to grant.
    package var asksAnything: Bool { namesOffer || introductoryOfferEligibility != nil }
}

/// What the App Store granted a purchase: the offer it is made with, and whether the developer's
/// JWS gives it the introductory offer (nil: no JWS, the App Store's own eligibility).
public struct OfferGrant: Sendable, Equatable, Codable {
    public var offer: OfferRedemption?
    public var introductoryOffer: Bool?

    public init(offer: OfferRedemption? = nil, introductoryOffer: Bool? = nil) {
        self.offer = offer
        self.introductoryOffer = introductoryOffer
    }

    /// Whether a purchase made with it needs the grant on record: a price below the product's.
    package var needsRecord: Bool { offer != nil || introductoryOffer == true }

    /// How the grant is kept in its claim key.
    package var text: String {
        (offer.map { "\($0.type.key)/\($0.id)" } ?? "none") + (introductoryOffer.map { $0 ? "+intro" : "-intro" } ?? "")
    }

    /// The claim that keeps this grant for one transaction of `account`: taken when granted, looked
    /// for when the purchase is settled.
    package func claimKey(transactionID: String, account: String) -> String {
        ClaimKey.granted(transactionID: transactionID, grant: text, account: account).text
    }
}

/// A purchase whose payment was taken, as its device asks the App Store to settle it. Everything
/// else (what it costs, how long it lasts, how many it gives) the App Store takes from its own
/// catalog.
public struct PurchaseAsk: Sendable, Equatable, Codable {
    public var transactionID: String
    public var account: String
    public var productID: String
    public var device: String
    /// When the payment was taken; never later than the App Store's clock.
    public var at: Date
    public var appAccountToken: String?
    public var billingPlan: BillingPlan?
    /// As granted (`OfferGrant`).
    public var offer: OfferRedemption?
    public var introductoryOffer: Bool?

    public init(
        transactionID: String, account: String, productID: String, device: String, at: Date,
        appAccountToken: String? = nil, billingPlan: BillingPlan? = nil, offer: OfferRedemption? = nil,
        introductoryOffer: Bool? = nil
    ) {
        self.transactionID = transactionID
        self.account = account
        self.productID = productID
        self.device = device
        self.at = at
        self.appAccountToken = appAccountToken
        self.billingPlan = billingPlan
        self.offer = offer
        self.introductoryOffer = introductoryOffer
    }
}

extension PurchaseAsk {
    /// W18: what the App Store decides a payment for: the product, its billing plan and the offers
    /// granted, as one key. A payment that waits is settled only for the same terms, so a customer
    /// cannot have Ask to Buy approve a comic and settle it as a yearly plan.
    package var terms: String {
        let offer = self.offer.map { "\($0.type.rawValue):\($0.id)" } ?? "-"
        let text = "\(productID)|\(billingPlan?.rawValue ?? "-")|\(offer)|\(introductoryOffer == true)"
        return String(SignedUnits.hash(text), radix: 36)
    }
}

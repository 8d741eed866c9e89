// Offers on auto-renewable subscriptions besides the introductory one (O2, O3, O4): promotional
// offers a developer's server signs, offer codes, win-back offers. Each is terms (the same shape as
// an introductory offer's) under an identifier; a line sold on one carries its type and identifier,
// so that renewals, signed data and notifications know which offer it was.
import Foundation

/// Offer types as Apple numbers them in signed data (`offerType`).
public enum OfferType: Int, Sendable, Codable, CaseIterable {
    case introductory = 1
    case promotional = 2
    case code = 3
    case winBack = 4

    /// The word JSON output uses: introductory, promotional, code, winBack.
    public var key: String {
        switch self {
        case .introductory: "introductory"
        case .promotional: "promotional"
        case .code: "code"
        case .winBack: "winBack"
        }
    }

    public var name: String {
        switch self {
        case .introductory: "introductory offer"
        case .promotional: "promotional offer"
        case .code: "offer code"
        case .winBack: "win-back offer"
        }
    }
}

/// Who may redeem an offer code, as App Store Connect's eligibility boxes say (O3).
public enum OfferEligibility: String, Sendable, Codable, CaseIterable {
    /// Never subscribed in the group.
    case new
    /// Subscribed now (access, or in billing retry).
    case existing
    /// Subscribed once; the plan has ended.
    case expired
}

/// A promotional, code or win-back offer of one product.
public struct SubscriptionOffer: Sendable, Equatable {
    /// The offer identifier (a promotional offer's `offerID`, a code offer's reference name).
    public var id: String
    public var type: OfferType
    public var terms: IntroductoryOffer
    /// Who may redeem it (offer codes; the others have rules of their own).
    public var eligibility: Set<OfferEligibility>
    /// Who a win-back offer is for (O4).
    public var winBack: WinBackEligibility?
    /// The billing plan it is configured on (M4): Apple configures offers per billing plan, and
    /// an offer of the monthly plan starts a commitment when it ends.
    public var billingPlan: BillingPlan

    public init(
        id: String, type: OfferType, terms: IntroductoryOffer,
        eligibility: Set<OfferEligibility> = Set(OfferEligibility.allCases),
        winBack: WinBackEligibility? = nil, billingPlan: BillingPlan = .billedUpfront
    ) {
        self.billingPlan = billingPlan
        self.id = id
        self.type = type
        self.terms = terms
        self.eligibility = eligibility
        self.winBack = winBack ?? (type == .winBack ? WinBackEligibility() : nil)
    }
}

/// App Store Connect's win-back eligibility (O4): a lapsed subscriber of the group who paid for at
/// least `paidMonths` and whose plan ended between `lapsedMonths` ago; each offer once per account.
public struct WinBackEligibility: Sendable, Equatable {
    public var paidMonths: Int
    public var lapsedMonths: ClosedRange<Int>

    public init(paidMonths: Int = 1, lapsedMonths: ClosedRange<Int> = 0...24) {
        self.paidMonths = paidMonths
        self.lapsedMonths = lapsedMonths
    }
}

/// Offer codes made for one code offer (O3): one-time codes, each good once, or a custom code
/// good up to `limit` times, once per account. Kept by the account server, so every device
/// redeems from the same book; uses are claims (`AccountServer.claim`).
public struct OfferCode: Sendable, Equatable, Codable {
    public var code: String
    public var productID: String
    /// The code offer's reference name.
    public var offerID: String
    public var limit: Int
    public var isCustom: Bool
    public var createdAt: Date

    public init(code: String, productID: String, offerID: String, limit: Int, isCustom: Bool, createdAt: Date) {
        self.code = code
        self.productID = productID
        self.offerID = offerID
        self.limit = limit
        self.isCustom = isCustom
        self.createdAt = createdAt
    }

    /// The claim key of its uses.
    public var claimKey: String { ClaimKey.offerCode(code).text }

    /// One-time codes as App Store Connect hands them out: eleven letters and digits, without the
    /// ones people misread (0 O 1 I L).
    public static func makeOneTime() -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<11).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// A custom code: 1 to 64 letters, digits, '-' or '_'.
    public static func isValidCustom(_ code: String) -> Bool {
        (1...64).contains(code.count)
            && code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}

/// The offer a purchase was made with, as a transaction and a plan remember it.
public struct OfferRedemption: Sendable, Equatable, Codable {
    public var type: OfferType
    public var id: String

    public init(type: OfferType, id: String) {
        self.type = type
        self.id = id
    }
}

extension AutoRenewTerms {
    /// The offer of this type and identifier, if the product has it.
    public func offer(_ id: String, type: OfferType) -> SubscriptionOffer? {
        offers.first { $0.id == id && $0.type == type }
    }

    /// The terms a line of `type` and `id` is priced on: the introductory offer for type 1 (or a
    /// line of before offer types were recorded), else the named offer.
    func terms(of type: OfferType?, id: String?, billingPlan: BillingPlan = .billedUpfront) -> IntroductoryOffer? {
        switch type {
        case nil, .introductory?: introductoryOffer(for: billingPlan)
        case let type?: id.flatMap { offer($0, type: type)?.terms }
        }
    }

    /// The introductory offer of a billing plan: the monthly plan has its own, or none.
    public func introductoryOffer(for billingPlan: BillingPlan) -> IntroductoryOffer? {
        billingPlan == .monthly ? monthlyIntroductoryOffer : introductoryOffer
    }
}

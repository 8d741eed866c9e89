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

    public var name: String {
        switch self {
        case .introductory: "introductory offer"
        case .promotional: "promotional offer"
        case .code: "offer code"
        case .winBack: "win-back offer"
        }
    }
}

/// A promotional, code or win-back offer of one product.
public struct SubscriptionOffer: Sendable, Equatable {
    /// The offer identifier (a promotional offer's `offerID`, a code offer's reference name).
    public var id: String
    public var type: OfferType
    public var terms: IntroductoryOffer

    public init(id: String, type: OfferType, terms: IntroductoryOffer) {
        self.id = id
        self.type = type
        self.terms = terms
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
    func terms(of type: OfferType?, id: String?) -> IntroductoryOffer? {
        switch type {
        case nil, .introductory?: introductoryOffer
        case let type?: id.flatMap { offer($0, type: type)?.terms }
        }
    }
}

// A purchase's promotional offer and its signature (O2), and StoreKit's errors for offers: the
// values. StoreCore's PromotionalOfferCheck verifies the signatures.
import Foundation

/// The signature a purchase with a promotional offer carries.
public enum OfferSignature: Sendable, Equatable, Codable {
    case original(keyID: String, nonce: String, timestamp: Int64, signature: String)
    case jws(String)
}

/// A purchase option naming a promotional offer (StoreKit's `.promotionalOffer(…)`).
public struct PromotionalOfferRequest: Sendable, Equatable, Codable {
    public var offerID: String
    public var signature: OfferSignature?
    /// The original form's application username (`appAccountToken` / `applicationUsername`).
    public var applicationUsername: String

    public init(offerID: String, signature: OfferSignature?, applicationUsername: String = "") {
        self.offerID = offerID
        self.signature = signature
        self.applicationUsername = applicationUsername
    }
}

/// StoreKit's errors for offers (`Product.PurchaseError`), each with what was wrong.
public enum OfferRefusal: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    case invalidOfferIdentifier(String)
    case invalidOfferSignature(String)
    case ineligibleForOffer(String)
    case missingOfferParameters(String)

    /// Apple's name of the error.
    public var name: String {
        switch self {
        case .invalidOfferIdentifier: "invalidOfferIdentifier"
        case .invalidOfferSignature: "invalidOfferSignature"
        case .ineligibleForOffer: "ineligibleForOffer"
        case .missingOfferParameters: "missingOfferParameters"
        }
    }

    public var reason: String {
        switch self {
        case .invalidOfferIdentifier(let why), .invalidOfferSignature(let why), .ineligibleForOffer(let why),
            .missingOfferParameters(let why):
            why
        }
    }

    public var description: String { "Product.PurchaseError.\(name): \(reason)" }
}

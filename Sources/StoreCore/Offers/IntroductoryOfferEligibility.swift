// The developer's word on an introductory offer (O1 with O2's signing): StoreKit's purchase option
// `.introductoryOfferEligibility(compactJWS:)` carries a JWS the developer's server signs with an
// In-App Purchase key (Apple's `IntroductoryOfferEligibilitySignatureCreator`): `aud`
// "introductory-offer-eligibility", `productId`, `allowIntroductoryOffer` (a JSON boolean) and
// `transactionId`, any transaction of the customer's or their app transaction id. When it
// verifies, it decides in the App Store's place: true gives the introductory offer even to a
// customer who had it, false withholds it from one who never did. When it does not, the purchase
// fails with `invalidOfferSignature`, before any payment.
import Foundation
import StoreModel

/// What a verified eligibility JWS says, before the store checks the customer and takes the nonce.
public struct IntroductoryOfferEligibility: Sendable, Equatable {
    public static let audience = "introductory-offer-eligibility"

    public var allowsOffer: Bool
    /// The transaction it was signed for: the customer's, or their app transaction id.
    public var transactionID: String
    public var nonce: String

    /// Checks `token` for `productID` of the app `bundleID` at store time `now`.
    public static func verify(
        _ token: String, productID: String, bundleID: String, keys: PromotionalOfferCheck.Keys, now: Date
    ) throws(OfferRefusal) -> IntroductoryOfferEligibility {
        let (claims, nonce) = try PromotionalOfferCheck.verifyRequest(
            token, audience: audience, bundleID: bundleID, keys: keys, now: now)
        guard let product = claims["productId"] as? String, let allow = claims["allowIntroductoryOffer"],
            let transactionID = claims["transactionId"] as? String, !transactionID.isEmpty
        else {
            throw .missingOfferParameters("the JWS needs productId, allowIntroductoryOffer and transactionId")
        }
        // A JSON true or false: 1, "true" or null is another claim than was meant.
        guard CompactJSON.isBoolean(allow), let allowsOffer = allow as? Bool else {
            throw .invalidOfferSignature("allowIntroductoryOffer is not a JSON boolean")
        }
        guard product == productID else {
            throw .invalidOfferSignature("signed for product \"\(product)\", not \(productID)")
        }
        return IntroductoryOfferEligibility(allowsOffer: allowsOffer, transactionID: transactionID, nonce: nonce)
    }
}

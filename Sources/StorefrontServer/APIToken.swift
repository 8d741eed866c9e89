// The App Store Server API's bearer tokens (V2): a JWT an in-app purchase key of the store signed,
// checked as Apple checks it. Only `storefront serve` reads them.
import Foundation
import StoreCore
import StoreModel

/// Why a bearer token is refused (401).
public enum TokenRefusal: Error, Equatable, CustomStringConvertible {
    case missing
    case malformed(String)
    case unknownKey(String)
    case revokedKey(String)
    case badSignature, wrongIssuer, wrongAudience
    case wrongBundle(String)
    case expired, notYetValid
    case notAnAPIKey(String)
    case livesTooLong

    public var description: String {
        switch self {
        case .missing: "no Authorization: Bearer token"
        case .malformed(let why): "the token is not a JWT (\(why))"
        case .unknownKey(let id): "no key \"\(id)\" (`storefront keys` lists them)"
        case .revokedKey(let id): "key \"\(id)\" is revoked"
        case .badSignature: "the token's signature does not verify with its key"
        case .wrongIssuer: "the token's iss is not this store's issuer id"
        case .wrongAudience: "the token's aud is not appstoreconnect-v1"
        case .wrongBundle(let bid): "the token is for bundle id \"\(bid)\", not the one served"
        case .expired: "the token has expired"
        case .notYetValid: "the token's iat is in the future"
        case .livesTooLong: "the token's exp is more than 60 minutes after its iat (or now): Apple refuses such tokens"
        case .notAnAPIKey(let id):
            "key \"\(id)\" is a subscription-offer key: it signs promotional offers, not API tokens"
        }
    }
}

public enum APIToken {
    /// The longest a token may live, in seconds.
    public static let longestLife: Double = 3600

    /// Checks a bearer token as Apple does: ES256, `kid` of a key of `keyring` not revoked, `iss`,
    /// `aud` appstoreconnect-v1, `bid`, `exp` in the future and at most 60 minutes after `iat` (or
    /// now, when the token has none, as Apple's Python client's tokens) (real time: tokens are the
    /// client's).
    /// Returns `exp`, in seconds since 1970.
    @discardableResult
    public static func verify(_ authorization: String?, keyring: APIKeyring, bundleID: String, now: Date)
        throws(TokenRefusal) -> Double
    {
        guard let authorization, authorization.hasPrefix("Bearer ") else { throw .missing }
        let token = String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        let (_, payload) = try JWS.verify(
            keyed: token,
            refusing: { failure -> TokenRefusal in
                switch failure {
                case .malformed(let why): .malformed(why)
                case .notES256: .malformed("alg is not ES256")
                case .noKeyID: .malformed("no kid in the header")
                }
            }, badSignature: { _ in .badSignature }
        ) { keyID throws(TokenRefusal) -> APIKey in
            guard let key = keyring.keys.first(where: { $0.keyID == keyID }) else { throw .unknownKey(keyID) }
            guard !key.revoked else { throw .revokedKey(keyID) }
            guard key.kind == .inAppPurchase else { throw .notAnAPIKey(keyID) }
            return key
        }
        guard payload["iss"] as? String == keyring.issuerID else { throw .wrongIssuer }
        guard payload["aud"] as? String == "appstoreconnect-v1" else { throw .wrongAudience }
        guard let bid = payload["bid"] as? String, bid == bundleID else {
            throw .wrongBundle(payload["bid"] as? String ?? "")
        }
        guard let exp = (payload["exp"] as? NSNumber)?.doubleValue, exp > now.timeIntervalSince1970 else {
            throw .expired
        }
        let iat = (payload["iat"] as? NSNumber)?.doubleValue
        if let iat, iat > now.timeIntervalSince1970 + 60 { throw .notYetValid }
        // Apple: a token that expires more than 60 minutes after it was issued is not valid.
        if exp - (iat ?? now.timeIntervalSince1970) > Self.longestLife { throw .livesTooLong }
        return exp
    }
}

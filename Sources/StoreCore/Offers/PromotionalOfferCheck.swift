// Promotional offers are signed by the developer's server (O2): StoreKit hands the App Store the
// offer with a signature, and the App Store refuses the purchase when it does not verify. Both of
// Apple's forms are checked here, with the errors StoreKit reports (`Product.PurchaseError`):
// - the original: ECDSA P-256 / SHA-256 over bundle id, key id, product id, offer id, application
//   username (lower-cased), nonce (lower-cased) and timestamp (ms), joined by U+2063; DER, base64;
// - promotional offer V2: a compact JWS (ES256, `kid`) with `bid`, `iss`, `aud` "promotional-offer",
//   `iat`, `nonce`, `productId`, `offerIdentifier` and optionally `transactionId`.
// A signature is good for 24 hours of store time from its timestamp, and its nonce once.
import Crypto
import Foundation
import StoreModel

public enum PromotionalOfferCheck {
    /// How long a signature is good for after its timestamp.
    public static let lifetime: TimeInterval = 24 * 3600
    /// How far ahead of the store clock a timestamp may be (clocks differ a little).
    static let skew: TimeInterval = 300
    public static let audience = "promotional-offer"

    /// The keys whose signatures count, and whose they are.
    public struct Keys: Sendable {
        public var keyring: APIKeyring
        /// A `.storekit` file's `subscriptionOffersKeyPair`.
        public var catalogKey: APIKey?

        public init(keyring: APIKeyring, catalogKey: APIKey?) {
            self.keyring = keyring
            self.catalogKey = catalogKey
        }

        func key(_ id: String) throws(OfferRefusal) -> APIKey {
            if let catalogKey, catalogKey.keyID == id { return catalogKey }
            guard let key = keyring.keys.first(where: { $0.keyID == id }) else {
                throw .invalidOfferSignature(
                    "no key \"\(id)\" in this store (`storefront keys create --type subscription-offer` makes one)")
            }
            guard !key.revoked else { throw .invalidOfferSignature("key \"\(id)\" is revoked") }
            return key
        }
    }

    /// Checks `request` for `productID` of the app `bundleID` at store time `now`; returns the
    /// nonce, which the caller claims once.
    public static func verify(
        _ request: PromotionalOfferRequest, productID: String, bundleID: String, keys: Keys, now: Date
    ) throws(OfferRefusal) -> String {
        guard let signature = request.signature else {
            throw .missingOfferParameters(
                "a promotional offer needs a signature (--offer-signature with --offer-key-id, --offer-nonce and --offer-timestamp, or --offer-jws)"
            )
        }
        switch signature {
        case .original(let keyID, let nonce, let timestamp, let text):
            guard !keyID.isEmpty, !nonce.isEmpty, !text.isEmpty else {
                throw .missingOfferParameters("the key id, nonce and signature must all be given")
            }
            guard UUID(uuidString: nonce) != nil else {
                throw .invalidOfferSignature("the nonce \"\(nonce)\" is not a UUID")
            }
            let key = try keys.key(keyID)
            try checkTime(
                Date(timeIntervalSince1970: Double(timestamp) / 1000), now: now, what: "timestamp \(timestamp)")
            let payload = [
                bundleID, keyID, productID, request.offerID, request.applicationUsername.lowercased(),
                nonce.lowercased(), String(timestamp),
            ]
            .joined(separator: "\u{2063}")
            guard let der = Data(base64Encoded: text),
                let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: der)
            else {
                throw .invalidOfferSignature("the signature is not base64 DER ECDSA")
            }
            guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key.publicKey),
                publicKey.isValidSignature(ecdsa, for: Data(payload.utf8))
            else {
                throw .invalidOfferSignature(
                    "the signature does not verify with key \(keyID) over this bundle id, product, offer, username, nonce and timestamp"
                )
            }
            return nonce.lowercased()
        case .jws(let token):
            let (claims, nonce) = try verifyRequest(token, audience: audience, bundleID: bundleID, keys: keys, now: now)
            guard let product = claims["productId"] as? String, let offer = claims["offerIdentifier"] as? String else {
                throw .missingOfferParameters("the JWS needs productId and offerIdentifier")
            }
            guard product == productID else {
                throw .invalidOfferSignature("signed for product \"\(product)\", not \(productID)")
            }
            guard offer == request.offerID else {
                throw .invalidOfferSignature("signed for offer \"\(offer)\", not \(request.offerID)")
            }
            return nonce
        }
    }

    /// The part every JWS a developer's server signs for a StoreKit request shares (Apple's
    /// "Generating JWS to sign App Store requests"): ES256 with a `kid` of a key of this store,
    /// `aud` the feature's, `bid` this app, `iss` this store's issuer (not needed with the
    /// `.storekit` file's own key), a `nonce`, and an `iat` within the last 24 hours of store
    /// time. Returns the claims, for the feature's own, and the nonce, lower-cased.
    static func verifyRequest(
        _ token: String, audience: String, bundleID: String, keys: Keys, now: Date
    ) throws(OfferRefusal) -> (claims: [String: Any], nonce: String) {
        let (key, claims) = try JWS.verify(
            keyed: token,
            refusing: { failure -> OfferRefusal in
                switch failure {
                case .malformed(let why): .invalidOfferSignature("the JWS is malformed (\(why))")
                case .notES256: .invalidOfferSignature("the JWS's alg is not ES256")
                case .noKeyID: .missingOfferParameters("the JWS has no kid")
                }
            },
            badSignature: { keyID in .invalidOfferSignature("the JWS's signature does not verify with key \(keyID)") }
        ) { keyID throws(OfferRefusal) in
            try keys.key(keyID)
        }
        guard claims["aud"] as? String == audience else { throw .invalidOfferSignature("aud is not \"\(audience)\"") }
        guard claims["bid"] as? String == bundleID else {
            throw .invalidOfferSignature("signed for bundle id \"\(claims["bid"] as? String ?? "")\", not \(bundleID)")
        }
        if key.keyID != keys.catalogKey?.keyID, claims["iss"] as? String != keys.keyring.issuerID {
            throw .invalidOfferSignature("iss is not this store's issuer id")
        }
        guard let nonce = claims["nonce"] as? String, let iat = claims["iat"] as? NSNumber, !CompactJSON.isBoolean(iat)
        else {
            throw .missingOfferParameters("the JWS needs a nonce and an iat")
        }
        try checkTime(Date(timeIntervalSince1970: iat.doubleValue), now: now, what: "iat \(iat.int64Value)")
        return (claims, nonce.lowercased())
    }

    private static func checkTime(_ signed: Date, now: Date, what: String) throws(OfferRefusal) {
        if now.timeIntervalSince(signed) > lifetime {
            throw .invalidOfferSignature("the \(what) is more than 24 hours before the store's clock: sign again")
        }
        if signed.timeIntervalSince(now) > skew {
            throw .invalidOfferSignature("the \(what) is ahead of the store's clock")
        }
    }

    /// Signs the original form with a private key (the screen and scenarios sign with the state
    /// folder's own key, for demos).
    public static func signOriginal(
        key: P256.Signing.PrivateKey, keyID: String, bundleID: String, productID: String, offerID: String,
        applicationUsername: String = "", nonce: UUID = UUID(), timestamp: Int64
    ) throws -> OfferSignature {
        let payload = [
            bundleID, keyID, productID, offerID, applicationUsername.lowercased(), nonce.uuidString.lowercased(),
            String(timestamp),
        ]
        .joined(separator: "\u{2063}")
        let signature = try key.signature(for: Data(payload.utf8))
        return .original(
            keyID: keyID, nonce: nonce.uuidString.lowercased(), timestamp: timestamp,
            signature: signature.derRepresentation.base64EncodedString())
    }
}

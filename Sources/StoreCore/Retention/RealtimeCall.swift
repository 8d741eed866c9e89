// The App Store's call to the developer's Get Retention Message endpoint (M1, M2): a signed
// RealtimeRequestBody POSTed to the realtime URL, answered within Apple's time budget with a
// RealtimeResponseBody (a message, an alternate product or a promotional offer), or not.
import Foundation

public struct RealtimeCall: Sendable {
    /// Apple's budget: the endpoint has about 700 ms to answer (Initiate Performance Test's
    /// `responseTimeThreshold`); later, the customer sees the default message.
    public static let budget: TimeInterval = 0.7

    /// What the endpoint chose, as Apple's RealtimeResponseBody says it.
    public enum Choice: Equatable, Sendable {
        case message(id: String)
        case alternateProduct(messageID: String?, productID: String)
        /// The offer and its signature, as a purchase carries them (checked when it is accepted).
        case promotionalOffer(messageID: String?, offer: PromotionalOfferRequest)
    }

    /// How the call went: the choice, or why there was none (Apple's SendAttemptResult names).
    public struct Outcome: Sendable, Equatable {
        public var choice: Choice?
        public var milliseconds: Int
        /// nil when it succeeded: TIMED_OUT, NO_RESPONSE, UNSUCCESSFUL_HTTP_RESPONSE_CODE, INVALID_RESPONSE, …
        public var failure: String?
        /// The failure in words, for a person.
        public var reason: String?

        public init(choice: Choice?, milliseconds: Int, failure: String? = nil, reason: String? = nil) {
            (self.choice, self.milliseconds, self.failure, self.reason) = (choice, milliseconds, failure, reason)
        }
    }

    /// The signed request body for `originalTransactionID`'s plan of `productID`.
    public static func body(
        originalTransactionID: String, productID: String, locale: String, identity: AppIdentity, now: Date, authority: CertificateAuthority
    ) throws(StoreError) -> (body: Data, requestIdentifier: String) {
        let requestIdentifier = UUID().uuidString.lowercased()
        var payload: [String: Any] = [
            "originalTransactionId": originalTransactionID, "productId": productID, "userLocale": locale,
            "requestIdentifier": requestIdentifier, "signedDate": SignedData.milliseconds(now), "environment": identity.environment.rawValue,
        ]
        payload["appAppleId"] = identity.appAppleID ?? 0
        let signed = try authority.sign(payload)
        return (Data(CompactJSON.encode(["signedPayload": signed])), requestIdentifier)
    }

    /// POSTs `body` to `url` and reads the answer within `budget` seconds.
    public static func ask(_ url: URL, body: Data, budget: TimeInterval = budget) -> Outcome {
        let started = Date()
        let answer = HTTPCall.post(url, headers: ["Content-Type": "application/json"], body: body, timeout: budget, whole: true)
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        switch answer {
        case .failure(let problem):
            return Outcome(choice: nil, milliseconds: milliseconds, failure: problem.timedOut ? "TIMED_OUT" : "NO_RESPONSE", reason: problem.reason)
        case .success(let (status, data)):
            guard status == 200 else {
                return Outcome(choice: nil, milliseconds: milliseconds, failure: "UNSUCCESSFUL_HTTP_RESPONSE_CODE", reason: "it answered HTTP \(status)")
            }
            if milliseconds > Int(budget * 1000) {
                return Outcome(choice: nil, milliseconds: milliseconds, failure: "TIMED_OUT", reason: "it answered after \(milliseconds) ms")
            }
            guard let choice = parse(data) else {
                return Outcome(choice: nil, milliseconds: milliseconds, failure: "INVALID_RESPONSE", reason: "its answer is not a RealtimeResponseBody with one choice")
            }
            return Outcome(choice: choice, milliseconds: milliseconds, failure: nil, reason: nil)
        }
    }

    /// A RealtimeResponseBody with exactly one of message, alternateProduct, promotionalOffer.
    static func parse(_ data: Data) -> Choice? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        let given = ["message", "alternateProduct", "promotionalOffer"].filter { object[$0] is [String: Any] }
        guard given.count == 1 else { return nil }
        let part = object[given[0]] as! [String: Any]
        let messageID = (part["messageIdentifier"] as? String)?.lowercased()
        switch given[0] {
        case "message":
            return messageID.map { .message(id: $0) }
        case "alternateProduct":
            return (part["productId"] as? String).map { .alternateProduct(messageID: messageID, productID: $0) }
        default:
            if let v2 = part["promotionalOfferSignatureV2"] as? String {
                // The offer a V2 signature names is in its payload; the signature is checked at the purchase.
                guard let offerID = (try? JWS.decode(v2))?.payload["offerIdentifier"] as? String else { return nil }
                return .promotionalOffer(messageID: messageID, offer: PromotionalOfferRequest(offerID: offerID, signature: .jws(v2)))
            }
            guard let v1 = part["promotionalOfferSignatureV1"] as? [String: Any], let offerID = v1["offerIdentifier"] as? String,
                  let keyID = v1["keyId"] as? String, let nonce = v1["nonce"] as? String, let signature = v1["encodedSignature"] as? String,
                  let timestamp = (v1["timestamp"] as? NSNumber)?.int64Value else { return nil }
            let username = (v1["appAccountToken"] as? String) ?? ""
            return .promotionalOffer(messageID: messageID, offer: PromotionalOfferRequest(
                offerID: offerID, signature: .original(keyID: keyID, nonce: nonce, timestamp: timestamp, signature: signature), applicationUsername: username
            ))
        }
    }
}

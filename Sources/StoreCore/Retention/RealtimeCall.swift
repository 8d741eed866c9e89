// The App Store's call to the developer's Get Retention Message endpoint (M1, M2): a signed
// RealtimeRequestBody POSTed to the realtime URL, answered within Apple's time budget with a
// RealtimeResponseBody (a message, an alternate product or a promotional offer), or not.
import Foundation
import StoreModel

public struct RealtimeCall: Sendable {
    /// Apple's budget: the endpoint has about 700 ms to answer (Initiate Performance Test's
    /// `responseTimeThreshold`); later, the customer sees the default message.
    public static let budget: TimeInterval = 0.7

    /// What the endpoint chose, as Apple's RealtimeResponseBody says it.
    public enum Choice: Equatable, Sendable {
        case message(id: String)
        /// A plan to switch to; with a billing plan, that plan billed so (M4), which may be the
        /// plan one has, billed the other way.
        case alternateProduct(messageID: String?, productID: String, billingPlan: BillingPlan? = nil)
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
        originalTransactionID: String, productID: String, locale: String, identity: AppIdentity, now: Date,
        authority: CertificateAuthority
    ) throws(StoreError) -> (body: Data, requestIdentifier: String) {
        let payload = payload(
            originalTransactionID: originalTransactionID, productID: productID, locale: locale, identity: identity,
            now: now)
        return (body(signedPayload: try authority.sign(payload)), payload.requestIdentifier)
    }

    /// The request's payload, with a new request identifier.
    static func payload(
        originalTransactionID: String, productID: String, locale: String, identity: AppIdentity, now: Date
    ) -> RealtimeRequestPayload {
        // Apple's model requires appAppleId; an app with none yet (Xcode, the sandbox) sends 0.
        RealtimeRequestPayload(
            originalTransactionId: originalTransactionID, appAppleId: identity.appAppleID ?? 0, productId: productID,
            userLocale: locale,
            requestIdentifier: UUID().uuidString.lowercased(), signedDate: SignedUnits.milliseconds(now),
            environment: identity.environment.rawValue
        )
    }

    /// The RealtimeRequestBody that carries a signed payload.
    static func body(signedPayload: String) -> Data { Data(CompactJSON.encode(["signedPayload": signedPayload])) }

    /// POSTs `body` to `url` and reads the answer within `budget` seconds.
    public static func ask(_ url: URL, body: Data, budget: TimeInterval = budget) -> Outcome {
        let started = Date()
        let answer = HTTPCall.post(url, headers: [:], body: body, timeout: budget)
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        switch answer {
        case .failure(let problem):
            return Outcome(
                choice: nil, milliseconds: milliseconds, failure: problem.timedOut ? "TIMED_OUT" : "NO_RESPONSE",
                reason: problem.description)
        case .success(let (status, data)):
            guard status == 200 else {
                return Outcome(
                    choice: nil, milliseconds: milliseconds, failure: "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
                    reason: "it answered HTTP \(status)")
            }
            if milliseconds > Int(budget * 1000) {
                return Outcome(
                    choice: nil, milliseconds: milliseconds, failure: "TIMED_OUT",
                    reason: "it answered after \(milliseconds) ms")
            }
            guard let choice = parse(data) else {
                return Outcome(
                    choice: nil, milliseconds: milliseconds, failure: "INVALID_RESPONSE",
                    reason: "its answer is not a RealtimeResponseBody with one choice")
            }
            return Outcome(choice: choice, milliseconds: milliseconds, failure: nil, reason: nil)
        }
    }

    /// A RealtimeResponseBody with exactly one of message, alternateProduct, promotionalOffer; nil
    /// for anything else (INVALID_RESPONSE). A choice whose fields have the wrong types is no choice.
    static func parse(_ data: Data) -> Choice? {
        guard let body = try? JSONDecoder().decode(ResponseBody.self, from: data) else { return nil }
        var choices: [Choice?] = []
        if let message = body.message {
            choices.append(message.messageIdentifier.map { .message(id: $0.lowercased()) })
        }
        if let alternate = body.alternateProduct {
            // A billing plan Apple's BillingPlanType does not name is no choice.
            let billing = alternate.billingPlanType.map { BillingPlan(rawValue: $0) }
            let known = billing.map { $0 != nil } ?? true
            choices.append(
                known
                    ? alternate.productId.map {
                        .alternateProduct(
                            messageID: alternate.messageIdentifier?.lowercased(), productID: $0,
                            billingPlan: billing ?? nil)
                    } : nil)
        }
        if let offer = body.promotionalOffer {
            choices.append(
                offer.request.map { .promotionalOffer(messageID: offer.messageIdentifier?.lowercased(), offer: $0) })
        }
        guard choices.count == 1, let choice = choices[0] else { return nil }
        return choice
    }

    /// Apple's RealtimeResponseBody and its parts, as the App Store Server Library's models type them.
    struct ResponseBody: Decodable {
        struct Message: Decodable {
            var messageIdentifier: String?
        }
        struct AlternateProduct: Decodable {
            var messageIdentifier: String?
            var productId: String?
            var billingPlanType: String?
        }
        struct SignatureV1: Decodable {
            var encodedSignature: String
            var productId: String
            var nonce: String
            var timestamp: Int64
            var keyId: String
            var offerIdentifier: String
            var appAccountToken: String?
        }
        struct PromotionalOffer: Decodable {
            var messageIdentifier: String?
            var promotionalOfferSignatureV2: String?
            var promotionalOfferSignatureV1: SignatureV1?

            /// The offer and its signature, as a purchase carries them. The offer a V2 signature
            /// names is in its payload; either signature is checked when the offer is accepted.
            var request: PromotionalOfferRequest? {
                if let v2 = promotionalOfferSignatureV2 {
                    guard let offerID = (try? JWS.decode(v2))?.payload["offerIdentifier"] as? String else { return nil }
                    return PromotionalOfferRequest(offerID: offerID, signature: .jws(v2))
                }
                guard let v1 = promotionalOfferSignatureV1 else { return nil }
                return PromotionalOfferRequest(
                    offerID: v1.offerIdentifier,
                    signature: .original(
                        keyID: v1.keyId, nonce: v1.nonce, timestamp: v1.timestamp, signature: v1.encodedSignature),
                    applicationUsername: v1.appAccountToken ?? ""
                )
            }
        }
        var message: Message?
        var alternateProduct: AlternateProduct?
        var promotionalOffer: PromotionalOffer?
    }
}

// O2 judged by Apple's own library: promotional offer signatures made by app-store-server-library
// for Python (`PromotionalOfferSignatureCreator`, `PromotionalOfferV2SignatureCreator`) with a key
// from `storefront keys create` are accepted by `storefront buy --offer`; tampered, reused,
// expired, foreign and revoked ones are refused with StoreKit's error, and nothing is charged.
import Foundation
import TestSupport
import Testing

/// Apple's signer, run with a key of a state folder.
struct AppleOfferSigner {
    static let script = repositoryRoot.appendingPathComponent("Tests/Python/sign_offers.py")

    let keyPEM: String
    let keyID: String
    let issuerID: String
    let bundleID: String

    /// Makes a key of `type` in `session`'s store.
    static func make(_ session: Session, type: String) async throws -> AppleOfferSigner {
        let file = session.stateDirectory.appendingPathComponent("key-\(UUID().uuidString).p8")
        let made = try await session.object(["keys", "create", "--type", type, "--out", file.path])
        return AppleOfferSigner(
            keyPEM: try String(contentsOf: file, encoding: .utf8), keyID: try #require(made["keyId"] as? String),
            issuerID: try #require(made["issuerId"] as? String), bundleID: try #require(made["bundleId"] as? String)
        )
    }

    /// The original form's options for `buy`.
    func original(product: String, offer: String, username: String = "", nonce: UUID? = nil, at timestamp: Int64)
        async throws
        -> [String]
    {
        let signed = try await signOriginal(
            product: product, offer: offer, username: username, nonce: nonce, at: timestamp)
        var arguments = [
            "--offer", offer, "--offer-key-id", keyID, "--offer-nonce", try #require(signed["nonce"] as? String),
            "--offer-timestamp", String(timestamp), "--offer-signature", try #require(signed["signature"] as? String),
        ]
        if !username.isEmpty { arguments += ["--application-username", username] }
        return arguments
    }

    /// The original form as a RealtimeResponseBody carries it (Apple's PromotionalOfferSignatureV1).
    func signatureV1(product: String, offer: String, at timestamp: Int64) async throws -> [String: Any] {
        let signed = try await signOriginal(product: product, offer: offer, username: "", nonce: nil, at: timestamp)
        return [
            "encodedSignature": try #require(signed["signature"] as? String), "productId": product,
            "nonce": try #require(signed["nonce"] as? String),
            "timestamp": timestamp, "keyId": keyID, "offerIdentifier": offer,
        ]
    }

    private func signOriginal(product: String, offer: String, username: String, nonce: UUID?, at timestamp: Int64)
        async throws -> [String: Any]
    {
        let item: [String: Any] = [
            "form": "original", "productId": product, "offerId": offer, "applicationUsername": username,
            "nonce": nonce?.uuidString ?? NSNull(), "timestamp": timestamp,
        ]
        return try #require(try await run([item]).first)
    }

    /// A V2 JWS.
    func jws(product: String, offer: String, transactionID: String? = nil) async throws -> String {
        let item: [String: Any] = [
            "form": "v2", "productId": product, "offerId": offer, "transactionId": transactionID ?? NSNull(),
        ]
        return try #require(try await run([item]).first?["jws"] as? String)
    }

    /// An introductory offer eligibility JWS (`IntroductoryOfferEligibilitySignatureCreator`).
    func intro(product: String, allow: Bool, transactionID: String) async throws -> String {
        try #require(
            try await run([["form": "intro", "productId": product, "allow": allow, "transactionId": transactionID]])
                .first?[
                    "jws"] as? String)
    }

    /// A JWS for `audience` with other feature claims than Apple's creators put, signed as they sign.
    func jws(audience: String, claims: [String: Any]) async throws -> String {
        try #require(
            try await run([["form": "claims", "audience": audience, "claims": claims]]).first?["jws"] as? String)
    }

    private func run(_ items: [[String: Any]]) async throws -> [[String: Any]] {
        try await AppleVerifier.run(
            Self.script, ["key": keyPEM, "keyId": keyID, "issuerId": issuerID, "bundleId": bundleID, "items": items])
    }
}

/// Store time in milliseconds, as a developer's server would stamp a signature.
func storeMilliseconds(_ session: Session) async throws -> Int64 {
    let shown = try #require(try await session.object(["clock"])["now"] as? String)
    let date = try #require(ISO8601DateFormatter().date(from: shown))
    return Int64(date.timeIntervalSince1970 * 1000)
}

@Suite("promotional offers, signed by Apple's library", .serialized, .tags(.python), .notInFastRun)
struct PromotionalOfferTests {
    static let monthly = "com.storefront.selfies.sub.allaccess.monthly"
    static let weekly = "com.storefront.selfies.sub.allaccess"
    static let offer = "comeback.3months"

    /// A selfies store on real time (Apple's V2 signer stamps `iat` with the real clock) with a
    /// past subscriber, ann, whose plan has ended.
    func lapsedSubscriber() async throws -> Session {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try await session.run(["clock", "real"]).expectSuccess()
        try await session.signUp("ann")
        try await session.run(["buy", Self.weekly]).expectSuccess()
        // Ended now rather than by moving the clock: V2's iat is real time.
        try await session.run(["expire", Self.weekly]).expectSuccess()
        return session
    }

    func expectRefused(
        _ session: Session, _ arguments: [String], _ error: String, because words: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = try await session.run(["receipt", "--json"]).stdout
        let result = try await session.run(["buy"] + arguments)
        #expect(result.status == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("Product.PurchaseError.\(error)"), "\(result)", sourceLocation: sourceLocation)
        if let words { #expect(result.stderr.contains(words), "\(result)", sourceLocation: sourceLocation) }
        // Nothing charged: the receipt is as it was.
        #expect(try await session.run(["receipt", "--json"]).stdout == before, sourceLocation: sourceLocation)
    }

    /// The signed transaction of a purchase, checked by Apple's verifier, decoded.
    func verifiedPayload(_ session: Session, transaction id: String, bundleID: String) async throws -> [String: Any] {
        let shown = try await session.object(["transaction", id])
        let jws = try #require((shown["transaction"] as? [String: Any])?["signedTransaction"] as? String)
        let verdict = try #require(
            try await AppleVerifier.verify([("transaction", jws)], session: session, bundleID: bundleID).first)
        #expect(verdict.ok, "Apple's verifier: \(verdict.status ?? "")")
        return verdict.decoded
    }

    @Test(
        "O2 the original signature from Apple's PromotionalOfferSignatureCreator buys the offer; the signed transaction says offerType 2 and the offer"
    )
    func originalAccepted() async throws {
        let session = try await lapsedSubscriber()
        let signer = try await AppleOfferSigner.make(session, type: "subscription-offer")
        let options = try await signer.original(
            product: Self.monthly, offer: Self.offer, username: "Ann-Account-7",
            at: try await storeMilliseconds(session))
        let bought = try await session.object(["buy", Self.monthly] + options)
        #expect(bought["state"] as? String == "purchased")
        #expect(bought["offerType"] as? Int == 2 && bought["offerIdentifier"] as? String == Self.offer)
        let payload = try await verifiedPayload(
            session, transaction: try #require(bought["id"] as? String), bundleID: signer.bundleID)
        #expect(payload["offerType"] as? Int == 2)
        #expect(payload["offerIdentifier"] as? String == Self.offer)
        #expect(payload["offerDiscountType"] as? String == "PAY_AS_YOU_GO")
        #expect(payload["price"] as? Int == 2990)
        // The offer's second period: the renewal in `history --json` says the offer as its signed
        // transaction does.
        try await session.run(["clock", "advance", "32d"]).expectSuccess()
        let renewal = try #require(
            try await session.array(["history"]).first { $0["transactionReason"] as? String == "RENEWAL" })
        #expect(renewal["offerType"] as? Int == 2 && renewal["offerIdentifier"] as? String == Self.offer, "\(renewal)")
        let renewed = try await verifiedPayload(
            session, transaction: try #require(renewal["id"] as? String), bundleID: signer.bundleID)
        #expect(renewed["offerType"] as? Int == 2 && renewed["offerIdentifier"] as? String == Self.offer)
        // A6 with an offer on the receipt.
        #expect(try await session.object(["receipt"])["plansConsistent"] as? Bool == true)
    }

    @Test(
        "O2 the V2 JWS from Apple's PromotionalOfferV2SignatureCreator buys the offer, with an in-app purchase key or a subscription-offer key"
    )
    func jwsAccepted() async throws {
        for type in ["in-app-purchase", "subscription-offer"] {
            let session = try await lapsedSubscriber()
            let signer = try await AppleOfferSigner.make(session, type: type)
            let jws = try await signer.jws(
                product: Self.monthly, offer: "thankyou.freemonth", transactionID: "2000000000000001")
            let bought = try await session.object([
                "buy", Self.monthly, "--offer", "thankyou.freemonth", "--offer-jws", jws,
            ])
            #expect(bought["state"] as? String == "purchased", "\(type)")
            let payload = try await verifiedPayload(
                session, transaction: try #require(bought["id"] as? String), bundleID: signer.bundleID)
            #expect(
                payload["offerType"] as? Int == 2 && payload["offerIdentifier"] as? String == "thankyou.freemonth",
                "\(type)")
            #expect(payload["offerDiscountType"] as? String == "FREE_TRIAL" && payload["price"] as? Int == 0, "\(type)")
        }
    }

    @Test(
        "O2 a tampered original signature is refused with invalidOfferSignature: another offer, product, username, nonce or timestamp than was signed"
    )
    func originalTampered() async throws {
        let session = try await lapsedSubscriber()
        let signer = try await AppleOfferSigner.make(session, type: "subscription-offer")
        let now = try await storeMilliseconds(session)
        let good = try await signer.original(product: Self.monthly, offer: Self.offer, username: "ann-7", at: now)
        func replacing(_ option: String, with value: String) -> [String] {
            var changed = good
            let index = changed.firstIndex(of: option)! + 1
            changed[index] = value
            return changed
        }
        let cases: [[String]] = [
            replacing("--offer", with: "thankyou.freemonth"),
            replacing("--application-username", with: "bob-7"),
            replacing("--offer-nonce", with: UUID().uuidString),
            replacing("--offer-timestamp", with: String(now - 1000)),
            replacing(
                "--offer-signature", with: String(good[good.firstIndex(of: "--offer-signature")! + 1].reversed())),
        ]
        for arguments in cases { try await expectRefused(session, [Self.monthly] + arguments, "invalidOfferSignature") }
        // Signed for the monthly product, used on the weekly one (which has no such offer).
        try await expectRefused(session, [Self.weekly] + good, "invalidOfferIdentifier")
        // The untouched signature still works: none of the refusals took its nonce.
        try await session.run(["buy", Self.monthly] + good).expectSuccess()
    }

    @Test(
        "O2 a nonce is good once: the same signature, original or V2, is refused the second time, also from another device"
    )
    func reusedNonce() async throws {
        let session = try await lapsedSubscriber()
        let signer = try await AppleOfferSigner.make(session, type: "subscription-offer")
        let options = try await signer.original(
            product: Self.monthly, offer: Self.offer, at: try await storeMilliseconds(session))
        try await session.run(["buy", Self.monthly] + options).expectSuccess()
        try await expectRefused(session, [Self.monthly] + options, "invalidOfferSignature", because: "was used already")
        try await session.signIn("ann", device: "tablet")
        let onTablet = try await session.run(["buy", Self.monthly, "--device", "tablet"] + options)
        #expect(onTablet.status == 1 && onTablet.stderr.contains("was used already"), "\(onTablet)")
        let jws = try await signer.jws(product: Self.monthly, offer: Self.offer)
        try await session.run(["buy", Self.monthly, "--offer", Self.offer, "--offer-jws", jws]).expectSuccess()
        try await expectRefused(
            session, [Self.monthly, "--offer", Self.offer, "--offer-jws", jws], "invalidOfferSignature",
            because: "was used already")
    }

    @Test(
        "O2 a signature more than 24 hours old on the store clock is refused; one made just inside the day is accepted")
    func expired() async throws {
        let session = try await lapsedSubscriber()
        let signer = try await AppleOfferSigner.make(session, type: "subscription-offer")
        let now = try await storeMilliseconds(session)
        let old = try await signer.original(product: Self.monthly, offer: Self.offer, at: now - 24 * 3_600_000 - 60_000)
        try await expectRefused(session, [Self.monthly] + old, "invalidOfferSignature", because: "more than 24 hours")
        let jws = try await signer.jws(product: Self.monthly, offer: Self.offer)
        try await session.run(["clock", "advance", "1d1h"]).expectSuccess()
        try await expectRefused(
            session, [Self.monthly, "--offer", Self.offer, "--offer-jws", jws], "invalidOfferSignature",
            because: "more than 24 hours")
        let fresh = try await signer.original(
            product: Self.monthly, offer: Self.offer, at: try await storeMilliseconds(session) - 23 * 3_600_000)
        try await session.run(["buy", Self.monthly] + fresh).expectSuccess()
    }

    @Test(
        "O2 foreign signatures are refused: another store's key, a revoked key, a JWS altered after signing or for another product or app"
    )
    func foreign() async throws {
        let session = try await lapsedSubscriber()
        let elsewhere = try await Session()
        let stranger = try await AppleOfferSigner.make(elsewhere, type: "subscription-offer")
        let strangerWithOurIdentity = AppleOfferSigner(
            keyPEM: stranger.keyPEM, keyID: stranger.keyID, issuerID: "x", bundleID: "com.storefront.selfies")
        try await expectRefused(
            session,
            [Self.monthly]
                + (try await strangerWithOurIdentity.original(
                    product: Self.monthly, offer: Self.offer, at: try await storeMilliseconds(session))),
            "invalidOfferSignature", because: "no key"
        )
        let signer = try await AppleOfferSigner.make(session, type: "subscription-offer")
        // Our key id, another private key.
        let impostor = AppleOfferSigner(
            keyPEM: stranger.keyPEM, keyID: signer.keyID, issuerID: signer.issuerID, bundleID: signer.bundleID)
        try await expectRefused(
            session,
            [Self.monthly]
                + (try await impostor.original(
                    product: Self.monthly, offer: Self.offer, at: try await storeMilliseconds(session))),
            "invalidOfferSignature")
        try await expectRefused(
            session,
            [
                Self.monthly, "--offer", Self.offer, "--offer-jws",
                try await impostor.jws(product: Self.monthly, offer: Self.offer),
            ], "invalidOfferSignature")
        // Another app's bundle id, another product, an altered payload.
        let otherApp = AppleOfferSigner(
            keyPEM: signer.keyPEM, keyID: signer.keyID, issuerID: signer.issuerID, bundleID: "com.example.other")
        try await expectRefused(
            session,
            [
                Self.monthly, "--offer", Self.offer, "--offer-jws",
                try await otherApp.jws(product: Self.monthly, offer: Self.offer),
            ], "invalidOfferSignature")
        try await expectRefused(
            session,
            [
                Self.monthly, "--offer", Self.offer, "--offer-jws",
                try await signer.jws(product: Self.weekly, offer: Self.offer),
            ], "invalidOfferSignature")
        let jws = try await signer.jws(product: Self.monthly, offer: Self.offer)
        var parts = jws.split(separator: ".").map(String.init)
        let claimsData = try #require(Data(base64URL: parts[1]))
        let claims = try #require(JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        parts[1] = try JSONSerialization.data(
            withJSONObject: claims.merging(["offerIdentifier": "thankyou.freemonth"]) { _, new in new }
        ).base64URL
        try await expectRefused(
            session, [Self.monthly, "--offer", "thankyou.freemonth", "--offer-jws", parts.joined(separator: ".")],
            "invalidOfferSignature")
        // Revoked: the same good signature is refused once the key is revoked.
        let good = try await signer.original(
            product: Self.monthly, offer: Self.offer, at: try await storeMilliseconds(session))
        try await session.run(["keys", "revoke", signer.keyID]).expectSuccess()
        try await expectRefused(session, [Self.monthly] + good, "invalidOfferSignature", because: "revoked")
    }

    @Test(
        "O2 no signature is missingOfferParameters, an unknown offer invalidOfferIdentifier, someone who never subscribed ineligibleForOffer"
    )
    func otherRefusals() async throws {
        let session = try await lapsedSubscriber()
        let signer = try await AppleOfferSigner.make(session, type: "subscription-offer")
        try await expectRefused(session, [Self.monthly, "--offer", Self.offer], "missingOfferParameters")
        try await expectRefused(
            session,
            [Self.monthly]
                + (try await signer.original(
                    product: Self.monthly, offer: "no.such.offer", at: try await storeMilliseconds(session))),
            "invalidOfferIdentifier"
        )
        try await session.signUp("bob")
        try await expectRefused(
            session,
            [Self.monthly]
                + (try await signer.original(
                    product: Self.monthly, offer: Self.offer, at: try await storeMilliseconds(session))),
            "ineligibleForOffer", because: "never subscribed"
        )
    }
}

extension Data {
    fileprivate init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }

    fileprivate var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

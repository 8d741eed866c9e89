// StoreKit's `.introductoryOfferEligibility(compactJWS:)`, judged by Apple's own library: a JWS
// from app-store-server-library's `IntroductoryOfferEligibilitySignatureCreator` (`buy
// --intro-offer-jws`) gives the introductory offer again to a customer who had it, or withholds it
// from one who never did; a JWS for someone else, another product, another feature, used twice,
// too old, or with a claim of the wrong JSON type is refused with invalidOfferSignature, and
// nothing is charged. The signed transactions are read by Apple's verifier.
import Foundation
import TestSupport
import Testing

@Suite("introductory offer eligibility, signed by Apple's library", .serialized, .tags(.python), .notInFastRun)
struct IntroductoryOfferEligibilityTests {
    static let monthly = PromotionalOfferTests.monthly
    static let weekly = PromotionalOfferTests.weekly
    let offers = PromotionalOfferTests()

    /// A selfies store on real time (Apple's signer stamps `iat` with the real clock) and a key.
    func store() async throws -> (Session, AppleOfferSigner) {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try await session.run(["clock", "real"]).expectSuccess()
        return (session, try await AppleOfferSigner.make(session, type: "in-app-purchase"))
    }

    /// Buys the monthly plan and ends it; returns the purchase's signed payload, as Apple reads it.
    @discardableResult
    func buyAndEnd(_ session: Session, _ signer: AppleOfferSigner, options: [String] = []) async throws -> [String: Any]
    {
        let bought = try await session.object(["buy", Self.monthly] + options)
        #expect(bought["state"] as? String == "purchased", "\(bought)")
        let payload = try await offers.verifiedPayload(
            session, transaction: try #require(bought["id"] as? String), bundleID: signer.bundleID)
        // `buy --json` says the offer its signed transaction says.
        #expect(bought["offerType"] as? Int == payload["offerType"] as? Int, "\(bought)")
        try await session.run(["expire", Self.monthly]).expectSuccess()
        return payload
    }

    /// The account's app transaction id, from its signed app transaction as Apple's verifier reads it.
    func appTransactionID(_ session: Session, _ signer: AppleOfferSigner) async throws -> String {
        let jws = try #require(try await session.object(["app"])["signedAppTransaction"] as? String)
        let verdict = try #require(
            try await AppleVerifier.verify([("appTransaction", jws)], session: session, bundleID: signer.bundleID).first
        )
        #expect(verdict.ok, "\(verdict.status ?? "")")
        return try #require(verdict.decoded["appTransactionId"] as? String)
    }

    @Test(
        "allowIntroductoryOffer true gives the free week again to a customer who had it, signed for one of their transactions or their app transaction id"
    )
    func givenAgain() async throws {
        let (session, signer) = try await store()
        try await session.signUp("carol")
        let first = try await buyAndEnd(session, signer)
        #expect(
            first["offerType"] as? Int == 1 && first["offerDiscountType"] as? String == "FREE_TRIAL"
                && first["price"] as? Int == 0)
        // The App Store's rule: once per group.
        let again = try await buyAndEnd(session, signer)
        #expect(again["offerType"] == nil && again["price"] as? Int == 5990, "\(again)")
        for transactionID in [
            try #require(first["transactionId"] as? String), try await appTransactionID(session, signer),
        ] {
            let jws = try await signer.intro(product: Self.monthly, allow: true, transactionID: transactionID)
            let given = try await buyAndEnd(session, signer, options: ["--intro-offer-jws", jws])
            #expect(
                given["offerType"] as? Int == 1 && given["offerDiscountType"] as? String == "FREE_TRIAL", "\(given)")
            #expect(given["price"] as? Int == 0 && given["offerPeriod"] as? String == "P1W", "\(given)")
        }
        #expect(try await session.object(["receipt"])["plansConsistent"] as? Bool == true)
    }

    @Test(
        "allowIntroductoryOffer false withholds the free week from a customer who never had it, also when a parent approves later; they keep it for later"
    )
    func withheld() async throws {
        let (session, signer) = try await store()
        try await session.signUp("dan")
        let jws = try await signer.intro(
            product: Self.monthly, allow: false, transactionID: try await appTransactionID(session, signer))
        // Asked to buy: the word is kept with the waiting purchase until a parent approves it.
        let asked = try await session.object(["buy", Self.monthly, "--intro-offer-jws", jws, "--outcome", "defer"])
        #expect(asked["state"] as? String == "deferred", "\(asked)")
        let approved = try await session.object(["approve", try #require(asked["id"] as? String)])
        let paid = try await offers.verifiedPayload(
            session, transaction: try #require(approved["id"] as? String), bundleID: signer.bundleID)
        try await session.run(["expire", Self.monthly]).expectSuccess()
        #expect(
            paid["offerType"] == nil && paid["offerDiscountType"] == nil && paid["price"] as? Int == 5990, "\(paid)")
        let plan = try #require((try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        #expect(plan["introOfferUsed"] as? Bool == false, "\(plan)")
        // Not used, so the App Store's rule gives it on the next purchase.
        let later = try await buyAndEnd(session, signer)
        #expect(later["offerType"] as? Int == 1 && later["price"] as? Int == 0, "\(later)")
    }

    @Test(
        "refused with invalidOfferSignature, nothing charged: another customer's transaction, another product, another feature, a nonce used twice, a claim of the wrong type, a day old"
    )
    func refused() async throws {
        let (session, signer) = try await store()
        try await session.signUp("erin")
        let erins = try await appTransactionID(session, signer)
        try await buyAndEnd(session, signer)
        try await session.signUp("frank")
        let franks = try await appTransactionID(session, signer)
        func refuse(
            _ jws: String, because words: String, error: String = "invalidOfferSignature",
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            try await offers.expectRefused(
                session, [Self.monthly, "--intro-offer-jws", jws], error, because: words, sourceLocation: sourceLocation
            )
        }
        // Frank is signed in: a JWS signed for Erin's app transaction is not his.
        try await refuse(
            try await signer.intro(product: Self.monthly, allow: true, transactionID: erins),
            because: "neither a transaction of frank's")
        try await refuse(
            try await signer.intro(product: Self.monthly, allow: true, transactionID: "2000000000000001"),
            because: "neither a transaction")
        try await refuse(
            try await signer.intro(product: Self.weekly, allow: true, transactionID: franks),
            because: "signed for product")
        // A promotional offer's JWS is not an eligibility one.
        try await refuse(
            try await signer.jws(product: Self.monthly, offer: PromotionalOfferTests.offer, transactionID: franks),
            because: "aud is not")
        // A 1 where Apple's creator writes true.
        let one = try await signer.jws(
            audience: "introductory-offer-eligibility",
            claims: ["productId": Self.monthly, "allowIntroductoryOffer": 1, "transactionId": franks]
        )
        try await refuse(one, because: "not a JSON boolean")
        let noTransaction = try await signer.jws(
            audience: "introductory-offer-eligibility",
            claims: ["productId": Self.monthly, "allowIntroductoryOffer": false])
        try await refuse(
            noTransaction, because: "needs productId, allowIntroductoryOffer and transactionId",
            error: "missingOfferParameters")
        // Another store's key under our key id.
        let elsewhere = try await AppleOfferSigner.make(try await Session(), type: "in-app-purchase")
        let impostor = AppleOfferSigner(
            keyPEM: elsewhere.keyPEM, keyID: signer.keyID, issuerID: signer.issuerID, bundleID: signer.bundleID)
        try await refuse(
            try await impostor.intro(product: Self.monthly, allow: false, transactionID: franks),
            because: "does not verify")
        // Good once; none of the refusals above took a nonce of it, nor a purchase refused for
        // another reason: Frank already subscribed.
        let good = try await signer.intro(product: Self.monthly, allow: false, transactionID: franks)
        let stale = try await signer.intro(product: Self.monthly, allow: false, transactionID: franks)
        try await session.run(["buy", Self.monthly]).expectSuccess()
        let subscribed = try await session.run(["buy", Self.monthly, "--intro-offer-jws", good])
        #expect(subscribed.status == 1 && subscribed.stderr.contains("already subscribed"), "\(subscribed)")
        try await session.run(["expire", Self.monthly]).expectSuccess()
        let paid = try await buyAndEnd(session, signer, options: ["--intro-offer-jws", good])
        #expect(paid["offerType"] == nil && paid["price"] as? Int == 5990, "\(paid)")
        try await refuse(good, because: "was used already")
        try await session.run(["clock", "advance", "1d1h"]).expectSuccess()
        try await refuse(stale, because: "more than 24 hours")
        // With another offer it is refused before anything is bought.
        let both = try await session.run([
            "buy", Self.monthly, "--intro-offer-jws", stale, "--win-back", "winback.2months",
        ])
        #expect(
            both.status == 2 && both.stderr.contains("--intro-offer-jws is for a purchase on no other offer"), "\(both)"
        )
    }
}

extension IntroductoryOfferEligibilityTests {
    @Test(
        "W1 through `storefront serve`: the server checks the JWS's customer and takes its nonce; Ann's word is good once for Ann, never for Bob"
    )
    func served() async throws {
        let (host, signer) = try await store()
        let server = try await Server(host)
        let phone = try await server.machine(catalogOf: host)
        let laptop = try await server.machine(catalogOf: host)
        try await phone.signUp("ann")
        let first = try await buyAndEnd(phone, signer)
        let jws = try await signer.intro(
            product: Self.monthly, allow: true, transactionID: try #require(first["transactionId"] as? String))
        try await laptop.signUp("bob")
        try await offers.expectRefused(
            laptop, [Self.monthly, "--intro-offer-jws", jws], "invalidOfferSignature",
            because: "neither a transaction of bob's")
        let given = try await buyAndEnd(phone, signer, options: ["--intro-offer-jws", jws])
        #expect(given["offerType"] as? Int == 1 && given["price"] as? Int == 0, "\(given)")
        try await laptop.signIn("ann")
        try await offers.expectRefused(
            laptop, [Self.monthly, "--intro-offer-jws", jws], "invalidOfferSignature", because: "was used already")
        _ = try await server.stop()
    }
}

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
    func store() throws -> (Session, AppleOfferSigner) {
        let session = try Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try session.run(["clock", "real"]).expectSuccess()
        return (session, try AppleOfferSigner.make(session, type: "in-app-purchase"))
    }

    /// Buys the monthly plan and ends it; returns the purchase's signed payload, as Apple reads it.
    @discardableResult
    func buyAndEnd(_ session: Session, _ signer: AppleOfferSigner, options: [String] = []) throws -> [String: Any] {
        let bought = try session.object(["buy", Self.monthly] + options)
        #expect(bought["state"] as? String == "purchased", "\(bought)")
        let payload = try offers.verifiedPayload(
            session, transaction: try #require(bought["id"] as? String), bundleID: signer.bundleID)
        // `buy --json` says the offer its signed transaction says.
        #expect(bought["offerType"] as? Int == payload["offerType"] as? Int, "\(bought)")
        try session.run(["expire", Self.monthly]).expectSuccess()
        return payload
    }

    /// The account's app transaction id, from its signed app transaction as Apple's verifier reads it.
    func appTransactionID(_ session: Session, _ signer: AppleOfferSigner) throws -> String {
        let jws = try #require(try session.object(["app"])["signedAppTransaction"] as? String)
        let verdict = try #require(
            try AppleVerifier.verify([("appTransaction", jws)], session: session, bundleID: signer.bundleID).first)
        #expect(verdict.ok, "\(verdict.status ?? "")")
        return try #require(verdict.decoded["appTransactionId"] as? String)
    }

    @Test(
        "allowIntroductoryOffer true gives the free week again to a customer who had it, signed for one of their transactions or their app transaction id"
    )
    func givenAgain() throws {
        let (session, signer) = try store()
        try session.signUp("carol")
        let first = try buyAndEnd(session, signer)
        #expect(
            first["offerType"] as? Int == 1 && first["offerDiscountType"] as? String == "FREE_TRIAL"
                && first["price"] as? Int == 0)
        // The App Store's rule: once per group.
        let again = try buyAndEnd(session, signer)
        #expect(again["offerType"] == nil && again["price"] as? Int == 5990, "\(again)")
        for transactionID in [try #require(first["transactionId"] as? String), try appTransactionID(session, signer)] {
            let jws = try signer.intro(product: Self.monthly, allow: true, transactionID: transactionID)
            let given = try buyAndEnd(session, signer, options: ["--intro-offer-jws", jws])
            #expect(
                given["offerType"] as? Int == 1 && given["offerDiscountType"] as? String == "FREE_TRIAL", "\(given)")
            #expect(given["price"] as? Int == 0 && given["offerPeriod"] as? String == "P1W", "\(given)")
        }
        #expect(try session.object(["receipt"])["plansConsistent"] as? Bool == true)
    }

    @Test(
        "allowIntroductoryOffer false withholds the free week from a customer who never had it, also when a parent approves later; they keep it for later"
    )
    func withheld() throws {
        let (session, signer) = try store()
        try session.signUp("dan")
        let jws = try signer.intro(
            product: Self.monthly, allow: false, transactionID: try appTransactionID(session, signer))
        // Asked to buy: the word is kept with the waiting purchase until a parent approves it.
        let asked = try session.object(["buy", Self.monthly, "--intro-offer-jws", jws, "--outcome", "defer"])
        #expect(asked["state"] as? String == "deferred", "\(asked)")
        let approved = try session.object(["approve", try #require(asked["id"] as? String)])
        let paid = try offers.verifiedPayload(
            session, transaction: try #require(approved["id"] as? String), bundleID: signer.bundleID)
        try session.run(["expire", Self.monthly]).expectSuccess()
        #expect(
            paid["offerType"] == nil && paid["offerDiscountType"] == nil && paid["price"] as? Int == 5990, "\(paid)")
        let plan = try #require((try session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        #expect(plan["introOfferUsed"] as? Bool == false, "\(plan)")
        // Not used, so the App Store's rule gives it on the next purchase.
        let later = try buyAndEnd(session, signer)
        #expect(later["offerType"] as? Int == 1 && later["price"] as? Int == 0, "\(later)")
    }

    @Test(
        "refused with invalidOfferSignature, nothing charged: another customer's transaction, another product, another feature, a nonce used twice, a claim of the wrong type, a day old"
    )
    func refused() throws {
        let (session, signer) = try store()
        try session.signUp("erin")
        let erins = try appTransactionID(session, signer)
        try buyAndEnd(session, signer)
        try session.signUp("frank")
        let franks = try appTransactionID(session, signer)
        func refuse(
            _ jws: String, because words: String, error: String = "invalidOfferSignature",
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            try offers.expectRefused(
                session, [Self.monthly, "--intro-offer-jws", jws], error, because: words, sourceLocation: sourceLocation
            )
        }
        // Frank is signed in: a JWS signed for Erin's app transaction is not his.
        try refuse(
            try signer.intro(product: Self.monthly, allow: true, transactionID: erins),
            because: "neither a transaction of frank's")
        try refuse(
            try signer.intro(product: Self.monthly, allow: true, transactionID: "2000000000000001"),
            because: "neither a transaction")
        try refuse(
            try signer.intro(product: Self.weekly, allow: true, transactionID: franks), because: "signed for product")
        // A promotional offer's JWS is not an eligibility one.
        try refuse(
            try signer.jws(product: Self.monthly, offer: PromotionalOfferTests.offer, transactionID: franks),
            because: "aud is not")
        // A 1 where Apple's creator writes true.
        let one = try signer.jws(
            audience: "introductory-offer-eligibility",
            claims: ["productId": Self.monthly, "allowIntroductoryOffer": 1, "transactionId": franks]
        )
        try refuse(one, because: "not a JSON boolean")
        let noTransaction = try signer.jws(
            audience: "introductory-offer-eligibility",
            claims: ["productId": Self.monthly, "allowIntroductoryOffer": false])
        try refuse(
            noTransaction, because: "needs productId, allowIntroductoryOffer and transactionId",
            error: "missingOfferParameters")
        // Another store's key under our key id.
        let elsewhere = try AppleOfferSigner.make(try Session(), type: "in-app-purchase")
        let impostor = AppleOfferSigner(
            keyPEM: elsewhere.keyPEM, keyID: signer.keyID, issuerID: signer.issuerID, bundleID: signer.bundleID)
        try refuse(
            try impostor.intro(product: Self.monthly, allow: false, transactionID: franks), because: "does not verify")
        // Good once; none of the refusals above took a nonce of it, nor a purchase refused for
        // another reason: Frank already subscribed.
        let good = try signer.intro(product: Self.monthly, allow: false, transactionID: franks)
        let stale = try signer.intro(product: Self.monthly, allow: false, transactionID: franks)
        try session.run(["buy", Self.monthly]).expectSuccess()
        let subscribed = try session.run(["buy", Self.monthly, "--intro-offer-jws", good])
        #expect(subscribed.status == 1 && subscribed.stderr.contains("already subscribed"), "\(subscribed)")
        try session.run(["expire", Self.monthly]).expectSuccess()
        let paid = try buyAndEnd(session, signer, options: ["--intro-offer-jws", good])
        #expect(paid["offerType"] == nil && paid["price"] as? Int == 5990, "\(paid)")
        try refuse(good, because: "was used already")
        try session.run(["clock", "advance", "1d1h"]).expectSuccess()
        try refuse(stale, because: "more than 24 hours")
        // With another offer it is refused before anything is bought.
        let both = try session.run(["buy", Self.monthly, "--intro-offer-jws", stale, "--win-back", "winback.2months"])
        #expect(
            both.status == 2 && both.stderr.contains("--intro-offer-jws is for a purchase on no other offer"), "\(both)"
        )
    }
}

extension IntroductoryOfferEligibilityTests {
    @Test(
        "W1 through `storefront serve`: the server checks the JWS's customer and takes its nonce; Ann's word is good once for Ann, never for Bob"
    )
    func served() throws {
        let (host, signer) = try store()
        let server = try Server(host)
        let phone = try server.machine(catalogOf: host)
        let laptop = try server.machine(catalogOf: host)
        try phone.signUp("ann")
        let first = try buyAndEnd(phone, signer)
        let jws = try signer.intro(
            product: Self.monthly, allow: true, transactionID: try #require(first["transactionId"] as? String))
        try laptop.signUp("bob")
        try offers.expectRefused(
            laptop, [Self.monthly, "--intro-offer-jws", jws], "invalidOfferSignature",
            because: "neither a transaction of bob's")
        let given = try buyAndEnd(phone, signer, options: ["--intro-offer-jws", jws])
        #expect(given["offerType"] as? Int == 1 && given["price"] as? Int == 0, "\(given)")
        try laptop.signIn("ann")
        try offers.expectRefused(
            laptop, [Self.monthly, "--intro-offer-jws", jws], "invalidOfferSignature", because: "was used already")
        _ = server.stop()
    }
}

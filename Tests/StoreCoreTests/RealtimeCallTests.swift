// M1 M2 on the Swift side: the App Store's signed call to the Get Retention Message endpoint carries
// Apple's DecodedRealtimeRequestBody, every field with the type Apple's model gives it; the
// endpoint's RealtimeResponseBody is read with exactly one choice, in the JSON Apple's library
// writes for it, and anything else is INVALID_RESPONSE. (Apple's library verifies the signed call
// in EndToEndTests/RetentionTests.)
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Realtime call")
struct RealtimeCallTests {
    @Test(
        "M1 the signed request: Apple's seven fields, with whole numbers where its model has int, and appAppleId 0 for an app with none yet"
    )
    func requestBody() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-realtime-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let authority = try CertificateAuthority.open(in: folder)
        let now = utc(2026, 11, 24, 9)
        for (identity, appleID) in [
            (
                AppIdentity(bundleID: "com.storefront.selfies", appAppleID: 531_412, environment: .production),
                Int64(531_412)
            ),
            (AppIdentity(bundleID: "com.storefront.selfies"), Int64(0)),
        ] {
            let (body, requestIdentifier) = try RealtimeCall.body(
                originalTransactionID: "2000000001", productID: "allaccess.monthly", locale: "en-US",
                identity: identity, now: now, authority: authority
            )
            let outer = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(Array(outer.keys) == ["signedPayload"], "\(outer)")
            let jws = try #require(outer["signedPayload"] as? String)
            #expect(JWS.isSigned(jws, by: authority.signingKey.publicKey))
            let payloadPart = try #require(jws.split(separator: ".").dropFirst().first)
            let payloadData = try #require(JWS.data(base64URL: payloadPart))
            // JSONDecoder, not JSONSerialization: a flag or a fraction where Apple has int fails here.
            let decoded = try JSONDecoder().decode(RealtimeRequestPayload.self, from: payloadData)
            #expect(
                decoded
                    == RealtimeRequestPayload(
                        originalTransactionId: "2000000001", appAppleId: appleID, productId: "allaccess.monthly",
                        userLocale: "en-US",
                        requestIdentifier: requestIdentifier, signedDate: 1_795_510_800_000,
                        environment: identity.environment.rawValue
                    ))
            let keys = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any]).keys
            #expect(
                Set(keys) == [
                    "originalTransactionId", "appAppleId", "productId", "userLocale", "requestIdentifier", "signedDate",
                    "environment",
                ])
            #expect(UUID(uuidString: requestIdentifier) != nil && requestIdentifier == requestIdentifier.lowercased())
        }
    }

    func parse(_ json: String) -> RealtimeCall.Choice? {
        RealtimeCall.parse(Data(json.utf8))
    }

    @Test("M2 each of Apple's three choices, as Apple's library writes them (its converter leaves out what is None)")
    func choices() throws {
        let message = "441CBD73-182B-4D52-8752-D014CBD40CE9"
        #expect(parse(#"{"message": {"messageIdentifier": "\#(message)"}}"#) == .message(id: message.lowercased()))
        #expect(
            parse(#"{"alternateProduct": {"messageIdentifier": "\#(message)", "productId": "oneaweek.monthly"}}"#)
                == .alternateProduct(messageID: message.lowercased(), productID: "oneaweek.monthly"))
        #expect(
            parse(#"{"alternateProduct": {"productId": "oneaweek.monthly"}}"#)
                == .alternateProduct(messageID: nil, productID: "oneaweek.monthly"))
        // M4: Apple's library's own output for an AlternateProduct with a BillingPlanType; a
        // billing plan it does not name is no choice.
        #expect(
            parse(
                #"{"alternateProduct": {"messageIdentifier": "441cbd73-182b-4d52-8752-d014cbd40ce9", "productId": "y.all", "billingPlanType": "MONTHLY"}}"#
            )
                == .alternateProduct(messageID: message.lowercased(), productID: "y.all", billingPlan: .monthly))
        #expect(
            parse(#"{"alternateProduct": {"productId": "y.all", "billingPlanType": "BILLED_UPFRONT"}}"#)
                == .alternateProduct(messageID: nil, productID: "y.all", billingPlan: .billedUpfront))
        #expect(parse(#"{"alternateProduct": {"productId": "y.all", "billingPlanType": "WEEKLY"}}"#) == nil)
        #expect(parse(#"{"alternateProduct": {"productId": "y.all", "billingPlanType": 1}}"#) == nil)
        // The library's own output for a V1 signature (RealtimeResponseBody, PromotionalOfferSignatureV1).
        let v1 = #"""
            {"promotionalOffer": {"messageIdentifier": "441cbd73-182b-4d52-8752-d014cbd40ce9", "promotionalOfferSignatureV1": {"encodedSignature": "abc", "productId": "allaccess.monthly", "nonce": "6e480b88-5aa6-4235-8ffd-0751304ea540", "timestamp": 1698148900000, "keyId": "KEY1", "offerIdentifier": "thankyou.freemonth"}}}
            """#
        #expect(
            parse(v1)
                == .promotionalOffer(
                    messageID: message.lowercased(),
                    offer: PromotionalOfferRequest(
                        offerID: "thankyou.freemonth",
                        signature: .original(
                            keyID: "KEY1", nonce: "6e480b88-5aa6-4235-8ffd-0751304ea540", timestamp: 1_698_148_900_000,
                            signature: "abc")
                    )))
        let withToken = v1.replacingOccurrences(
            of: #""offerIdentifier": "thankyou.freemonth""#,
            with: #""offerIdentifier": "thankyou.freemonth", "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138""#
        )
        guard case .promotionalOffer(_, let offer) = parse(withToken) else {
            Issue.record("a V1 signature with an app account token is a choice")
            return
        }
        #expect(offer.applicationUsername == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        // V2: the offer is named in the signature's payload.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-realtime-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let jws = try CertificateAuthority.open(in: folder).sign([
            "offerIdentifier": "thankyou.freemonth", "productId": "allaccess.monthly",
        ])
        #expect(
            parse(#"{"promotionalOffer": {"promotionalOfferSignatureV2": "\#(jws)"}}"#)
                == .promotionalOffer(
                    messageID: nil, offer: PromotionalOfferRequest(offerID: "thankyou.freemonth", signature: .jws(jws)))
        )
    }

    @Test("M2 INVALID_RESPONSE: no choice, two choices, a choice without what it names, wrong types, not JSON")
    func invalid() {
        let refused = [
            "{}",
            #"{"message": null, "alternateProduct": null}"#,
            #"{"message": {"messageIdentifier": "a"}, "alternateProduct": {"productId": "p"}}"#,
            #"{"message": {}}"#,
            #"{"alternateProduct": {"messageIdentifier": "a"}}"#,
            #"{"promotionalOffer": {"messageIdentifier": "a"}}"#,
            #"{"promotionalOffer": {"promotionalOfferSignatureV2": "not.a.jws"}}"#,
            #"{"message": "a"}"#,
            #"{"message": {"messageIdentifier": 7}}"#,
            #"{"promotionalOffer": {"promotionalOfferSignatureV1": {"encodedSignature": "abc", "productId": "p", "nonce": "n", "timestamp": true, "keyId": "k", "offerIdentifier": "o"}}}"#,
            #"{"promotionalOffer": {"promotionalOfferSignatureV1": {"encodedSignature": "abc", "productId": "p", "nonce": "n", "timestamp": 1698148900000, "offerIdentifier": "o"}}}"#,
            "[]", "not json", "",
        ]
        for json in refused {
            #expect(parse(json) == nil, "\(json)")
        }
    }
}

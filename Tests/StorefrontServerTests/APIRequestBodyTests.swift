// The App Store Server API's request bodies, read as Apple's Codable types (V3, O7): on plain
// values, with no server, database or clock. A field sent with the wrong JSON type gets its own
// error code, as Apple's does; the answer kept on the receipt is the body as sent.
import Foundation
import StoreModel
import Testing

@testable import StorefrontServer

@Suite("the Server API's request bodies, as Apple's types")
struct APIRequestBodyTests {
    func request(_ json: String) -> APIRequest { APIRequest(method: "PUT", path: "/", body: Data(json.utf8)) }

    func code(_ response: APIResponse?) -> Int? {
        guard let response else { return nil }
        return (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["errorCode"] as? Int
    }

    @Test(
        "O7 a consumption answer: 1 is not true, true is not a number, 2.5 is not whole; each wrong field answers with its own code; a good body is kept as sent, keys sorted"
    )
    func consumption() throws {
        func v2(_ json: String) -> APIResponse? {
            guard let body = request(json).decodedBody(ConsumptionRequest.self) else {
                return .error(.generalBadRequest, "not an object")
            }
            return ServerAPI.check(body)
        }
        func v1(_ json: String) -> APIResponse? {
            guard let body = request(json).decodedBody(ConsumptionRequestV1.self) else {
                return .error(.generalBadRequest, "not an object")
            }
            return ServerAPI.check(body)
        }
        let good = #"{"sampleContentProvided":false,"deliveryStatus":"DELIVERED","customerConsented":true}"#
        #expect(v2(good) == nil)
        #expect(
            code(v2(#"{"customerConsented":1,"sampleContentProvided":false,"deliveryStatus":"DELIVERED"}"#))
                == 4_000_035)
        #expect(
            code(v2(#"{"customerConsented":true,"sampleContentProvided":"no","deliveryStatus":"DELIVERED"}"#))
                == 4_000_041)
        #expect(code(v2(#"{"customerConsented":true,"sampleContentProvided":true,"deliveryStatus":0}"#)) == 4_000_036)
        #expect(
            code(
                v2(
                    #"{"customerConsented":true,"sampleContentProvided":true,"deliveryStatus":"DELIVERED","consumptionPercentage":2.5}"#
                ))
                == 4_000_000)
        #expect(
            code(
                v2(
                    #"{"customerConsented":true,"sampleContentProvided":true,"deliveryStatus":"DELIVERED","consumptionPercentage":true}"#
                ))
                == 4_000_000)
        #expect(code(v2("[1]")) == 4_000_000, "not an object")
        let numbered =
            #"{"customerConsented":true,"sampleContentProvided":false,"consumptionStatus":1,"platform":1,"deliveryStatus":0,"accountTenure":0,"playTime":0,"lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":0,"userStatus":1"#
        #expect(v1(numbered + "}") == nil)
        #expect(v1(numbered + #","appAccountToken":""}"#) == nil, "empty is allowed")
        #expect(code(v1(numbered + #","appAccountToken":7}"#)) == 4_000_033, "a number is not a token")
        #expect(
            code(v1(numbered.replacingOccurrences(of: #""playTime":0"#, with: #""playTime":true"#) + "}")) == 4_000_040)
        #expect(code(v1(numbered.replacingOccurrences(of: #""platform":1"#, with: #""platform":1.0"#) + "}")) == nil)
        let kept = try #require(request(good).decodedBody(ConsumptionRequest.self))
        #expect(
            ServerAPI.noteJSON(kept)
                == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#)
    }

    @Test("V3 an extension request: its terms, or Apple's code for the first field that is wrong")
    func extensionTerms() throws {
        func refusal(_ json: String) -> Int? {
            if case .failure(let response) = ServerAPI.extensionRequest(request(json)) { return code(response) }
            return nil
        }
        let good = #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"r1","productId":"p"}"#
        guard case .success(let (body, terms)) = ServerAPI.extensionRequest(request(good)) else {
            Issue.record("refused")
            return
        }
        #expect(terms.days == 3 && terms.reason == 1 && terms.requestIdentifier == "r1" && body.productId.value == "p")
        #expect(refusal(#"{"extendByDays":true,"extendReasonCode":1,"requestIdentifier":"r"}"#) == 4_000_009)
        #expect(refusal(#"{"extendByDays":1.5,"extendReasonCode":1,"requestIdentifier":"r"}"#) == 4_000_009)
        #expect(refusal(#"{"extendByDays":91,"extendReasonCode":1,"requestIdentifier":"r"}"#) == 4_000_009)
        #expect(refusal(#"{"extendByDays":9,"extendReasonCode":"1","requestIdentifier":"r"}"#) == 4_000_010)
        #expect(refusal(#"{"extendByDays":9,"extendReasonCode":1,"requestIdentifier":5}"#) == 4_000_011)
        #expect(refusal("nonsense") == 4_000_000)
    }

    @Test(
        "V3 an answer is written as Apple's type declares it: keys sorted, a nil optional left out, a flag a boolean and a count a number"
    )
    func answers() {
        let history = HistoryResponse(
            bundleId: "b", environment: "Sandbox", appAppleId: nil, signedTransactions: ["x"], revision: "r",
            hasMore: false)
        #expect(
            String(decoding: APIResponse.json(history).body, as: UTF8.self)
                == #"{"bundleId":"b","environment":"Sandbox","hasMore":false,"revision":"r","signedTransactions":["x"]}"#
        )
        let status = MassExtendRenewalDateStatusResponse(
            requestIdentifier: "r", complete: true, completeDate: 1, succeededCount: 1, failedCount: 0)
        #expect(
            String(decoding: APIResponse.json(status).body, as: UTF8.self)
                == #"{"complete":true,"completeDate":1,"failedCount":0,"requestIdentifier":"r","succeededCount":1}"#)
        let refusal = APIResponse.error(.invalidExtendByDays, "no")
        #expect(refusal.status == 400)
        #expect(String(decoding: refusal.body, as: UTF8.self) == #"{"errorCode":4000009,"errorMessage":"no"}"#)
    }
}

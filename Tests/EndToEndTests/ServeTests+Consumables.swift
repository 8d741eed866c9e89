// V3 for consumables, judged by Apple's client: Get Transaction History v1 leaves finished ones
// out, and a consumption request reaches the developer with Apple's reason.
import Foundation
import GRDB
import StoreCore
import StoreModel
import TestSupport
import Testing

extension ServeTests {
    @Test(
        "V3 Get Transaction History v1, which Apple's client calls when no version is named: finished consumables are left out, a refunded one is listed; v2 lists every one; both verify"
    )
    func historyVersionOne() async throws {
        let session = try await Session()
        try await session.signUp("ann")
        var packs: [String] = []
        for _ in 0..<2 {
            packs.append(
                try #require(try await session.object(["buy", "com.storefront.randomviews"])["id"] as? String))
        }
        let comic = try #require(try await session.object(["buy", "com.storefront.comic.nightshift"])["id"] as? String)
        try await session.run(["refund-request", packs[1], "--reason", "not-received"]).expectSuccess()
        try await session.run(["refund-request", "approve", packs[1]]).expectSuccess()
        let key = try await makeKey(session)
        let server = try await Server(session)
        let results = try await call(
            server, key, bundleID: "com.storefront.comics",
            [
                ["call": "history", "id": comic, "version": "default"],
                ["call": "history", "id": comic],
                ["call": "history", "id": "2999999999999999", "version": "default"],
            ])
        _ = try await server.stop()
        func listed(_ result: [String: Any]) throws -> [String] {
            try (result["signedTransactions"] as? [String] ?? []).map {
                try #require(try JWS.decode($0).payload["transactionId"] as? String)
            }
        }
        let one = result(results[0])
        let two = result(results[1])
        #expect(try Set(listed(one)) == [packs[1], comic], "v1: \(results[0])")
        #expect(try Set(listed(two)) == Set(packs + [comic]), "v2: \(results[1])")
        #expect(
            one["hasMore"] as? Bool == false && one["revision"] as? String != nil
                && one["bundleId"] as? String == "com.storefront.comics", "\(one)")
        #expect(results[2]["status"] as? Int == 404 && results[2]["errorCode"] as? Int == 4_040_010, "\(results[2])")
        let signed = (one["signedTransactions"] as? [String] ?? []).map { ("transaction", $0) }
        let verified = try await AppleVerifier.verify(signed, session: session, bundleID: "com.storefront.comics")
        #expect(verified.count == 2 && verified.allSatisfy { $0.ok }, "\(verified.map { $0.status ?? "ok" })")
    }

    @Test(
        "O7 a consumable's refund request: CONSUMPTION_REQUEST reaches the receiver and verifies; Apple's client sends consumption information (v1 and v2) and every bad field gets Apple's code; approved, REFUND and the refund history lists it"
    )
    func consumptionRequest() async throws {
        let receiver = try await Receiver()
        let session = try await Session()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("ann")
        let pack = try #require(try await session.object(["buy", "com.storefront.randomviews"])["id"] as? String)
        let comic = try #require(try await session.object(["buy", "com.storefront.comic.nightshift"])["id"] as? String)
        try await session.run(["refund-request", pack, "--reason", "not-received"]).expectSuccess()
        let key = try await makeKey(session)
        let server = try await Server(session)
        let results = try await call(
            server, key, bundleID: "com.storefront.comics",
            [
                ["call": "consumption_v1", "id": pack, "consented": false],
                ["call": "consumption_v1", "id": comic],
                ["call": "consumption_v1", "id": "2999999999999999"],
                ["call": "consumption", "id": comic],
                [
                    "call": "raw", "method": "PUT", "path": "/inApps/v1/transactions/consumption/\(pack)", "auth": true,
                    "headers": ["Content-Type": "application/json"],
                    "body": #"{"customerConsented":true,"sampleContentProvided":false,"consumptionStatus":9}"#,
                ],
                [
                    "call": "raw", "method": "PUT", "path": "/inApps/v2/transactions/consumption/\(pack)", "auth": true,
                    "headers": ["Content-Type": "application/json"],
                    "body": #"{"customerConsented":true,"sampleContentProvided":"no","deliveryStatus":"DELIVERED"}"#,
                ],
                ["call": "consumption_v1", "id": pack, "status": 2],
                [
                    "call": "consumption", "id": pack, "delivery": "UNDELIVERED_SERVER_OUTAGE", "percentage": 25000,
                    "preference": "GRANT_FULL",
                ],
            ])
        #expect(
            results.map { $0["errorCode"] as? Int } == [
                4_000_035, 4_000_043, 4_040_010, 4_000_000, 4_000_034, 4_000_041, nil, nil,
            ], "\(results)")
        #expect(results.suffix(2).allSatisfy { $0["ok"] as? Bool == true }, "\(results)")
        let request = try #require(
            (try await session.object(["refund-request", "list"])["requests"] as? [[String: Any]])?.first)
        // Both answers are kept on the receipt; the request shows one of them (they came in one second).
        #expect(
            (request["consumptionInfo"] as? String)?.contains(#""customerConsented":true"#) == true
                && request["state"] as? String == "pending", "\(request)")
        try await session.run(["refund-request", "approve", pack]).expectSuccess()
        let refunds = try await call(server, key, bundleID: "com.storefront.comics", [["call": "refunds", "id": pack]])
        let refunded = try (result(refunds[0])["signedTransactions"] as? [String] ?? []).map {
            try JWS.decode($0).payload["transactionId"] as? String
        }
        #expect(refunded == [pack], "\(refunds)")
        _ = try await server.stop()
        let verified = try await AppleVerifier.verify(
            receiver.payloads.map { ("notification", $0) }, session: session, bundleID: "com.storefront.comics")
        #expect(verified.allSatisfy { $0.ok })
        let types = verified.map { $0.decoded["notificationType"] as? String ?? "" }
        #expect(types == ["ONE_TIME_CHARGE", "ONE_TIME_CHARGE", "CONSUMPTION_REQUEST", "REFUND"], "\(types)")
        let data = try #require(verified[2].decoded["data"] as? [String: Any])
        #expect(data["consumptionRequestReason"] as? String == "FULFILLMENT_ISSUE", "\(data)")
    }
}

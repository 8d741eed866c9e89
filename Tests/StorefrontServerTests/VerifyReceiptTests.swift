// V10 in-process: verifyReceipt's statuses, each for its case, and the shape of a valid answer.
// (EndToEndTests/VerifyReceiptTests validates a year of Selfies plans over HTTP with a PyPI client,
// and compares each transaction with Get Transaction Info as Apple's library decodes it.)
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel
@testable import StorefrontServer

@Suite("verifyReceipt, in-process")
struct VerifyReceiptTests {
    static let secret = "0123456789abcdef0123456789abcdef"

    func fixture() throws -> ServerAPITests.Fixture {
        try ServerAPITests.Fixture(catalog: selfiesCatalog, passwordAccepted: { $0 == Self.secret })
    }

    /// The answer to `body` posted to `path`, as JSON.
    func post(_ api: ServerAPI, _ body: Any, path: String = "/verifyReceipt") async throws -> [String: Any] {
        let data = try body as? Data ?? JSONSerialization.data(withJSONObject: body)
        let response = try await api.respond(to: APIRequest(method: "POST", path: path, body: data))
        #expect(response.status == 200, "verifyReceipt answers HTTP 200 whatever its status")
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    func receipt(_ store: Store) throws -> String { try store.signed.appReceipt().base64EncodedString() }

    @Test("V10 each status comes back for its case: 21000, 21002, 21003, 21004, 21005, 21007, 21008, 21009, 21010")
    func statuses() async throws {
        let fixture = try fixture()
        let api = fixture.api
        try fixture.store.queue.buy("allaccess.monthly")
        let receipt = try receipt(fixture.store)
        let get = try await api.respond(to: APIRequest(method: "GET", path: "/verifyReceipt"))
        #expect(try JSONSerialization.jsonObject(with: get.body) as? [String: Int] == ["status": 21000])
        #expect(try await post(api, Data("receipt-data=abc".utf8))["status"] as? Int == 21000)
        #expect(try await post(api, ["password": Self.secret])["status"] as? Int == 21002)
        #expect(try await post(api, ["receipt-data": "not base64 at all!"])["status"] as? Int == 21002)
        #expect(
            try await post(api, ["receipt-data": Data("a receipt, surely".utf8).base64EncodedString()])["status"]
                as? Int == 21002)
        // Another state folder's receipt: another certificate authority signed it.
        let stranger = TemporaryState()
        let other = try stranger.signedIn("eve", catalog: selfiesCatalog)
        #expect(try await post(api, ["receipt-data": try self.receipt(other)])["status"] as? Int == 21003)
        // The shared secret: wrong is 21004 on a receipt with auto-renewables, right is 0.
        #expect(try await post(api, ["receipt-data": receipt, "password": "wrong"])["status"] as? Int == 21004)
        #expect(try await post(api, ["receipt-data": receipt, "password": Self.secret])["status"] as? Int == 0)
        // Apple's two hosts: this store's receipts are Sandbox ones.
        #expect(
            try await post(api, ["receipt-data": receipt], path: "/production/verifyReceipt")["status"] as? Int == 21007
        )
        #expect(try await post(api, ["receipt-data": receipt], path: "/sandbox/verifyReceipt")["status"] as? Int == 0)
        var identity = try fixture.store.signed.identity()
        identity.environment = .production
        try fixture.store.signed.setIdentity(identity)
        let production = try self.receipt(fixture.store)
        #expect(
            try await post(api, ["receipt-data": production], path: "/sandbox/verifyReceipt")["status"] as? Int == 21008
        )
        #expect(
            try await post(api, ["receipt-data": production], path: "/production/verifyReceipt")["status"] as? Int == 0)
        // /verifyReceipt answers for the store's own environment, now Production.
        #expect(try await post(api, ["receipt-data": receipt])["status"] as? Int == 21007)
        #expect(try await post(api, ["receipt-data": production])["status"] as? Int == 0)
        // The simulated errors of a service that cannot answer now.
        for status in ["21005", "21009"] {
            try fixture.store.settings.setSimulatedError(
                SimulatedError(type: "VerifyReceipt.Status", name: status), for: .verifyReceipt)
            #expect(try await post(api, ["receipt-data": production])["status"] as? Int == Int(status))
        }
        try fixture.store.settings.setSimulatedError(nil, for: .verifyReceipt)
        // A server whose records do not hold the receipt's customer, under the same authority.
        let empty = TemporaryState()
        let emptyStore = try empty.store(catalog: selfiesCatalog)
        let elsewhere = ServerAPI(
            server: emptyStore.records, catalog: selfiesCatalog, authority: try fixture.store.signed.authority(),
            clock: empty.clock
        )
        #expect(
            try await post(elsewhere, ["receipt-data": receipt], path: "/sandbox/verifyReceipt")["status"] as? Int
                == 21010)
    }

    @Test(
        "V10 without auto-renewables the password is not checked; without a password the answer has no latest_receipt_info"
    )
    func password() async throws {
        let fixture = try fixture()
        try fixture.store.queue.buy("comic.a")
        let oneTime = try await post(fixture.api, ["receipt-data": try receipt(fixture.store), "password": "wrong"])
        #expect(oneTime["status"] as? Int == 0)
        #expect((oneTime["receipt"] as? [String: Any])?["in_app"].map { ($0 as? [Any])?.count } == 1)
        try fixture.store.queue.buy("allaccess.monthly")
        let withoutPassword = try await post(fixture.api, ["receipt-data": try receipt(fixture.store)])
        #expect(withoutPassword["status"] as? Int == 0)
        #expect(
            withoutPassword["latest_receipt_info"] == nil && withoutPassword["pending_renewal_info"] == nil
                && withoutPassword["latest_receipt"] == nil)
    }

    @Test(
        "V10 latest_receipt_info is newest first with Apple's date strings; exclude-old-transactions keeps each plan's newest; a purchase a moment ago is in the next answer"
    )
    func latest() async throws {
        let fixture = try fixture()
        let store = fixture.store
        let bought = try store.queue.buy("allaccess.monthly")
        let receipt = try receipt(store)
        fixture.state.clock.set(utc(2026, 3, 20, 12))
        _ = try store.plans.subscriptions()
        let answer = try await post(fixture.api, ["receipt-data": receipt, "password": Self.secret])
        let latest = try #require(answer["latest_receipt_info"] as? [[String: Any]])
        #expect(latest.count == 3, "the trial week and two paid months: \(latest.map { $0["purchase_date"] ?? "" })")
        let purchases = latest.compactMap { ($0["purchase_date_ms"] as? String).flatMap { Int64($0) } }
        #expect(purchases == purchases.sorted(by: >))
        let first = try #require(latest.last)
        #expect(first["transaction_id"] as? String == bought.id && first["is_trial_period"] as? String == "true")
        #expect(first["purchase_date"] as? String == "2026-01-15 12:00:00 Etc/GMT")
        #expect(first["purchase_date_pst"] as? String == "2026-01-15 04:00:00 America/Los_Angeles")
        #expect(first["purchase_date_ms"] as? String == String(SignedUnits.milliseconds(utc(2026, 1, 15, 12))))
        #expect(Set(latest.compactMap { $0["original_transaction_id"] as? String }) == [bought.id])
        #expect(
            latest.allSatisfy {
                $0["quantity"] as? String == "1" && $0["subscription_group_identifier"] as? String == "selfies"
            })
        // The receipt as it was posted lists the purchase it held, as the store has it now.
        let app = try #require(answer["receipt"] as? [String: Any])
        #expect((app["in_app"] as? [[String: Any]])?.map { $0["transaction_id"] as? String } == [bought.id])
        #expect(app["receipt_type"] as? String == "ProductionSandbox" && answer["environment"] as? String == "Sandbox")
        let renewal = try #require((answer["pending_renewal_info"] as? [[String: Any]])?.first)
        #expect(
            renewal["auto_renew_status"] as? String == "1" && renewal["original_transaction_id"] as? String == bought.id
        )
        let newest = try await post(
            fixture.api, ["receipt-data": receipt, "password": Self.secret, "exclude-old-transactions": true])
        #expect(
            (newest["latest_receipt_info"] as? [[String: Any]])?.map { $0["transaction_id"] as? String } == [
                latest[0]["transaction_id"] as? String
            ])
        // latest_receipt is a receipt this server validates, with the same transactions.
        let again = try await post(
            fixture.api, ["receipt-data": try #require(answer["latest_receipt"] as? String), "password": Self.secret])
        #expect((again["receipt"] as? [String: Any])?["in_app"].map { ($0 as? [Any])?.count } == 3)
        // A purchase made a moment ago shows in the next answer, from the same old receipt.
        let comic = try store.queue.buy("comic.a")
        let after = try await post(fixture.api, ["receipt-data": receipt, "password": Self.secret])
        #expect((after["latest_receipt_info"] as? [[String: Any]])?.first?["transaction_id"] as? String == comic.id)
    }
}

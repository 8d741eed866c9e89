// V1–V5 in-process: the App Store Server API's routes answered without a socket — tokens checked
// as Apple's, paging tokens, filters, Apple's error codes, and nothing changed by a refusal.
// (EndToEndTests/ServeTests drives the same routes over HTTP with Apple's Python client.)
import Crypto
import Foundation
import NIOCore
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel
@testable import StorefrontServer

@Suite("App Store Server API, in-process")
struct ServerAPITests {
    @Test(
        "N6 V3 a delivery attempt's sendAttemptResult comes from the kind of failure, not its words; an attempt recorded before the kind was kept, from its fixed words",
        arguments: [
            (DeliveryAttempt(at: Date(), status: 200), "SUCCESS"),
            (DeliveryAttempt(at: Date(), status: 500), "UNSUCCESSFUL_HTTP_RESPONSE_CODE"),
            (DeliveryAttempt(at: Date(), problem: .timedOut(seconds: 2, connecting: false)), "TIMED_OUT"),
            (DeliveryAttempt(at: Date(), problem: .refused), "NO_RESPONSE"),
            (DeliveryAttempt(at: Date(), problem: .unresolved(host: "x")), "NO_RESPONSE"),
            (DeliveryAttempt(at: Date(), problem: .closed), "PREMATURE_CLOSE"),
            (DeliveryAttempt(at: Date(), problem: .untrusted), "TLS_ISSUE"),
            (DeliveryAttempt(at: Date(), problem: .failed("timed out, they said")), "OTHER"),
            (DeliveryAttempt(at: Date(), error: "timed out after 2 s waiting for an answer"), "TIMED_OUT"),
            (DeliveryAttempt(at: Date(), error: "Connection refused"), "NO_RESPONSE"),
            (DeliveryAttempt(at: Date(), error: "something else"), "OTHER"),
        ]
    )
    func sendAttemptResult(attempt: DeliveryAttempt, result: String) async throws {
        #expect(ServerAPI.result(attempt) == result)
        // The kind is kept with the attempt: it reads back as it was written.
        let stored = try JSONDecoder().decode(DeliveryAttempt.self, from: try JSONEncoder().encode(attempt))
        #expect(stored == attempt)
    }

    struct Fixture {
        let state = TemporaryState()
        let store: Store
        let api: ServerAPI
        let key: P256.Signing.PrivateKey
        let keyring: APIKeyring

        init(
            purchases: Int = 0, catalog: Catalog = testCatalog, backend: Backend = .sqlite,
            passwordAccepted: @escaping @Sendable (String) -> Bool = { _ in false }
        ) throws {
            state.server = try backend.server(state)
            state.clock.set(utc(2026, 1, 15, 12))
            store = try state.signedIn("ann", catalog: catalog)
            for _ in 0..<purchases { try store.queue.buy("pack") }
            key = P256.Signing.PrivateKey()
            var keyring = APIKeyring(issuerID: "issuer-1")
            keyring.keys = [APIKey(keyID: "KEY0000001", publicKey: key.publicKey.x963Representation, createdAt: Date())]
            try store.server.setAPIKeyring(keyring)
            self.keyring = keyring
            let store = store
            api = ServerAPI(
                server: store.records, catalog: store.catalog, authority: try store.signed.authority(),
                clock: store.clock,
                realNow: { Date(timeIntervalSince1970: 1_800_000_000) }, passwordAccepted: passwordAccepted
            )
        }

        /// A token as Apple's client makes one (no iat), with any field overridden.
        func token(kid: String = "KEY0000001", signer: P256.Signing.PrivateKey? = nil, _ overrides: [String: Any] = [:])
            throws -> String
        {
            var payload: [String: Any] = [
                "iss": "issuer-1", "aud": "appstoreconnect-v1", "bid": AppIdentity.defaultBundleID,
                "exp": 1_800_000_300,
            ]
            for (name, value) in overrides { payload[name] = value }
            var input = Base64URL.encode(
                CompactJSON.encode(["alg": "ES256", "kid": kid, "typ": "JWT"] as [String: Any]))
            input.append(UInt8(ascii: "."))
            input += Base64URL.encode(CompactJSON.encode(payload))
            let signature = try (signer ?? key).signature(for: input)
            input.append(UInt8(ascii: "."))
            input += Base64URL.encode(signature.rawRepresentation)
            return "Bearer " + String(decoding: input, as: UTF8.self)
        }

        func get(_ path: String, _ query: [(String, String)] = [], authorization: String? = nil) async throws -> (
            Int, [String: Any]
        ) {
            let response = try await api.respond(
                to: APIRequest(method: "GET", path: path, query: query, authorization: try authorization ?? token()))
            return (response.status, (try JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:])
        }
    }

    @Test(
        "V2 a token is refused unless a key the store made signed it, for this issuer, audience and bundle, unexpired")
    func tokens() async throws {
        let fixture = try Fixture(purchases: 1)
        let id = try #require(try fixture.store.queue.history().first?.id)
        let path = "/inApps/v1/transactions/\(id)"
        #expect(try await fixture.get(path).0 == 200)
        var keyring = fixture.keyring
        let refused: [(String, String?)] = [
            ("none", "none"), ("not a JWT", "Bearer x.y"), ("unknown key", try fixture.token(kid: "NOPE000000")),
            ("another key's signature", try fixture.token(signer: P256.Signing.PrivateKey())),
            ("issuer", try fixture.token(["iss": "someone"])), ("audience", try fixture.token(["aud": "elsewhere"])),
            ("bundle", try fixture.token(["bid": "com.example.other"])),
            ("expired", try fixture.token(["exp": 1_799_999_999])),
            ("issued in the future", try fixture.token(["iat": 1_800_001_000])),
        ]
        for (what, header) in refused {
            let (status, body) = try await fixture.get(path, authorization: header == "none" ? "" : header)
            #expect(status == 401 && body["errorMessage"] is String, "\(what): \(status)")
        }
        // O2: a subscription-offer key signs promotional offers, never API tokens.
        keyring.keys[0].type = .subscriptionOffer
        try fixture.store.server.setAPIKeyring(keyring)
        let (offerKeyStatus, offerKeyBody) = try await fixture.get(path)
        #expect(
            offerKeyStatus == 401
                && (offerKeyBody["errorMessage"] as? String)?.contains("subscription-offer key") == true)
        keyring.keys[0].type = nil
        keyring.keys[0].revoked = true
        try fixture.store.server.setAPIKeyring(keyring)
        #expect(try await fixture.get(path).0 == 401, "revoked")
    }

    @Test("V3 history pages by 20 with revision tokens, filters, sorts; bad input gets Apple's codes; nothing changes")
    func historyPaging() async throws {
        let fixture = try Fixture(purchases: 45)
        let ids = try fixture.store.queue.history().map(\.id)
        let receiptBefore = try fixture.store.server.receipt(account: "ann")
        var revision: String?
        var pages: [Int] = []
        var seen: [String] = []
        repeat {
            let (status, body) = try await fixture.get(
                "/inApps/v2/history/\(ids[0])", revision.map { [("revision", $0)] } ?? [])
            #expect(status == 200)
            let signed = body["signedTransactions"] as? [String] ?? []
            pages.append(signed.count)
            seen += try signed.map { try JWS.decode($0).payload["transactionId"] as? String ?? "" }
            revision = body["hasMore"] as? Bool == true ? body["revision"] as? String : nil
        } while revision != nil
        let inOrder = receiptBefore.map(\.transactionID)
        #expect(Set(ids) == Set(inOrder))
        #expect(
            pages == [20, 20, 5] && seen == inOrder,
            "every transaction once, in the receipt's order (purchase date, then id)")
        let (_, descending) = try await fixture.get("/inApps/v2/history/\(ids[0])", [("sort", "DESCENDING")])
        #expect(
            try JWS.decode((descending["signedTransactions"] as? [String])?.first ?? "").payload["transactionId"]
                as? String == inOrder.last)
        let (_, none) = try await fixture.get("/inApps/v2/history/\(ids[0])", [("productType", "AUTO_RENEWABLE")])
        #expect((none["signedTransactions"] as? [String])?.isEmpty == true)
        let codes: [([(String, String)], Int)] = [
            ([("revision", "garbage")], 4_000_005), ([("productType", "SOMETHING")], 4_000_022),
            ([("sort", "SIDEWAYS")], 4_000_021),
            ([("startDate", "2"), ("endDate", "1")], 4_000_013), ([("startDate", "yesterday")], 4_000_015),
            ([("revoked", "maybe")], 4_000_030),
            ([("inAppOwnershipType", "BORROWED")], 4_000_026),
        ]
        for (query, code) in codes {
            let (status, body) = try await fixture.get("/inApps/v2/history/\(ids[0])", query)
            #expect(status == 400 && body["errorCode"] as? Int == code, "\(query)")
        }
        #expect(try await fixture.get("/inApps/v2/history/abc").1["errorCode"] as? Int == 4_000_006)
        #expect(try await fixture.get("/inApps/v2/history/2123456789012345").1["errorCode"] as? Int == 4_040_010)
        #expect(try await fixture.get("/inApps/v9/elsewhere").0 == 404)
        #expect(try fixture.store.server.receipt(account: "ann") == receiptBefore)
    }

    @Test("V5 a body over 1 MB is refused before anything else")
    func bodyLimit() async throws {
        let fixture = try Fixture()
        let response = try await fixture.api.respond(
            to: APIRequest(
                method: "POST", path: "/inApps/v1/notifications/history", authorization: try fixture.token(),
                body: Data(count: ServerAPI.maximumBody + 1)
            ))
        #expect(response.status == 413)
        #expect(
            (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["errorCode"] as? Int == 4_000_163
        )
    }

    @Test(
        "V1 an answer is kept only while nothing changed: a purchase here or by another connection, or time, shows at once"
    )
    func keptAnswers() async throws {
        let fixture = try Fixture(purchases: 1)
        let id = try #require(try fixture.store.queue.history().first?.id)
        let request = APIRequest(method: "GET", path: "/inApps/v2/history/\(id)", authorization: try fixture.token())
        func transactions() async throws -> [String] {
            let body = try #require(
                try JSONSerialization.jsonObject(with: try await fixture.api.respond(to: request).body)
                    as? [String: Any])
            return try #require(body["signedTransactions"] as? [String])
        }
        // ES256 signatures differ every time they are made: the same bytes twice mean a kept answer.
        let first = try await transactions()
        #expect(try await transactions() == first)
        try fixture.store.queue.buy("pack")
        #expect(try await transactions().count == 2, "a purchase through the same account server")
        let tablet = try fixture.state.signedIn("ann", device: "tablet")
        try tablet.queue.buy("pack")
        #expect(try await transactions().count == 3, "a purchase through another connection to the same file")
        let kept = try await transactions()
        #expect(try await transactions() == kept)
        fixture.state.clock.advance(seconds: 1)
        let later = try await transactions()
        #expect(later.count == 3 && later != kept, "signed again a second of store time later")
    }

    @Test("V1 a kept answer ends when one of the customer's plans renews, even within its second")
    func keptAnswerEndsAtRenewal() async throws {
        let fixture = try Fixture(catalog: selfiesCatalog)
        let plan = try fixture.store.queue.buy("allaccess")
        nonisolated(unsafe) let store = fixture.store
        let api = ServerAPI(
            server: store.records, catalog: store.catalog, authority: try store.signed.authority(), clock: store.clock,
            realNow: { Date(timeIntervalSince1970: 1_800_000_000) },
            settle: { account in _ = try? store.plans.settle(account: account) }
        )
        let request = APIRequest(
            method: "GET", path: "/inApps/v2/history/\(plan.id)", authorization: try fixture.token())
        func count() async throws -> Int {
            let body = try #require(
                try JSONSerialization.jsonObject(with: try await api.respond(to: request).body) as? [String: Any])
            return try #require(body["signedTransactions"] as? [String]).count
        }
        fixture.state.clock.set(utc(2026, 1, 22, 11, 59, 59))
        #expect(try await count() == 1)
        fixture.state.clock.set(utc(2026, 1, 22, 12))
        #expect(try await count() == 2, "the weekly renewal")
        // Within the second: cut at the plan's next date; not kept while it is due or in billing retry.
        var state = try #require(try store.server.plans(account: "ann")["selfies"])
        let now = state.expiresDate.addingTimeInterval(-0.4)
        #expect(AnswerCache.until(now: now, plans: [state]) == state.expiresDate)
        #expect(AnswerCache.until(now: state.expiresDate, plans: [state]) == nil)
        #expect(AnswerCache.until(now: now.addingTimeInterval(-10), plans: [state]) == now.addingTimeInterval(-9))
        state.billingFailedAt = now
        #expect(AnswerCache.until(now: now, plans: [state]) == nil)
    }
}

extension ServerAPITests {
    @Test(
        "M1 a performance test a stopped server never finished is given up on after a minute of real time: its results say FAIL, and a new test may start"
    )
    func abandonedPerformanceTest() async throws {
        let fixture = try Fixture()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let stale = PerformanceTestRun(
            requestID: "6f1c2e3d-4b5a-4c6d-8e7f-8091a2b3c4d5", originalTransactionID: "1",
            target: "http://127.0.0.1:9/x", startedAt: now.addingTimeInterval(-61))
        var fresh = stale
        fresh.requestID = "7f1c2e3d-4b5a-4c6d-8e7f-8091a2b3c4d5"
        fresh.startedAt = now.addingTimeInterval(-5)
        try fixture.store.server.changeRetention { (setup: inout RetentionSetup) in
            setup.performanceTests = [stale, fresh]
        }
        let (status, body) = try await fixture.get("/inApps/v1/messaging/performanceTest/result/\(stale.requestID)")
        #expect(
            status == 200 && body["result"] as? String == "FAIL"
                && (body["failures"] as? [String: Any])?["OTHER"] as? Int == 20, "\(body)")
        let (_, running) = try await fixture.get("/inApps/v1/messaging/performanceTest/result/\(fresh.requestID)")
        #expect(running["result"] as? String == "PENDING" && running["numPending"] as? Int == 20, "\(running)")
        #expect(stale.isRunning(at: now) == false && fresh.isRunning(at: now))
    }
}

extension ServerAPITests {
    @Test(
        "N1 V3 a plan's notification signed after its period ended and before anything settled says the status a read would: the courier and the history settle the renewal first"
    )
    func signedAfterSettling() async throws {
        let fixture = try Fixture(catalog: selfiesCatalog)
        _ = try fixture.store.queue.buy("allaccess")
        nonisolated(unsafe) let store = fixture.store
        let settle: @Sendable (String) -> Void = { account in _ = try? store.plans.settle(account: account) }
        let api = ServerAPI(
            server: store.records, catalog: store.catalog, authority: try store.signed.authority(), clock: store.clock,
            realNow: { Date(timeIntervalSince1970: 1_800_000_000) }, settle: settle)
        let bought = try #require(try store.server.notifications(account: "ann").first { $0.type == "SUBSCRIBED" })
        #expect(bought.signedPayload == nil)
        func status(_ signed: String) throws -> Int? {
            (try JWS.decode(signed).payload["data"] as? [String: Any])?["status"] as? Int
        }
        // The weekly period ended at noon; the store clock moved on and nobody has read since.
        fixture.state.clock.set(utc(2026, 1, 22, 13))
        #expect(try store.server.notifications(account: "ann").contains { $0.type == "DID_RENEW" } == false)
        let history = try api.historyItem(bought).signedPayload
        #expect(try status(history) == 1, "Notification History signs it as Get All Subscription Statuses reads")
        #expect(try store.server.notifications(account: "ann").contains { $0.type == "DID_RENEW" })
        // The courier, a week on: past the next period's end, again before anything settled.
        fixture.state.clock.set(utc(2026, 1, 29, 13))
        let courier = try store.notifications.courier(settle: settle)
        #expect(try status(try courier.signedPayload(bought)) == 1, "the courier signs it as a read would")
        #expect(try store.server.notifications(account: "ann").filter { $0.type == "DID_RENEW" }.count == 2)
    }
}

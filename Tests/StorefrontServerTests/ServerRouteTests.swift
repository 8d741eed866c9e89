// V1–V7 through Hummingbird's own testing module: the routes of `storefront serve` as the HTTP
// server answers them (the same responder the program runs), without a socket. EndToEndTests/
// ServeTests drives the running program with Apple's Python client.
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StoreCore
import StoreModel
import TestSupport
import Testing

@testable import StorefrontServer

@Suite("storefront serve's routes, through HummingbirdTesting", .tags(.postgres), .notInFastRun)
struct ServerRouteTests {
    struct Fixture: @unchecked Sendable {
        let state = TemporaryState()
        let store: Store
        let served: ServedStore
        let key = P256.Signing.PrivateKey()
        let app: any ApplicationProtocol
        /// Real time as the server sees it for tokens: frozen when the fixture is made.
        let realNow = Date()

        /// Ann with a weekly plan bought on 15 January 2026 and 25 renewals since.
        init(backend: Backend, logger: Logger = Logger(label: "test")) throws {
            state.clock.set(utc(2026, 1, 15, 12))
            let factory = try StoreFactory(
                stateDirectory: state.directory, catalog: selfiesCatalog, calendar: utcCalendar,
                time: .manual(state.clock), server: try backend.server(state)
            )
            factory.passwordHasher = .fastForTests
            store = try factory.open(device: "phone")
            try store.accounts.signUp("ann", password: "secret")
            try store.queue.buy("allaccess")
            state.clock.set(utc(2026, 7, 10, 13))
            try store.server.setAPIKeyring(
                APIKeyring(
                    issuerID: "issuer-1",
                    keys: [APIKey(keyID: "KEY0000001", publicKey: key.publicKey.x963Representation, createdAt: Date())]
                ))
            // Tokens are checked against a frozen real time, so that a slow machine cannot outlive them.
            let realNow = self.realNow
            served = try ServedStore(factory: factory, realNow: { realNow }, logger: logger)
            app = try ServerApplication.make(served: served, host: "127.0.0.1", port: 0, logger: Logger(label: "test"))
        }

        /// A bearer token as Apple's client makes one (no iat), any claim overridden.
        func token(kid: String = "KEY0000001", _ overrides: [String: Any] = [:]) throws -> String {
            var claims: [String: Any] = [
                "iss": "issuer-1", "aud": "appstoreconnect-v1", "bid": AppIdentity.defaultBundleID,
                "exp": Int(realNow.timeIntervalSince1970) + 600,
            ]
            for (name, value) in overrides { claims[name] = value }
            let input =
                JWS.base64URL(Data(#"{"alg":"ES256","kid":"\#(kid)","typ":"JWT"}"#.utf8)) + "."
                + JWS.base64URL(try JSONSerialization.data(withJSONObject: claims))
            return "Bearer \(input).\(JWS.base64URL(try key.signature(for: Data(input.utf8)).rawRepresentation))"
        }

        /// The first transaction of the plan (its original id).
        var original: String { get throws { try #require(try store.queue.history().last?.id) } }
    }

    struct Answer {
        var status: Int
        var contentType: String?
        var json: [String: Any]
    }

    static func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, token: String?, body: Data? = nil
    ) async throws -> Answer {
        var headers = HTTPFields()
        if let token { headers[.authorization] = token }
        let response = try await client.execute(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        return Answer(status: Int(response.status.code), contentType: response.headers[.contentType], json: json)
    }

    @Test(
        "V1 V5 the routes are Hummingbird's: the router holds each route of every area of Apple's API and the account server's path, nothing more (no benchmark's), and each answers Apple's 401 to a call without a token"
    )
    func routesEnumerated() async throws {
        let fixture = try Fixture(backend: .sqlite)
        let router = ServerApplication.router(served: fixture.served, logger: Logger(label: "test"))
        let held = Set(router.routes.map { "\($0.method) \($0.path)" })
        var expected = Set(
            ServerAPI.areas.flatMap { area in
                area.routes.map { "\($0.method) \(RouterPath(area.group + "/" + $0.path))" }
            })
        expected.insert("POST \(RouterPath(AccountService.path))")
        // verifyReceipt at its three paths, which take the shared secret, never a token.
        let receiptPaths = Set(ReceiptHost.allCases.map { "\(RouterPath($0.rawValue))" })
        for path in receiptPaths { expected.formUnion(["GET \(path)", "POST \(path)"]) }
        #expect(
            held == expected,
            "held but not declared: \(held.subtracting(expected)); declared but not held: \(expected.subtracting(held))"
        )
        #expect(!held.contains { $0.contains("fixed") })
        let unguarded = receiptPaths.union(["\(RouterPath(AccountService.path))"])
        let calls = router.routes.filter { !unguarded.contains("\($0.path)") }.map { route in
            let uri =
                "/"
                + route.path.components.map { component -> String in
                    let text = "\(component)"
                    return text.hasPrefix(":") || text.hasPrefix("{") ? "2000000000000001" : text
                }.joined(separator: "/")
            return (route.method, uri)
        }
        try await fixture.app.test(.router) { client in
            for (method, uri) in calls {
                let answer = try await Self.call(client, method, uri, token: nil, body: Data("{}".utf8))
                #expect(
                    answer.status == 401 && answer.json["errorCode"] as? Int == 4_010_000,
                    "\(method) \(uri): \(answer.status) \(answer.json)")
            }
            for path in receiptPaths {
                let get = try await Self.call(client, .get, "/\(path)", token: nil)
                let post = try await Self.call(client, .post, "/\(path)", token: nil, body: Data("{}".utf8))
                #expect(
                    get.json["status"] as? Int == 21000 && post.json["status"] as? Int == 21002,
                    "\(path): \(get.json) \(post.json)")
            }
        }
    }

    @Test(
        "V1 V3 V4 every route answers with Apple's shapes: history paged, statuses, an extension seen by the next status read, test notifications, refunds",
        arguments: Backend.allCases)
    func routes(backend: Backend) async throws {
        let fixture = try Fixture(backend: backend)
        let token = try fixture.token()
        let original = try fixture.original
        try await fixture.app.test(.router) { client in
            let info = try await Self.call(client, .get, "/inApps/v1/transactions/\(original)", token: token)
            #expect(info.status == 200 && info.contentType == "application/json")
            #expect((info.json["signedTransactionInfo"] as? String)?.split(separator: ".").count == 3)

            var seen: [String] = []
            var revision: String?
            repeat {
                let query = revision.map { "?revision=\($0)" } ?? ""
                let page = try await Self.call(client, .get, "/inApps/v2/history/\(original)\(query)", token: token)
                try #require(page.status == 200)
                seen += try #require(page.json["signedTransactions"] as? [String])
                revision = page.json["hasMore"] as? Bool == true ? page.json["revision"] as? String : nil
            } while revision != nil
            #expect(seen.count == 26, "the purchase and 25 weekly renewals, over two pages")
            #expect(Set(seen).count == seen.count)

            let statuses = try await Self.call(client, .get, "/inApps/v1/subscriptions/\(original)", token: token)
            let group = try #require((statuses.json["data"] as? [[String: Any]])?.first)
            #expect(group["subscriptionGroupIdentifier"] as? String == "selfies")
            let before = try #require(try fixture.store.server.plans(account: "ann")["selfies"]).expiresDate

            let terms = try JSONSerialization.data(withJSONObject: [
                "extendByDays": 7, "extendReasonCode": 1, "requestIdentifier": "r-1",
            ])
            let extended = try await Self.call(
                client, .put, "/inApps/v1/subscriptions/extend/\(original)", token: token, body: terms)
            #expect(extended.status == 200 && extended.json["success"] as? Bool == true)
            let after = try #require(try fixture.store.server.plans(account: "ann")["selfies"]).expiresDate
            #expect(after == before.addingTimeInterval(7 * 86_400))
            #expect(extended.json["effectiveDate"] as? Int64 == SignedUnits.milliseconds(after))
            let renewalInfo = try #require(
                ((try await Self.call(client, .get, "/inApps/v1/subscriptions/\(original)", token: token).json["data"]
                    as? [[String: Any]])?.first?["lastTransactions"] as? [[String: Any]])?.first?["signedRenewalInfo"]
                    as? String
            )
            let decoded = try JWS.decode(renewalInfo)
            #expect(
                (decoded.payload["renewalDate"] as? NSNumber)?.int64Value == SignedUnits.milliseconds(after),
                "the next status read shows the extension")
            #expect(try fixture.store.server.notifications(account: "ann").contains { $0.type == "RENEWAL_EXTENDED" })

            let mass = try JSONSerialization.data(withJSONObject: [
                "extendByDays": 3, "extendReasonCode": 2, "requestIdentifier": "mass-1", "productId": "allaccess",
            ])
            #expect(
                try await Self.call(client, .post, "/inApps/v1/subscriptions/extend/mass", token: token, body: mass)
                    .json["requestIdentifier"] as? String == "mass-1")
            let massStatus = try await Self.call(
                client, .get, "/inApps/v1/subscriptions/extend/mass/allaccess/mass-1", token: token)
            #expect(massStatus.json["complete"] as? Bool == true && massStatus.json["succeededCount"] as? Int == 1)

            let test = try await Self.call(client, .post, "/inApps/v1/notifications/test", token: token)
            let testToken = try #require(test.json["testNotificationToken"] as? String)
            let testStatus = try await Self.call(
                client, .get, "/inApps/v1/notifications/test/\(testToken)", token: token)
            #expect(testStatus.status == 200 && testStatus.json["signedPayload"] is String)

            let window = try JSONSerialization.data(withJSONObject: [
                "startDate": 0, "endDate": 4_000_000_000_000 as Int64,
            ])
            let history = try await Self.call(
                client, .post, "/inApps/v1/notifications/history", token: token, body: window)
            #expect((history.json["notificationHistory"] as? [Any])?.isEmpty == false)

            let refunds = try await Self.call(client, .get, "/inApps/v2/refund/lookup/\(original)", token: token)
            #expect(refunds.status == 200 && (refunds.json["signedTransactions"] as? [String])?.isEmpty == true)
        }
    }

    @Test(
        "V2 V5 V9 refusals have Apple's codes and Content-Type application/json exactly, and change nothing",
        arguments: Backend.allCases)
    func refusals(backend: Backend) async throws {
        let fixture = try Fixture(backend: backend)
        let original = try fixture.original
        let good = try fixture.token()
        let receipt = try fixture.store.server.receipt(account: "ann")
        let terms = try JSONSerialization.data(withJSONObject: [
            "extendByDays": 7, "extendReasonCode": 1, "requestIdentifier": "r-2",
        ])
        let now = Int(fixture.realNow.timeIntervalSince1970)
        let cases: [(String, HTTPRequest.Method, String, String?, Data?, Int, Int)] = [
            ("no token", .get, "/inApps/v1/transactions/\(original)", nil, nil, 401, 4_010_000),
            (
                "expired token", .get, "/inApps/v1/transactions/\(original)", try fixture.token(["exp": 1_000]), nil,
                401, 4_010_000
            ),
            (
                "unknown key", .get, "/inApps/v1/transactions/\(original)", try fixture.token(kid: "NOPE000000"), nil,
                401, 4_010_000
            ),
            (
                "exp 61 minutes ahead, no iat", .get, "/inApps/v1/transactions/\(original)",
                try fixture.token(["exp": now + 3_660]), nil, 401, 4_010_000
            ),
            (
                "exp 61 minutes after iat", .get, "/inApps/v1/transactions/\(original)",
                try fixture.token(["iat": now, "exp": now + 3_660]), nil, 401, 4_010_000
            ),
            (
                "no such mass extension", .get,
                "/inApps/v1/subscriptions/extend/mass/com.storefront.selfies.sub.allaccess/nothing", good, nil, 404,
                4_040_009
            ),
            (
                "another bundle", .put, "/inApps/v1/subscriptions/extend/\(original)",
                try fixture.token(["bid": "com.example.other"]), terms, 401, 4_010_000
            ),
            (
                "malformed JSON", .put, "/inApps/v1/subscriptions/extend/\(original)", good,
                Data("{\"extendByDays\":".utf8), 400, 4_000_000
            ),
            ("transaction id not numeric", .get, "/inApps/v2/history/abc", good, nil, 400, 4_000_006),
            ("no such transaction", .get, "/inApps/v1/transactions/2000000000000001", good, nil, 404, 4_040_010),
            (
                "body over 1 MB", .post, "/inApps/v1/notifications/history", good,
                Data(count: ServerAPI.maximumBody + 1), 413, 4_000_163
            ),
            ("unknown path", .get, "/inApps/v9/nowhere", good, nil, 404, 4_040_000),
        ]
        try await fixture.app.test(.router) { client in
            for (what, method, uri, token, body, status, code) in cases {
                let answer = try await Self.call(client, method, uri, token: token, body: body)
                #expect(answer.status == status, "\(what)")
                #expect(answer.json["errorCode"] as? Int == code, "\(what)")
                #expect(answer.contentType == "application/json", "\(what)")
            }
        }
        #expect(try fixture.store.server.receipt(account: "ann") == receipt)
    }

    @Test(
        "M3 on either database an app transaction id names its customer (history, statuses, app transaction info); one that names no account is 404; Finish Transaction and history v1 answer",
        arguments: Backend.allCases)
    func appTransactionID(backend: Backend) async throws {
        let fixture = try Fixture(backend: backend)
        let token = try fixture.token()
        let original = try fixture.original
        let appTransaction = try JWS.decode(try fixture.store.signed.appTransaction().jws).payload
        let id = try #require(appTransaction["appTransactionId"] as? String)
        try await fixture.app.test(.router) { client in
            let byTransaction = try await Self.call(client, .get, "/inApps/v2/history/\(original)", token: token)
            let byApp = try await Self.call(client, .get, "/inApps/v2/history/\(id)", token: token)
            func ids(_ answer: Answer) -> [String] {
                (answer.json["signedTransactions"] as? [String] ?? []).compactMap {
                    try? JWS.decode($0).payload["transactionId"] as? String
                }
            }
            #expect(
                byApp.status == 200 && ids(byApp).count == 20 && ids(byApp) == ids(byTransaction), "\(byApp.status)")
            let statuses = try await Self.call(client, .get, "/inApps/v1/subscriptions/\(id)", token: token)
            #expect(
                (statuses.json["data"] as? [[String: Any]])?.first?["subscriptionGroupIdentifier"] as? String
                    == "selfies", "\(statuses.json)")
            let app = try await Self.call(client, .get, "/inApps/v1/transactions/appTransactions/\(id)", token: token)
            let signed = try #require(app.json["signedAppTransactionInfo"] as? String)
            #expect(try JWS.decode(signed).payload["appTransactionId"] as? String == id)
            let nobody = try await Self.call(
                client, .get, "/inApps/v2/history/7\(String(id.dropFirst().reversed()))", token: token)
            #expect(nobody.status == 404 && nobody.json["errorCode"] as? Int == 4_040_010, "\(nobody)")
            let finished = try await Self.call(
                client, .post, "/inApps/v1/transactions/\(original)/finish", token: token)
            #expect(finished.status == 200)
            let one = try await Self.call(client, .get, "/inApps/v1/history/\(original)", token: token)
            #expect(
                one.status == 200 && (one.json["signedTransactions"] as? [String])?.count == 20
                    && one.json["hasMore"] as? Bool == true, "\(one.status)")
        }
    }

    @Test("V7 every request answered is listed for the screen, with its status", arguments: Backend.allCases)
    func requestsListed(backend: Backend) async throws {
        let fixture = try Fixture(backend: backend)
        let original = try fixture.original
        let token = try fixture.token()
        try await fixture.app.test(.router) { client in
            _ = try await Self.call(client, .get, "/inApps/v1/transactions/\(original)", token: token)
            _ = try await Self.call(client, .get, "/inApps/v1/transactions/\(original)", token: nil)
        }
        #expect(try fixture.store.server.recentRequests(limit: 10).isEmpty, "listed together, once a second")
        try fixture.served.listRequests()
        let listed = try fixture.store.server.recentRequests(limit: 10)
        #expect(listed.map(\.status) == [200, 401])
        #expect(listed.allSatisfy { $0.method == "GET" && $0.path == "/inApps/v1/transactions/\(original)" })
    }

    @Test(
        "a settle that fails before a read is logged, and the read answers from what is stored",
        arguments: Backend.allCases)
    func settleFailureLogged(backend: Backend) async throws {
        let lines = Locked<[String]>([])
        let fixture = try Fixture(backend: backend, logger: Logger(label: "test") { _ in KeptLog(lines: lines) })
        let original = try fixture.original
        let token = try fixture.token()
        // The 25 renewals are written, then the settle stops before the notifications it would add.
        fixture.served.store.crashPoints = { point throws(StoreError) in
            if point == .renewalsRecorded { throw StoreError.stopped(at: point) }
        }
        try await fixture.app.test(.router) { client in
            let info = try await Self.call(client, .get, "/inApps/v2/history/\(original)", token: token)
            #expect(info.status == 200)
            #expect(
                (info.json["signedTransactions"] as? [String])?.count == 20,
                "the first page of the purchase and its 25 renewals")
        }
        let logged = lines.withLock { $0 }
        #expect(logged.contains { $0.hasPrefix("settling ann's plans failed:") }, "logged: \(logged)")
        #expect(try fixture.store.server.receipt(account: "ann").count == 26)
    }

    @Test(
        "V3 a subscription is extended twice in 365 days at most (4030005); a repeated request adds nothing; a year on, again",
        arguments: Backend.allCases)
    func extensionLimit(backend: Backend) async throws {
        let fixture = try Fixture(backend: backend)
        let original = try fixture.original
        let token = try fixture.token()
        @Sendable func terms(_ request: String) throws -> Data {
            try JSONSerialization.data(withJSONObject: [
                "extendByDays": 1, "extendReasonCode": 0, "requestIdentifier": request,
            ])
        }
        let path = "/inApps/v1/subscriptions/extend/\(original)"
        try await fixture.app.test(.router) { client in
            #expect(try await Self.call(client, .put, path, token: token, body: terms("a")).status == 200)
            #expect(try await Self.call(client, .put, path, token: token, body: terms("b")).status == 200)
            let third = try await Self.call(client, .put, path, token: token, body: terms("c"))
            #expect(third.status == 403 && third.json["errorCode"] as? Int == 4_030_005)
            #expect(
                try await Self.call(client, .put, path, token: token, body: terms("a")).status == 200,
                "a repeat answers as the first did")
        }
        let lines = try fixture.store.server.receipt(account: "ann").filter { $0.event == .extend }
        #expect(lines.count == 2)
        fixture.state.clock.set(utc(2027, 7, 10, 14))
        let fourth = try terms("d")
        try await fixture.app.test(.router) { client async throws in
            // The plan renewed weekly all year: extensions a year old no longer count.
            #expect(try await Self.call(client, .put, path, token: token, body: fourth).status == 200)
        }
    }

    @Test("Apple's error codes: one table in the code (APIErrorCode), the same rows in docs/server-api.md")
    func errorTable() throws {
        let page = try String(
            contentsOf: TestTools.repositoryRoot.appendingPathComponent("docs/server-api.md"), encoding: .utf8)
        let rows = page.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.first(where: \.isNumber) != nil }
        for code in APIErrorCode.allCases {
            #expect(
                rows.contains { $0 == "| \(code.rawValue) | \(code.status) | \(code.meaning) |" },
                "docs/server-api.md lacks \(code) (\(code.rawValue))")
        }
        #expect(rows.count == APIErrorCode.allCases.count, "the page lists a code the server does not give")
    }
}

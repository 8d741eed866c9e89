// V1–V7 judged by Apple's own AppStoreServerAPIClient (Tests/Python/api_calls.py): `storefront
// serve` on a free port over a state folder the commands filled; every route, paging, filters,
// a test notification to a real receiver, every refusal with Apple's code, and a clean stop.
import Foundation
import GRDB
import StoreCore
import TestSupport
import Testing

@Suite("storefront serve, called by Apple's client", .serialized, .tags(.python), .notInFastRun)
struct ServeTests {
    struct Key {
        let pem: String, keyID: String, issuerID: String
    }

    func makeKey(_ session: Session) async throws -> Key {
        let file = session.stateDirectory.appendingPathComponent("key-\(UUID().uuidString.prefix(6)).p8")
        let made = try await session.object(["keys", "create", "--out", file.path, "--json"])
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        return Key(
            pem: try String(contentsOf: file, encoding: .utf8), keyID: try #require(made["keyId"] as? String),
            issuerID: try #require(made["issuerId"] as? String))
    }

    /// Runs Apple's client on `calls`; one result per call.
    func call(_ server: Server, _ key: Key, bundleID: String, _ calls: [[String: Any]]) async throws -> [[String: Any]]
    {
        let request: [String: Any] = [
            "base": server.base, "key": key.pem, "keyId": key.keyID, "issuerId": key.issuerID, "bundleId": bundleID,
            "calls": calls,
        ]
        return try await AppleVerifier.run(repositoryRoot.appendingPathComponent("Tests/Python/api_calls.py"), request)
    }

    func result(_ item: [String: Any]) -> [String: Any] { item["result"] as? [String: Any] ?? [:] }

    /// jo, signed up on RW Selfies on 5 January 2026, notifications going to a receiver.
    /// `frozen` false: on real time (Apple's V2 offer signer stamps the real clock).
    func selfiesCustomer(frozen: Bool = true) async throws -> (Session, Receiver) {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try await session.run(frozen ? ["clock", "freeze", "2026-01-05T12:00:00Z"] : ["clock", "real"]).expectSuccess()
        let receiver = try await Receiver()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("jo")
        return (session, receiver)
    }

    /// jo's weekly All Access plan bought on 5 January 2026, notifications going to a receiver.
    func weeklyPlan() async throws -> (Session, Receiver) {
        let (session, receiver) = try await selfiesCustomer()
        try await session.run(["buy", "com.storefront.selfies.sub.allaccess"]).expectSuccess()
        return (session, receiver)
    }

    @Test(
        "V1–V5 every route through Apple's client: transaction info, history v2 with paging and filters, statuses, refunds, test notifications, notification history"
    )
    func routes() async throws {
        let (session, receiver) = try await weeklyPlan()
        try await session.run(["clock", "advance", "25w"]).expectSuccess()
        let history = try await session.array(["history"])
        let first = try #require(history.first?["id"] as? String)
        let renewal = try #require(history.last?["id"] as? String)
        try await session.run(["refund", renewal]).expectSuccess()
        let key = try await makeKey(session)
        let server = try await Server(session)
        let results = try await call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "transaction_info", "id": first],
                ["call": "history", "id": first],
                ["call": "statuses", "id": renewal],
                ["call": "statuses", "id": renewal, "status": [1]],
                ["call": "refunds", "id": first],
                ["call": "history", "id": first, "sort": "DESCENDING", "revoked": true],
                ["call": "history", "id": first, "productTypes": ["CONSUMABLE"]],
                ["call": "transaction_info", "id": "not-a-number"],
                ["call": "transaction_info", "id": "2999999999999999"],
                ["call": "history", "id": first, "revision": "bm9wZQ"],
                ["call": "request_test"],
            ])
        let info = result(results[0])
        #expect(results[0]["ok"] as? Bool == true && info["signedTransactionInfo"] is String, "\(results[0])")
        let page = result(results[1])
        #expect(
            (page["signedTransactions"] as? [String])?.count == 20 && page["hasMore"] as? Bool == true,
            "the first of two pages")
        #expect(page["bundleId"] as? String == "com.storefront.selfies" && page["environment"] as? String == "Sandbox")
        let statuses = result(results[2])
        let groups = statuses["data"] as? [[String: Any]] ?? []
        let last = (groups.first?["lastTransactions"] as? [[String: Any]])?.first ?? [:]
        #expect(
            groups.count == 1 && last["status"] as? Int == 5 && last["originalTransactionId"] as? String == first,
            "revoked by the refund: \(statuses)")
        #expect((result(results[3])["data"] as? [Any])?.isEmpty == true, "no plan is active")
        #expect((result(results[4])["signedTransactions"] as? [String])?.count == 1)
        #expect((result(results[5])["signedTransactions"] as? [String])?.count == 1, "revoked only")
        #expect((result(results[6])["signedTransactions"] as? [String])?.isEmpty == true, "no consumables")
        #expect(results[7]["status"] as? Int == 400 && results[7]["errorCode"] as? Int == 4_000_006)
        #expect(results[8]["status"] as? Int == 404 && results[8]["errorCode"] as? Int == 4_040_010)
        #expect(results[9]["status"] as? Int == 400 && results[9]["errorCode"] as? Int == 4_000_005)
        let token = try #require(result(results[10])["testNotificationToken"] as? String)
        // The test notification is sent after the answer, as Apple's service sends it: its status
        // reports the attempt once the delivery service has made it.
        #expect(
            try await waitUntil(seconds: 60) {
                let status = try await call(
                    server, key, bundleID: "com.storefront.selfies", [["call": "test_status", "token": token]])
                return !(result(status[0])["sendAttempts"] as? [Any] ?? []).isEmpty
            })
        // Paging to the end, the test notification's status, and the history of notifications.
        let revision = try #require(page["revision"] as? String)
        let more = try await call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "history", "id": first, "revision": revision],
                ["call": "test_status", "token": token],
                ["call": "notification_history", "startDate": 1_767_225_600_000, "endDate": 1_799_000_000_000],
                [
                    "call": "notification_history", "startDate": 1_767_225_600_000, "endDate": 1_799_000_000_000,
                    "type": "REFUND",
                ],
                ["call": "test_status", "token": "nothing_1"],
            ])
        let second = result(more[0])
        #expect(
            (second["signedTransactions"] as? [String])?.count == 6 && second["hasMore"] as? Bool == false,
            "26 in all: \(second.keys)")
        let attempts = result(more[1])["sendAttempts"] as? [[String: Any]] ?? []
        #expect(attempts.first?["sendAttemptResult"] as? String == "SUCCESS", "\(more[1])")
        let notificationPage = result(more[2])
        #expect(
            (notificationPage["notificationHistory"] as? [Any])?.count == 20
                && notificationPage["hasMore"] as? Bool == true)
        #expect((result(more[3])["notificationHistory"] as? [Any])?.count == 1)
        #expect(more[4]["status"] as? Int == 404 && more[4]["errorCode"] as? Int == 4_040_008)
        // Everything signed verifies with the state folder's root (V4).
        var items: [(kind: String, jws: String)] = [("transaction", info["signedTransactionInfo"] as! String)]
        items += (page["signedTransactions"] as? [String] ?? []).map { ("transaction", $0) }
        items.append(("renewal", try #require(last["signedRenewalInfo"] as? String)))
        let verified = try await AppleVerifier.verify(items, session: session, bundleID: "com.storefront.selfies")
        #expect(verified.allSatisfy { $0.ok }, "\(verified.map { $0.status ?? "ok" })")
        let stopped = try await server.stop()
        #expect(stopped.status == 0 && stopped.rest.contains("stopped"), "\(stopped)")
        withExtendedLifetime(receiver) {}  // the webhook's receiver, kept until the end
    }

    @Test(
        "M3 Get App Transaction Info, Look Up Order ID and Finish Transaction through Apple's client: the app transaction of the customer verifies; a purchase's order id (history --json) finds it, another order id is status 1; a purchase finishes, an unknown id is 404"
    )
    func appTransactionAndOrders() async throws {
        let (session, _) = try await weeklyPlan()
        let bought = try await session.object(["buy", "com.storefront.selfies.sub.allaccess.monthly"])
        let history = try await session.array(["history"])
        let purchase = try #require(history.first)
        let id = try #require(purchase["id"] as? String)
        let order = try #require(purchase["orderId"] as? String, "history --json names the order: \(purchase)")
        let text = try await session.run(["history"]).stdout
        #expect(
            text.split(separator: "\n").first { $0.hasPrefix(id) }?.hasSuffix("  order \(order)") == true,
            "history says the order id: \(text)")
        let key = try await makeKey(session)
        let server = try await Server(session)
        let results = try await call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "app_transaction", "id": id],
                ["call": "order", "order": order],
                ["call": "order", "order": "MNOTANORDER1"],
                ["call": "app_transaction", "id": "2999999999999999"],
                ["call": "finish", "id": id],
                ["call": "finish", "id": id],
                ["call": "finish", "id": "2999999999999999"],
                ["call": "finish", "id": "not-an-id"],
            ])
        let app = try #require(result(results[0])["signedAppTransactionInfo"] as? String, "\(results[0])")
        let found = result(results[1])
        #expect(found["status"] as? Int == 0, "\(results[1])")
        let signed = try #require((found["signedTransactions"] as? [String])?.first)
        #expect(
            result(results[2])["status"] as? Int == 1
                && (result(results[2])["signedTransactions"] as? [String] ?? []).isEmpty, "\(results[2])")
        #expect(results[3]["status"] as? Int == 404 && results[3]["errorCode"] as? Int == 4_040_019, "\(results[3])")
        // Finish Transaction: a known id, twice, is 200; an unknown one and one that is no id get Apple's codes.
        #expect(results[4]["ok"] as? Bool == true && results[5]["ok"] as? Bool == true, "\(results[4]) \(results[5])")
        #expect(results[6]["status"] as? Int == 404 && results[6]["errorCode"] as? Int == 4_040_010, "\(results[6])")
        #expect(results[7]["status"] as? Int == 400 && results[7]["errorCode"] as? Int == 4_000_006, "\(results[7])")
        let verified = try await AppleVerifier.verify(
            [("appTransaction", app), ("transaction", signed)], session: session, bundleID: "com.storefront.selfies")
        #expect(verified.allSatisfy { $0.ok }, "\(verified.map { $0.status ?? "ok" })")
        #expect(verified[1].decoded["transactionId"] as? String == id, "the order's transaction is the purchase")
        #expect(bought["state"] as? String == "purchased")
        _ = try await server.stop()
    }

    @Test(
        "M3 an app transaction id (from `storefront app --json`, as an app hands it to its server) names its customer wherever Apple takes any transaction id: history, statuses, refunds and app transaction info through Apple's client, for a customer who bought nothing too; Get Transaction Info and an unknown one are 404"
    )
    func appTransactionIDs() async throws {
        let (session, _) = try await weeklyPlan()
        let first = try #require(try await session.array(["history"]).first?["id"] as? String)
        try await session.signUp("bea", device: "tablet")
        func appTransactionID(_ device: String) async throws -> String {
            let signed = try #require(
                try await session.object(["app", "--device", device])["signedAppTransaction"] as? String)
            return try #require(try JWS.decode(signed).payload["appTransactionId"] as? String)
        }
        let ann = try await appTransactionID("default")
        let bea = try await appTransactionID("tablet")
        #expect(ann != bea && ann.hasPrefix("7") && ann.count == 16, "\(ann) \(bea)")
        let key = try await makeKey(session)
        let server = try await Server(session)
        let results = try await call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "history", "id": first], ["call": "history", "id": ann], ["call": "statuses", "id": ann],
                ["call": "refunds", "id": ann],
                ["call": "app_transaction", "id": ann],
                ["call": "history", "id": bea], ["call": "statuses", "id": bea],
                ["call": "app_transaction", "id": bea],
                ["call": "transaction_info", "id": ann], ["call": "history", "id": "7999999999999999"],
            ])
        _ = try await server.stop()
        #expect(results.prefix(8).allSatisfy { $0["ok"] as? Bool == true }, "\(results)")
        func listed(_ index: Int) -> [String] {
            (result(results[index])["signedTransactions"] as? [String] ?? []).compactMap {
                try? JWS.decode($0).payload["transactionId"] as? String
            }
        }
        #expect(
            listed(1) == listed(0) && listed(1) == [first], "ann's history by her app transaction id: \(results[1])")
        let statuses = result(results[2])["data"] as? [[String: Any]] ?? []
        let last = (statuses.first?["lastTransactions"] as? [[String: Any]])?.first
        #expect(statuses.count == 1 && last?["originalTransactionId"] as? String == first, "\(results[2])")
        #expect((result(results[3])["signedTransactions"] as? [String])?.isEmpty == true, "\(results[3])")
        let apps = try [4, 7].map { try #require(result(results[$0])["signedAppTransactionInfo"] as? String) }
        let verified = try await AppleVerifier.verify(
            apps.map { ("appTransaction", $0) }, session: session, bundleID: "com.storefront.selfies")
        #expect(
            verified.allSatisfy { $0.ok } && verified.map { $0.decoded["appTransactionId"] as? String } == [ann, bea],
            "\(verified.map(\.decoded))")
        #expect(
            listed(5).isEmpty && (result(results[6])["data"] as? [Any])?.isEmpty == true,
            "bea bought nothing: \(results[5]) \(results[6])")
        for index in [8, 9] {
            #expect(
                results[index]["status"] as? Int == 404 && results[index]["errorCode"] as? Int == 4_040_010,
                "\(index): \(results[index])")
        }
    }

    @Test(
        "M3 app account tokens through Apple's client: buy --app-account-token puts it in the signed purchase, its renewals, the renewal info and the notifications; Set App Account Token replaces it everywhere; a bad UUID, a renewal's id, a family share and an unknown id get Apple's codes"
    )
    func appAccountTokens() async throws {
        let (session, receiver) = try await selfiesCustomer()
        let first = "0f6a1c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
        let second = "9e8d7c6b-5a49-4837-a625-140f1e2d3c4b"
        let bad = try await session.run([
            "buy", "com.storefront.selfies.sub.allaccess", "--app-account-token", "not-a-uuid",
        ])
        #expect(bad.status == 2 && bad.stderr.contains("--app-account-token takes a UUID"), "\(bad)")
        try await session.run([
            "buy", "com.storefront.selfies.sub.allaccess", "--app-account-token", first.uppercased(),
        ])
        .expectSuccess()
        try await session.run(["clock", "advance", "1w1d"]).expectSuccess()
        let history = try await session.array(["history"])
        let purchase = try #require(history.first { $0["transactionReason"] as? String == "PURCHASE" })
        let renewal = try #require(history.first { $0["transactionReason"] as? String == "RENEWAL" }, "\(history)")
        #expect(
            purchase["appAccountToken"] as? String == first && renewal["appAccountToken"] as? String == first,
            "a renewal carries its purchase's token")
        let id = try #require(purchase["id"] as? String)
        let renewalID = try #require(renewal["id"] as? String)
        // A family member's share of the plan.
        try await session.signUp("kid", device: "kid-phone")
        try await session.run(["family", "create"]).expectSuccess()
        try await session.run(["family", "add", "kid"]).expectSuccess()
        try await session.run(["family", "accept", "--device", "kid-phone"]).expectSuccess()
        let shares =
            try await session.object(["receipt", "--device", "kid-phone", "--json"])["entries"] as? [[String: Any]]
            ?? []
        let shared = try #require(
            shares.first { $0["event"] as? String == "family-share" }?["id"] as? String, "\(shares)")
        let key = try await makeKey(session)
        let server = try await Server(session)
        let results = try await call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "transaction_info", "id": id],
                ["call": "set_app_account_token", "id": id, "token": second],
                ["call": "transaction_info", "id": renewalID],
                ["call": "statuses", "id": id],
                ["call": "set_app_account_token", "id": id, "token": "not-a-uuid"],
                ["call": "set_app_account_token", "id": renewalID, "token": second],
                ["call": "set_app_account_token", "id": shared, "token": second],
                ["call": "set_app_account_token", "id": "2999999999999999", "token": second],
            ])
        #expect(results[1]["ok"] as? Bool == true, "\(results[1])")
        for (index, code) in [(4, 4_000_183), (5, 4_000_187), (6, 4_000_185), (7, 4_040_010)] {
            #expect(results[index]["errorCode"] as? Int == code, "\(index): \(results[index])")
        }
        let before = try #require(result(results[0])["signedTransactionInfo"] as? String)
        let after = try #require(result(results[2])["signedTransactionInfo"] as? String)
        let statuses =
            (result(results[3])["data"] as? [[String: Any]])?.first?["lastTransactions"] as? [[String: Any]] ?? []
        let renewalInfo = try #require(statuses.first?["signedRenewalInfo"] as? String, "\(results[3])")
        let verified = try await AppleVerifier.verify(
            [("transaction", before), ("transaction", after), ("renewal", renewalInfo)], session: session,
            bundleID: "com.storefront.selfies"
        )
        #expect(verified.allSatisfy { $0.ok }, "\(verified.map { $0.status ?? "ok" })")
        #expect(verified[0].decoded["appAccountToken"] as? String == first)
        #expect(
            verified[1].decoded["appAccountToken"] as? String == second, "Set App Account Token reaches the renewal too"
        )
        #expect(verified[2].decoded["appAccountToken"] as? String == second, "and the renewal info")
        // The command line and the next notification say the new token.
        #expect(
            try await session.array(["history"]).first { $0["id"] as? String == id }?["appAccountToken"] as? String
                == second)
        _ = try await server.stop()
        try await session.run(["clock", "advance", "1w"]).expectSuccess()
        #expect(await waitUntil(seconds: 60) { receiver.payloads.count >= 3 })
        func fields(_ jws: String) throws -> [String: Any] {
            let part = try #require(jws.split(separator: ".").dropFirst().first.flatMap { JWS64.decode(String($0)) })
            return try #require(try JSONSerialization.jsonObject(with: part) as? [String: Any])
        }
        let data = try fields(try #require(receiver.payloads.last))
        let transaction = try fields(
            try #require((data["data"] as? [String: Any])?["signedTransactionInfo"] as? String))
        #expect(
            data["notificationType"] as? String == "DID_RENEW" && transaction["appAccountToken"] as? String == second,
            "\(data["notificationType"] ?? "")")
    }

    @Test(
        "V3 an extension moves the renewal date: the next status read and the command line show it, RENEWAL_EXTENDED reaches the receiver; a mass extension reports its summary"
    )
    func extensions() async throws {
        let (session, receiver) = try await weeklyPlan()
        try await session.signUp("kim", device: "tablet")
        try await session.run(["buy", "com.storefront.selfies.sub.allaccess", "--device", "tablet"]).expectSuccess()
        let first = try #require(try await session.array(["history"]).first?["id"] as? String)
        let key = try await makeKey(session)
        let server = try await Server(session)
        let results = try await call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "extend", "id": first, "days": 10, "request": "goodwill-1"],
                ["call": "extend", "id": first, "days": 10, "request": "goodwill-1"],
                ["call": "statuses", "id": first],
                ["call": "extend", "id": first, "days": 91, "request": "too-long"],
                ["call": "extend", "id": "2999999999999999", "days": 1, "request": "nobody"],
                [
                    "call": "mass_extend", "days": 3, "request": "outage-1",
                    "productId": "com.storefront.selfies.sub.allaccess",
                ],
                ["call": "mass_status", "request": "outage-1", "productId": "com.storefront.selfies.sub.allaccess"],
            ])
        let extended = result(results[0])
        #expect(
            extended["success"] as? Bool == true && extended["effectiveDate"] as? Int == 1_769_083_200_000,
            "12 Jan + 10 days = 22 Jan: \(results[0])")
        #expect(
            result(results[1])["effectiveDate"] as? Int == 1_769_083_200_000,
            "the same request identifier twice extends once")
        #expect(results[3]["status"] as? Int == 400 && results[3]["errorCode"] as? Int == 4_000_009)
        #expect(results[4]["status"] as? Int == 404 && results[4]["errorCode"] as? Int == 4_040_005)
        let status = result(results[6])
        #expect(
            status["complete"] as? Bool == true && status["succeededCount"] as? Int == 2
                && status["failedCount"] as? Int == 0, "\(status)")
        let plan = try #require((try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        #expect(
            plan["expires"] as? String == "2026-01-25T12:00:00Z",
            "10 days, then 3 more, seen by the command line: \(plan)")
        func types() -> [String] {
            receiver.payloads.map { jws -> String in
                let part = jws.split(separator: ".").dropFirst().first.map(String.init) ?? ""
                let payload =
                    JWS64.decode(part).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
                return [payload["notificationType"] as? String, payload["subtype"] as? String].compactMap { $0 }.joined(
                    separator: " ")
            }
        }
        // Delivered after the answers, by the delivery service.
        #expect(
            await waitUntil(seconds: 60) {
                types().filter { $0 == "RENEWAL_EXTENDED" }.count == 3 && types().contains("RENEWAL_EXTENSION SUMMARY")
            }, "\(types())")
        _ = try await server.stop()
    }

    @Test(
        "V6 kill -9 during a burst of extensions and the command line's purchases and changes: nothing lost, nothing corrupt, every receipt recomputes"
    )
    func killDuringBurst() async throws {
        let (session, _) = try await weeklyPlan()
        // A hundred more subscribers, made in-process: Apple extends a subscription twice a year
        // at most, so the burst's 200 extensions are two for each.
        let catalog = try CatalogLoader.load(contentsOf: repositoryRoot.appendingPathComponent("assets/selfies.json"))
            .catalog
        let factory = try StoreFactory(
            stateDirectory: StateDirectory(session.stateDirectory), catalog: catalog, calendar: utcCalendar,
            time: .shared(override: nil))
        factory.passwordHasher = .fastForTests
        var originals: [String: String] = [:]
        for index in 0..<100 {
            let store = try factory.open(device: "subscriber")
            try store.accounts.signUp("sub\(index)", password: "secret")
            originals["sub\(index)"] = try store.queue.buy("com.storefront.selfies.sub.allaccess").id
            try store.accounts.signOut()
        }
        let key = try await makeKey(session)
        let server = try await Server(session)
        let python = try AppleVerifier.python()
        let burst = Process()
        burst.executableURL = python
        burst.arguments = [repositoryRoot.appendingPathComponent("Tests/Python/api_calls.py").path]
        let input = Pipe()
        burst.standardInput = input
        burst.standardOutput = FileHandle.nullDevice
        burst.standardError = FileHandle.nullDevice
        try burst.run()
        let calls = (0..<2).flatMap { round in
            originals.sorted { $0.key < $1.key }.map {
                ["call": "extend", "id": $0.value, "days": 1, "request": "burst-\(round)"] as [String: Any]
            }
        }
        let request: [String: Any] = [
            "base": server.base, "key": key.pem, "keyId": key.keyID, "issuerId": key.issuerID,
            "bundleId": "com.storefront.selfies", "calls": calls,
        ]
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        // Once extensions land (a generous ceiling), kill the server mid-burst: waiting on a thread of
        // its own from now, not after the changes below, which may wait for a program slot.
        let database = try DatabaseQueue(path: session.stateDirectory.appendingPathComponent("server.sqlite").path)
        let landed: @Sendable () throws -> Int = {
            try database.read {
                try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM receipt WHERE event = 'extend'") ?? 0
            }
        }
        let serverID = server.process.processIdentifier
        async let killed: Void = offPool {
            let deadline = Date().addingTimeInterval(60)
            while try landed() < 5, Date() < deadline { usleep(2_000) }
            kill(serverID, SIGKILL)
        }
        // The command line buys and changes jo's plan meanwhile.
        for _ in 0..<3 {
            try await session.run(["cancel", "com.storefront.selfies.sub.allaccess"]).expectSuccess()
            try await session.run(["renew-on", "com.storefront.selfies.sub.allaccess"]).expectSuccess()
        }
        try await session.run(["buy", "com.storefront.selfies.sub.oneaweek"]).expectSuccess()
        try await killed
        try await server.process.ended()
        try await burst.ended()
        let count = try landed()
        #expect(count >= 5 && count < calls.count, "\(count) extensions before the kill")
        #expect(try await database.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        let receipt = try await session.object(["receipt"])
        #expect(receipt["consistent"] as? Bool == true && receipt["plansConsistent"] as? Bool == true, "jo's receipt")
        // Every landed extension counts once: each plan ends its week later by as many days.
        let weekAfter = try #require(ISO8601DateFormatter().date(from: "2026-01-12T12:00:00Z"))
        for (account, original) in originals {
            let store = try factory.open(device: "subscriber")
            try store.accounts.signIn(account, password: "secret")
            let report = try store.entitlements.receipt()
            let extensions = report.entries.filter { $0.event == .extend && $0.reference == original }.count
            #expect(report.isConsistent, "\(account)")
            #expect(
                report.storedPlans.values.first?.expiresDate
                    == weekAfter.addingTimeInterval(Double(extensions) * 86_400), "\(account)")
            try store.accounts.signOut()
        }
        try await session.run(["buy", "com.storefront.selfies.sub.oneaweek.monthly"]).expectSuccess()
    }

    @Test(
        "V1 served and command-line views never disagree: random purchases, renewals, refunds and extensions through both, the histories compared",
        arguments: [7, 19])
    func viewsAgree(seed: Int) async throws {
        let (session, _) = try await weeklyPlan()
        let key = try await makeKey(session)
        let server = try await Server(session)
        var random = SeededRandom(seed: UInt64(seed))
        func apiHistory(_ anyID: String) async throws -> [String] {
            var ids: [String] = []
            var revision: String?
            repeat {
                var call: [String: Any] = ["call": "history", "id": anyID]
                if let revision { call["revision"] = revision }
                let page = result(try await self.call(server, key, bundleID: "com.storefront.selfies", [call])[0])
                ids += (page["signedTransactions"] as? [String] ?? []).map { jws in
                    let part = jws.split(separator: ".").dropFirst().first.map(String.init) ?? ""
                    let payload = JWS64.decode(part).flatMap {
                        try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
                    }
                    return payload?["transactionId"] as? String ?? ""
                }
                revision = page["hasMore"] as? Bool == true ? page["revision"] as? String : nil
            } while revision != nil
            return ids
        }
        for step in 0..<8 {
            let first = try #require(try await session.array(["history"]).first?["id"] as? String)
            switch random.next() % 4 {
            case 0: try await session.run(["clock", "advance", "\(1 + random.next() % 3)w"]).expectSuccess()
            case 1:
                _ = try await call(
                    server, key, bundleID: "com.storefront.selfies",
                    [["call": "extend", "id": first, "days": 2, "request": "s\(seed)-\(step)"]])
            case 2:
                try await session.run([
                    "buy",
                    random.next() % 2 == 0
                        ? "com.storefront.selfies.sub.oneaweek" : "com.storefront.selfies.sub.allaccess.monthly",
                ])
            default:
                let last = try #require(try await session.array(["history"]).last?["id"] as? String)
                try await session.run(["refund", last])
            }
            let command = try await session.array(["history"]).filter { $0["state"] as? String == "purchased" }
                .compactMap {
                    $0["id"] as? String
                }
            let served = try await apiHistory(first)
            #expect(
                Set(command) == Set(served),
                "step \(step): the command line has \(Set(command).subtracting(served)), the API \(Set(served).subtracting(command))"
            )
        }
        _ = try await server.stop()
    }

    @Test(
        "V2 V5 V9 refusals: no token, a forged one, another bundle, a revoked key, an unknown path, a body over 1 MB — Apple's codes, JSON, nothing changed"
    )
    func refusals() async throws {
        let session = try await Session()
        try await session.signUp("ann")
        try await session.run(["buy", "com.storefront.comic.nightshift"]).expectSuccess()
        let id = try #require(try await session.array(["history"]).first?["id"] as? String)
        let key = try await makeKey(session)
        let revoked = try await makeKey(session)
        try await session.run(["keys", "revoke", revoked.keyID]).expectSuccess()
        let before = try await session.snapshot()
        let server = try await Server(session)
        let big = String(repeating: "x", count: (1 << 20) + 10)
        let results = try await call(
            server, key, bundleID: "com.storefront.comics",
            [
                ["call": "raw", "method": "GET", "path": "/inApps/v1/transactions/\(id)"],
                [
                    "call": "raw", "method": "GET", "path": "/inApps/v1/transactions/\(id)",
                    "headers": ["Authorization": "Bearer a.b.c"],
                ],
                ["call": "raw", "method": "GET", "path": "/inApps/v9/nowhere", "auth": true],
                [
                    "call": "raw", "method": "POST", "path": "/inApps/v1/notifications/history", "body": big,
                    "auth": true,
                ],
                ["call": "transaction_info", "id": id],
            ])
        #expect(results[0]["status"] as? Int == 401 && results[0]["contentType"] as? String == "application/json")
        #expect(results[1]["status"] as? Int == 401)
        #expect(
            results[2]["status"] as? Int == 404 && results[2]["contentType"] as? String == "application/json",
            "\(results[2])")
        #expect(results[3]["status"] as? Int == 413 && results[3]["errorCode"] as? Int == 4_000_163, "\(results[3])")
        #expect(results[4]["ok"] as? Bool == true)
        let otherBundle = try await call(
            server, key, bundleID: "com.example.other", [["call": "transaction_info", "id": id]])
        #expect(otherBundle[0]["status"] as? Int == 401)
        let revokedCall = try await call(
            server, revoked, bundleID: "com.storefront.comics", [["call": "transaction_info", "id": id]])
        #expect(revokedCall[0]["status"] as? Int == 401)
        let forged = Key(pem: revoked.pem, keyID: key.keyID, issuerID: key.issuerID)
        let forgedCall = try await call(
            server, forged, bundleID: "com.storefront.comics", [["call": "transaction_info", "id": id]])
        #expect(forgedCall[0]["status"] as? Int == 401, "a token signed by another key under this key's id")
        let unknown = try await call(
            server, key, bundleID: "com.storefront.comics", [["call": "raw", "method": "GET", "path": "/nowhere"]])
        #expect(unknown[0]["status"] as? Int == 401, "no token: refused before the path is looked at")
        _ = try await server.stop()
        #expect(try await session.snapshot() == before, "nothing changed")
        // V7: each request is listed for the screen, refused ones too.
        let database = try DatabaseQueue(path: session.stateDirectory.appendingPathComponent("server.sqlite").path)
        let statuses = try await database.read {
            try Int.fetchAll($0, sql: "SELECT status FROM request ORDER BY sequence")
        }
        #expect(statuses.contains(401) && statuses.contains(404) && statuses.contains(200), "\(statuses)")
    }
}

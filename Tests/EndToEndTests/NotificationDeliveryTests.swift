// N1–N5 over the network: the binary POSTs to a real HTTP receiver on loopback (Tests/Python/
// receiver.py), Apple's app-store-server-library verifies every notification (and the signed
// transaction and renewal info inside it), SIGKILL between the outbox and the 200 loses nothing,
// and a receiver that hangs costs a purchase no more than the timeout.
import Foundation
import TestSupport
import Testing

/// A developer's server on loopback that logs every body it is sent.
final class Receiver {
    let process = Process()
    let input = Pipe()
    let log: URL
    let port: Int

    /// `script`: the receiver (receiver.py) or another server of Tests/Python taking the log first.
    init(script: String = "receiver.py", arguments: [String] = []) async throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("receiver-\(UUID().uuidString).log")
        let python = try AppleVerifier.python()
        process.executableURL = python
        process.arguments =
            [repositoryRoot.appendingPathComponent("Tests/Python/\(script)").path, log.path] + arguments
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = try await firstLine(output)
        port = try #require(Int(line), "the receiver did not say its port")
    }

    /// SIGTERM, not waited for: Foundation reaps the process when it ends.
    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        try? FileManager.default.removeItem(at: log)
    }

    var url: String { "http://127.0.0.1:\(port)/apple" }

    /// The `signedPayload` of every POST received, in order.
    var payloads: [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["signedPayload"] as? String
        }
    }
}

@Suite("notifications delivered to a real receiver", .serialized, .tags(.python), .notInFastRun)
struct NotificationDeliveryTests {
    func payloadFields(_ jws: String) throws -> [String: Any] {
        let part = try #require(jws.split(separator: ".").dropFirst().first)
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(
        "N1 every notification type and subtype the store simulates, received over HTTP and verified by Apple's library with the signed data inside"
    )
    func everyType() async throws {
        let receiver = try await Receiver()
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try await session.run(["clock", "freeze", "2026-05-04T12:00:00Z"]).expectSuccess()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("jo")
        let steps: [[String]] = [
            ["buy", "com.storefront.selfies.sub.oneaweek.monthly"], ["clock", "advance", "8d"],
            ["buy", "com.storefront.selfies.sub.oneaweek"], ["buy", "com.storefront.selfies.sub.oneaweek.monthly"],
            ["buy", "com.storefront.selfies.sub.allaccess.monthly"],
            ["cancel", "com.storefront.selfies.sub.allaccess.monthly"],
            ["renew-on", "com.storefront.selfies.sub.allaccess.monthly"], ["grace", "3d"], ["billing", "fail"],
            ["clock", "advance", "5w"],
            ["billing", "ok"], ["clock", "advance", "1d"], ["expire", "com.storefront.selfies.sub.allaccess.monthly"],
            ["buy", "com.storefront.selfies.sub.allaccess"], ["notifications", "test"],
        ]
        for step in steps { try await session.run(step).expectSuccess() }
        let current = try #require(
            (try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first?["transaction"] as? String
        )
        try await session.run(["refund", current]).expectSuccess()
        try await session.run(["cancel", "com.storefront.selfies.sub.allaccess"]).expectFailure()
        let listed = try await session.array(["notifications"])
        #expect(
            listed.allSatisfy { $0["state"] as? String == "delivered" },
            "\(listed.map { "\($0["type"] ?? "") \($0["state"] ?? "")" })")
        let payloads = receiver.payloads
        #expect(payloads.count == listed.count)
        var items = payloads.map { (kind: "notification", jws: $0) }
        for payload in payloads {
            let data = try payloadFields(payload)["data"] as? [String: Any] ?? [:]
            if let transaction = data["signedTransactionInfo"] as? String { items.append(("transaction", transaction)) }
            if let renewal = data["signedRenewalInfo"] as? String { items.append(("renewal", renewal)) }
        }
        let results = try await AppleVerifier.verify(items, session: session, bundleID: "com.storefront.selfies")
        for (index, result) in results.enumerated() {
            #expect(result.ok, "item \(index) (\(items[index].kind)): \(result.status ?? "")")
        }
        // Every auto-renewable transaction has an expiry, a downgrade's included.
        let renewable = results.filter { $0.decoded["type"] as? String == "Auto-Renewable Subscription" }
        #expect(
            renewable.count >= 10 && renewable.allSatisfy { $0.decoded["expiresDate"] is Int }, "\(renewable.count)")
        let received = results.prefix(payloads.count).map { result in
            [result.decoded["notificationType"] as? String, result.decoded["subtype"] as? String].compactMap { $0 }
                .joined(separator: " ")
        }
        #expect(
            received == [
                "SUBSCRIBED INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF DOWNGRADE", "DID_CHANGE_RENEWAL_PREF",
                "DID_CHANGE_RENEWAL_PREF UPGRADE", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED",
                "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED",
                "DID_FAIL_TO_RENEW GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "DID_RENEW BILLING_RECOVERY",
                "EXPIRED VOLUNTARY",
                "SUBSCRIBED RESUBSCRIBE", "TEST", "REFUND",
            ])
        let statuses = results.prefix(payloads.count).map { ($0.decoded["data"] as? [String: Any])?["status"] as? Int }
        #expect(statuses[0] == 1 && statuses.last == 5, "active at the start, revoked by the refund: \(statuses)")
        let uuids = results.prefix(payloads.count).compactMap { $0.decoded["notificationUUID"] as? String }
        #expect(Set(uuids).count == payloads.count && uuids == listed.compactMap { $0["uuid"] as? String })
    }

    @Test("N7 a scenario names the webhook and expects notifications; each step's notifications reach the receiver")
    func scenario() async throws {
        let receiver = try await Receiver()
        let session = try await Session()
        let file = session.stateDirectory.appendingPathComponent("webhook.scenario")
        try """
        catalog selfies.json
        webhook \(receiver.url)
        sign up kim
        buy "All Access (Weekly)"
        expect notification SUBSCRIBED INITIAL_BUY
        advance 1w
        expect notification DID_RENEW
        expect notification DID_RENEW
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await session.run(["scenario", "check", file.path])
        #expect(
            result.status == 1 && result.stdout.contains("2 passed, 1 failed"),
            "one renewal, so the second expectation fails: \(result)")
        #expect(result.stdout.contains("written since: none"), "\(result.stdout)")
        let received = try receiver.payloads.map { try payloadFields($0)["notificationType"] as? String }
        #expect(received == ["SUBSCRIBED", "DID_RENEW"])
    }

    @Test("N1 one-time charges for a comic, a pack and a pass, verified")
    func oneTimeCharges() async throws {
        let receiver = try await Receiver()
        let session = try await Session()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("ann")
        for product in ["com.storefront.comic.nightshift", "com.storefront.randomviews", "com.storefront.sub.3months"] {
            try await session.run(["buy", product]).expectSuccess()
        }
        let results = try await AppleVerifier.verify(
            receiver.payloads.map { ("notification", $0) }, session: session, bundleID: "com.storefront.comics")
        #expect(
            results.count == 3
                && results.allSatisfy { $0.ok && $0.decoded["notificationType"] as? String == "ONE_TIME_CHARGE" })
    }

    @Test(
        "RESCIND_CONSENT: the organizer withdraws consent for a member; the receiver gets it once, Apple's library verifies it and the member's signed app transaction in its appData; the member cannot leave; consent given again sends nothing; a word other than withdraw or give is a usage error that changes nothing"
    )
    func consentWithdrawn() async throws {
        let receiver = try await Receiver()
        let session = try await Session()
        try await session.run(["clock", "freeze", "2026-05-04T12:00:00Z"]).expectSuccess()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("kid", device: "tablet")
        try await session.run(["buy", "com.storefront.comic.nightshift", "--device", "tablet"]).expectSuccess()
        try await session.run(["clock", "advance", "1d"]).expectSuccess()
        try await session.signUp("mom", device: "phone")
        try await session.run(["family", "create", "--device", "phone"]).expectSuccess()
        try await session.run(["family", "add", "kid", "--device", "phone"]).expectSuccess()
        try await session.run(["family", "accept", "--device", "tablet"]).expectSuccess()
        let before = receiver.payloads.count
        let wrong = try await session.run(["family", "consent", "kid", "maybe", "--device", "phone"])
        #expect(wrong.status == 2 && wrong.stderr.contains("'withdraw'") && wrong.stderr.contains("'give'"), "\(wrong)")
        try await session.run(["family", "consent", "kid", "Withdraw", "--device", "phone"]).expectSuccess()
        #expect(try await session.object(["family", "--device", "tablet"])["consentWithdrawn"] as? [String] == ["kid"])
        try await session.run(["family", "consent", "kid", "give", "--device", "phone"]).expectSuccess()
        try await session.run(["notifications", "deliver", "--device", "tablet"]).expectSuccess()
        let payloads = receiver.payloads.dropFirst(before)
        #expect(payloads.count == 1, "one withdrawal, one notification; giving consent again sends none")
        let payload = try #require(payloads.first)
        let appData = try #require(try payloadFields(payload)["appData"] as? [String: Any])
        let signedApp = try #require(appData["signedAppTransactionInfo"] as? String)
        let own = try #require(
            try await session.object(["app", "--device", "tablet"])["signedAppTransaction"] as? String)
        let results = try await AppleVerifier.verify(
            [("notification", payload), ("appTransaction", signedApp), ("appTransaction", own)], session: session,
            bundleID: "com.storefront.comics"
        )
        for (index, result) in results.enumerated() { #expect(result.ok, "item \(index): \(result.status ?? "")") }
        let decoded = results[0].decoded
        #expect(
            decoded["notificationType"] as? String == "RESCIND_CONSENT" && decoded["subtype"] == nil
                && decoded["data"] == nil)
        let decodedApp = decoded["appData"] as? [String: Any]
        #expect(
            decodedApp?["bundleId"] as? String == "com.storefront.comics"
                && decodedApp?["environment"] as? String == "Sandbox")
        let app = results[1].decoded
        #expect(
            app["appTransactionId"] as? String == results[2].decoded["appTransactionId"] as? String,
            "the member's own app transaction")
        #expect(app["originalPurchaseDate"] as? Int == 1_777_896_000_000, "the member's first purchase, a day before")
    }

    @Test(
        "N4 SIGKILL between the outbox write and the 200 (before delivery starts, after signing, after the 200): the next command delivers, nothing lost (a duplicate after the 200 is allowed)",
        arguments: ["purchase-delivered", "notification-signed", "notification-posted"])
    func crash(_ point: String) async throws {
        let receiver = try await Receiver()
        let session = try await Session()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("ann")
        let killed = try await session.run(
            ["buy", "com.storefront.comic.nightshift"], environment: ["STOREFRONT_FAULT": "crash-at:\(point)"])
        #expect(killed.signalled, "\(killed)")
        #expect(
            try await session.object(["status"])["owned"] as? [String] == ["com.storefront.comic.nightshift"],
            "the purchase stands")
        let listed = try await session.array(["notifications"])
        #expect(listed.count == 1 && listed[0]["state"] as? String == "delivered", "\(listed)")
        let uuid = try #require(listed.first?["uuid"] as? String)
        let received = try receiver.payloads.map { try payloadFields($0)["notificationUUID"] as? String }
        #expect(
            received.allSatisfy { $0 == uuid } && received.count == (point == "notification-posted" ? 2 : 1),
            "\(received)")
    }

    @Test(
        "N3 a receiver that fails its first two attempts gets them again 1 and 12 hours after the first, as the store clock passes"
    )
    func retriesAsTheClockPasses() async throws {
        let receiver = try await Receiver(arguments: ["--fail", "2"])
        let session = try await Session()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("ann")
        try await session.run(["buy", "com.storefront.comic.nightshift"]).expectSuccess()
        func attempts() async throws -> [[String: Any]] {
            try await session.array(["notifications"]).first?["attempts"] as? [[String: Any]] ?? []
        }
        #expect(try await attempts().map { $0["status"] as? Int } == [500])
        try await session.run(["clock", "advance", "59m"]).expectSuccess()
        #expect(try await attempts().count == 1, "not due before the hour")
        try await session.run(["clock", "advance", "1m"]).expectSuccess()
        #expect(try await attempts().map { $0["status"] as? Int } == [500, 500])
        try await session.run(["clock", "advance", "11h"]).expectSuccess()
        let final = try await session.array(["notifications"])
        #expect(final.first?["state"] as? String == "delivered", "\(final)")
        #expect(
            try await attempts().map { $0["at"] as? String } == [
                "2026-01-15T12:00:00Z", "2026-01-15T13:00:00Z", "2026-01-16T00:00:00Z",
            ])
        let uuids = try receiver.payloads.map { try payloadFields($0)["notificationUUID"] as? String }
        #expect(
            uuids.count == 3 && Set(uuids).count == 1 && Set(receiver.payloads).count == 1,
            "the same UUID and bytes each time")
    }

    @Test("N5 S6 a receiver that hangs: the purchase completes and the attempt ends at the timeout, to be retried")
    func hangingReceiver() async throws {
        let receiver = try await Receiver(arguments: ["--hang"])
        let session = try await Session()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("ann")
        let bought = try await session.run(["buy", "com.storefront.comic.nightshift"])
        #expect(bought.status == 0, "\(bought)")
        let listed = try await session.array(["notifications"])
        let attempts = try #require(listed.first?["attempts"] as? [[String: Any]])
        #expect(
            listed.first?["state"] as? String == "pending" && attempts.count == 1 && attempts[0]["status"] is NSNull,
            "\(listed)")
        #expect((attempts[0]["error"] as? String)?.isEmpty == false)
        #expect(
            listed.first?["nextAttemptAt"] as? String == "2026-01-15T13:00:00Z",
            "retried an hour after the first attempt")
    }
}

extension RunResult {
    func expectFailure(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status != 0, "\(self)", sourceLocation: sourceLocation)
    }
}

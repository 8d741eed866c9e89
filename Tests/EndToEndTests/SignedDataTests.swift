// S1–S5 judged by Apple's own app-store-server-library for Python (installed by .ci/run into
// .venv): every kind of transaction from `history`, renewal info, plan transactions and the app
// transaction verify with the state folder's root and every check on (Sandbox, no online checks);
// every unverified preset is rejected the way it should be.
import Foundation
import Testing
import TestSupport

/// Apple's verifier, run on what Storefront signed.
struct AppleVerifier {
    static let script = repositoryRoot.appendingPathComponent("Tests/Python/verify_signed.py")

    /// `STOREFRONT_PYTHON`, else the `.venv` (made on first use). Missing is a failure, not a skip.
    static func python() throws -> URL { try TestTools.python() }

    /// Runs one of Tests/Python's scripts on the venv's Python: `request` as JSON on standard
    /// input, a JSON array back on standard output.
    static func run(_ script: URL, _ request: [String: Any]) throws -> [[String: Any]] {
        let python = try python()
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(script.lastPathComponent) failed: \(stderr)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "\(stderr)")
    }

    struct Result {
        let ok: Bool
        let status: String?
        let decoded: [String: Any]
    }

    /// Verifies each (kind, jws) with the root of `session`'s state folder.
    static func verify(_ items: [(kind: String, jws: String)], session: Session, bundleID: String, environment: String = "Sandbox") throws -> [Result] {
        let root = session.stateDirectory.appendingPathComponent("root.der")
        try session.run(["certificate", "--der", root.path]).expectSuccess()
        let request: [String: Any] = [
            "root": try Data(contentsOf: root).base64EncodedString(), "bundleId": bundleID, "environment": environment,
            "items": items.map { ["kind": $0.kind, "jws": $0.jws] },
        ]
        let results = try run(script, request)
        return results.map { Result(ok: $0["ok"] as? Bool == true, status: $0["status"] as? String, decoded: $0["decoded"] as? [String: Any] ?? [:]) }
    }
}

@Suite("signed data, verified by Apple's library", .serialized)
struct SignedDataTests {
    @Test("S2 S3 every kind of transaction, on two devices, with restores: Apple's verifier accepts each and reads our fields")
    func everyKind() throws {
        let session = try Session()
        try session.signUp("ann", device: "phone")
        try session.signIn("ann", device: "tablet")
        for product in ["com.storefront.comic.nightshift", "com.storefront.randomviews", "com.storefront.sub.3months"] {
            try session.run(["buy", product, "--device", "phone"]).expectSuccess()
        }
        try session.run(["restore", "--device", "tablet"]).expectSuccess()
        var items: [(kind: String, jws: String)] = []
        var expected: [[String: Any]] = []
        for device in ["phone", "tablet"] {
            for transaction in try session.array(["history", "--device", device]) {
                items.append(("transaction", try #require(transaction["signedTransaction"] as? String)))
                expected.append(transaction)
            }
        }
        let app = try session.object(["app", "--device", "phone"])
        #expect(app["bundleId"] as? String == "com.storefront.comics", "the shipped catalog's bundle id")
        items.append(("appTransaction", try #require(app["signedAppTransaction"] as? String)))
        let results = try AppleVerifier.verify(items, session: session, bundleID: "com.storefront.comics")
        #expect(results.count == 5)
        for (result, transaction) in zip(results, expected) {
            #expect(result.ok, "\(transaction["product"] ?? ""): \(result.status ?? "")")
            #expect(result.decoded["transactionId"] as? String == transaction["id"] as? String, "the id shown everywhere is the signed one (S3)")
            #expect(result.decoded["purchaseDate"] as? Int == 1_768_478_400_000, "milliseconds")
            #expect(result.decoded["environment"] as? String == "Sandbox" && result.decoded["bundleId"] as? String == "com.storefront.comics")
        }
        let byProduct = Dictionary(zip(expected, results).map { ($0.0["product"] as! String + ($0.0["state"] as! String), $0.1.decoded) }) { a, _ in a }
        #expect(byProduct["com.storefront.comic.nightshiftpurchased"]?["type"] as? String == "Non-Consumable")
        #expect(byProduct["com.storefront.comic.nightshiftpurchased"]?["price"] as? Int == 990, "milliunits")
        #expect(byProduct["com.storefront.randomviewspurchased"]?["type"] as? String == "Consumable")
        #expect(byProduct["com.storefront.sub.3monthspurchased"]?["type"] as? String == "Non-Renewing Subscription")
        let restored = try #require(byProduct["com.storefront.comic.nightshiftrestored"])
        #expect(restored["originalTransactionId"] as? String == byProduct["com.storefront.comic.nightshiftpurchased"]?["transactionId"] as? String)
        #expect(results[4].ok && results[4].decoded["receiptType"] as? String == "Sandbox", "the app transaction: \(results[4].status ?? "")")
        #expect(expected.allSatisfy { ($0["id"] as? String)?.allSatisfy(\.isNumber) == true && ($0["id"] as? String)?.count == 16 }, "Apple-shaped ids")
    }

    @Test("S2 S3 plans: a trial, renewals, an upgrade and a refund — original ids kept, offers, expiry, revocation, renewal info")
    func plans() throws {
        let session = try Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try session.run(["clock", "freeze", "2026-05-04T12:00:00Z"]).expectSuccess()
        try session.signUp("jo")
        // A free week of One a Week (Monthly), a paid month, an upgrade to All Access (Monthly), a renewal.
        try session.run(["buy", "com.storefront.selfies.sub.oneaweek.monthly"]).expectSuccess()
        try session.run(["clock", "advance", "2w"]).expectSuccess()
        try session.run(["buy", "com.storefront.selfies.sub.allaccess.monthly"]).expectSuccess()
        try session.run(["clock", "advance", "5w"]).expectSuccess()
        let history = try session.array(["history"]).filter { $0["signedTransaction"] is String }
        let subscriptions = try session.object(["subscriptions"])
        let plan = try #require((subscriptions["plans"] as? [[String: Any]])?.first)
        let receipt = try #require(try session.object(["receipt"])["entries"] as? [[String: Any]])
        let current = try #require(receipt.last { $0["event"] as? String == "renewal" || $0["event"] as? String == "purchase" }?["id"] as? String)
        try session.run(["refund", current]).expectSuccess()
        let refunded = try session.object(["subscriptions"])
        let refundedPlan = try #require((refunded["plans"] as? [[String: Any]])?.first)
        var items = history.map { (kind: "transaction", jws: $0["signedTransaction"] as! String) }
        items.append(("renewal", try #require(plan["signedRenewalInfo"] as? String)))
        items.append(("transaction", try #require(plan["signedTransaction"] as? String)))
        items.append(("transaction", try #require(refundedPlan["signedTransaction"] as? String)))
        let results = try AppleVerifier.verify(items, session: session, bundleID: "com.storefront.selfies")
        for (index, result) in results.enumerated() { #expect(result.ok, "item \(index): \(result.status ?? "")") }
        let transactions = results.prefix(history.count).map(\.decoded)
        let first = try #require(transactions.first)
        #expect(first["offerType"] as? Int == 1 && first["offerDiscountType"] as? String == "FREE_TRIAL", "the trial: \(first)")
        #expect(first["type"] as? String == "Auto-Renewable Subscription" && first["subscriptionGroupIdentifier"] != nil)
        #expect(transactions.allSatisfy { $0["originalTransactionId"] as? String == first["transactionId"] as? String },
                "renewals and the upgrade keep the first purchase's original id (S3): \(transactions.map { $0["originalTransactionId"] ?? "" })")
        #expect(transactions.contains { $0["transactionReason"] as? String == "RENEWAL" })
        #expect(transactions.contains { $0["isUpgraded"] as? Bool == true }, "the period the upgrade replaced")
        #expect(transactions.allSatisfy { ($0["expiresDate"] as? Int ?? 0) > ($0["purchaseDate"] as? Int ?? 0) })
        let renewal = results[history.count].decoded
        #expect(renewal["originalTransactionId"] as? String == first["transactionId"] as? String)
        #expect(renewal["autoRenewProductId"] as? String == "com.storefront.selfies.sub.allaccess.monthly" && renewal["autoRenewStatus"] as? Int == 1)
        #expect(renewal["renewalDate"] as? Int != nil && renewal["renewalPrice"] as? Int != nil)
        let revoked = results[history.count + 2].decoded
        #expect(revoked["transactionId"] as? String == current && revoked["revocationDate"] as? Int != nil, "\(revoked)")
    }

    @Test("S5 each simulated Verification error signs data that Apple's verifier rejects, its own way; the history says why")
    func unverified() throws {
        let session = try Session()
        try session.signUp("ann")
        let cases: [(String, String)] = [
            ("invalidSignature", "VERIFICATION_FAILURE"), ("invalidCertificateChain", "INVALID_CHAIN_LENGTH"),
            ("revokedCertificate", "VERIFICATION_FAILURE"), ("invalidEncoding", "VERIFICATION_FAILURE"),
            ("invalidDeviceVerification", "INVALID_APP_IDENTIFIER"), ("missingRequiredProperties", "INVALID_ENVIRONMENT"),
        ]
        for (error, _) in cases {
            try session.run(["errors", "set", "verification", error]).expectSuccess()
            try session.run(["buy", "com.storefront.randomviews"]).expectSuccess()
        }
        try session.run(["errors", "clear"]).expectSuccess()
        try session.run(["buy", "com.storefront.randomviews"]).expectSuccess()
        let history = try session.array(["history"])
        #expect(history.count == cases.count + 1)
        let results = try AppleVerifier.verify(history.map { ("transaction", $0["signedTransaction"] as! String) }, session: session, bundleID: "com.storefront.comics")
        for ((error, status), (result, transaction)) in zip(cases, zip(results, history)) {
            #expect(!result.ok && result.status == status, "\(error): \(result.status ?? "accepted")")
            #expect(transaction["verified"] as? Bool == false && transaction["unverifiedBecause"] is String, Comment(rawValue: error))
        }
        #expect(results.last?.ok == true, "cleared: verified again")
        let text = try session.run(["history"]).stdout
        #expect(text.contains("(unverified: invalidSignature — the signature does not match)"), "\(text)")
    }

    @Test("S1 on a team, as docs/team-server.md says: a device's signed transaction verifies with that device's own root, not the serving machine's", arguments: StrangerTests.Backend.allCases)
    func teamRoots(backend: StrangerTests.Backend) throws {
        let team = try SelfiesTeam(backend: backend)
        let device = try team.machine()
        try device.signUp("ann")
        let bought = try device.object(["buy", "com.storefront.selfies.sub.allaccess"])
        let id = try #require(bought["id"] as? String)
        let transaction = try #require(try device.object(["transaction", id])["transaction"] as? [String: Any])
        let jws = try #require(transaction["signedTransaction"] as? String)
        let own = try AppleVerifier.verify([("transaction", jws)], session: device, bundleID: "com.storefront.selfies")
        #expect(own.first?.ok == true && own.first?.decoded["transactionId"] as? String == id, "\(own)")
        let servers = try AppleVerifier.verify([("transaction", jws)], session: team.host, bundleID: "com.storefront.selfies")
        #expect(servers.first?.ok == false && servers.first?.status == "VERIFICATION_FAILURE", "\(servers)")
    }
}

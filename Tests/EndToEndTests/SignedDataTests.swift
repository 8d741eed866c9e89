// S1–S5 judged by Apple's own app-store-server-library for Python (installed by .ci/run into
// .venv): every kind of transaction from `history`, renewal info, plan transactions and the app
// transaction verify with the state folder's root and every check on (Sandbox, no online checks);
// every unverified preset is rejected the way it should be.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@Suite("signed data, verified by Apple's library", .serialized, .tags(.postgres, .python), .notInFastRun)
struct SignedDataTests {
    @Test(
        "S2 S3 every kind of transaction, on two devices, with restores: Apple's verifier accepts each and reads our fields"
    )
    func everyKind() async throws {
        let session = try await Session()
        try await session.signUp("ann", device: "phone")
        try await session.signIn("ann", device: "tablet")
        for product in ["com.storefront.comic.nightshift", "com.storefront.randomviews", "com.storefront.sub.3months"] {
            try await session.run(["buy", product, "--device", "phone"]).expectSuccess()
        }
        try await session.run(["restore", "--device", "tablet"]).expectSuccess()
        var items: [(kind: String, jws: String)] = []
        var expected: [[String: Any]] = []
        for device in ["phone", "tablet"] {
            for transaction in try await session.array(["history", "--device", device]) {
                items.append(("transaction", try #require(transaction["signedTransaction"] as? String)))
                expected.append(transaction)
            }
        }
        let app = try await session.object(["app", "--device", "phone"])
        #expect(app["bundleId"] as? String == "com.storefront.comics", "the shipped catalog's bundle id")
        items.append(("appTransaction", try #require(app["signedAppTransaction"] as? String)))
        let results = try await AppleVerifier.verify(items, session: session, bundleID: "com.storefront.comics")
        #expect(results.count == 5)
        for (result, transaction) in zip(results, expected) {
            #expect(result.ok, "\(transaction["product"] ?? ""): \(result.status ?? "")")
            #expect(
                result.decoded["transactionId"] as? String == transaction["id"] as? String,
                "the id shown everywhere is the signed one (S3)")
            #expect(result.decoded["purchaseDate"] as? Int == 1_768_478_400_000, "milliseconds")
            #expect(
                result.decoded["environment"] as? String == "Sandbox"
                    && result.decoded["bundleId"] as? String == "com.storefront.comics")
        }
        let byProduct = Dictionary(
            zip(expected, results).map { ($0.0["product"] as! String + ($0.0["state"] as! String), $0.1.decoded) }
        ) { a, _ in a }
        #expect(byProduct["com.storefront.comic.nightshiftpurchased"]?["type"] as? String == "Non-Consumable")
        #expect(byProduct["com.storefront.comic.nightshiftpurchased"]?["price"] as? Int == 990, "milliunits")
        #expect(byProduct["com.storefront.randomviewspurchased"]?["type"] as? String == "Consumable")
        #expect(byProduct["com.storefront.sub.3monthspurchased"]?["type"] as? String == "Non-Renewing Subscription")
        let restored = try #require(byProduct["com.storefront.comic.nightshiftrestored"])
        #expect(
            restored["originalTransactionId"] as? String == byProduct["com.storefront.comic.nightshiftpurchased"]?[
                "transactionId"] as? String)
        #expect(
            results[4].ok && results[4].decoded["receiptType"] as? String == "Sandbox",
            "the app transaction: \(results[4].status ?? "")")
        #expect(
            expected.allSatisfy {
                ($0["id"] as? String)?.allSatisfy(\.isNumber) == true && ($0["id"] as? String)?.count == 16
            }, "Apple-shaped ids")
    }

    @Test(
        "S2 S3 plans: a trial, renewals, an upgrade and a refund — original ids kept, offers, expiry, revocation, renewal info"
    )
    func plans() async throws {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try await session.run(["clock", "freeze", "2026-05-04T12:00:00Z"]).expectSuccess()
        try await session.signUp("jo")
        // A free week of One a Week (Monthly), a paid month, an upgrade to All Access (Monthly), a renewal.
        try await session.run(["buy", "com.storefront.selfies.sub.oneaweek.monthly"]).expectSuccess()
        try await session.run(["clock", "advance", "2w"]).expectSuccess()
        try await session.run(["buy", "com.storefront.selfies.sub.allaccess.monthly"]).expectSuccess()
        try await session.run(["clock", "advance", "5w"]).expectSuccess()
        let history = try await session.array(["history"]).filter { $0["signedTransaction"] is String }
        let subscriptions = try await session.object(["subscriptions"])
        let plan = try #require((subscriptions["plans"] as? [[String: Any]])?.first)
        let receipt = try #require(try await session.object(["receipt"])["entries"] as? [[String: Any]])
        let current = try #require(
            receipt.last { $0["event"] as? String == "renewal" || $0["event"] as? String == "purchase" }?["id"]
                as? String)
        try await session.run(["refund", current]).expectSuccess()
        let refunded = try await session.object(["subscriptions"])
        let refundedPlan = try #require((refunded["plans"] as? [[String: Any]])?.first)
        var items = history.map { (kind: "transaction", jws: $0["signedTransaction"] as! String) }
        items.append(("renewal", try #require(plan["signedRenewalInfo"] as? String)))
        items.append(("transaction", try #require(plan["signedTransaction"] as? String)))
        items.append(("transaction", try #require(refundedPlan["signedTransaction"] as? String)))
        let results = try await AppleVerifier.verify(items, session: session, bundleID: "com.storefront.selfies")
        for (index, result) in results.enumerated() { #expect(result.ok, "item \(index): \(result.status ?? "")") }
        let transactions = results.prefix(history.count).map(\.decoded)
        let first = try #require(transactions.first)
        #expect(
            first["offerType"] as? Int == 1 && first["offerDiscountType"] as? String == "FREE_TRIAL",
            "the trial: \(first)")
        #expect(
            first["type"] as? String == "Auto-Renewable Subscription" && first["subscriptionGroupIdentifier"] != nil)
        #expect(
            transactions.allSatisfy { $0["originalTransactionId"] as? String == first["transactionId"] as? String },
            "renewals and the upgrade keep the first purchase's original id (S3): \(transactions.map { $0["originalTransactionId"] ?? "" })"
        )
        #expect(transactions.contains { $0["transactionReason"] as? String == "RENEWAL" })
        #expect(transactions.contains { $0["isUpgraded"] as? Bool == true }, "the period the upgrade replaced")
        #expect(transactions.allSatisfy { ($0["expiresDate"] as? Int ?? 0) > ($0["purchaseDate"] as? Int ?? 0) })
        let renewal = results[history.count].decoded
        #expect(renewal["originalTransactionId"] as? String == first["transactionId"] as? String)
        #expect(
            renewal["autoRenewProductId"] as? String == "com.storefront.selfies.sub.allaccess.monthly"
                && renewal["autoRenewStatus"] as? Int == 1)
        #expect(renewal["renewalDate"] as? Int != nil && renewal["renewalPrice"] as? Int != nil)
        let revoked = results[history.count + 2].decoded
        #expect(
            revoked["transactionId"] as? String == current && revoked["revocationDate"] as? Int != nil, "\(revoked)")
    }

    @Test(
        "Monthly with a 12-month commitment, judged by Apple's verifier and models: each month's transaction is MONTHLY with its place in the commitment; the renewal info says the next month comes at the monthly price and, once cancelled, that the commitment does not renew; JSON types as Apple's models declare them"
    )
    func commitment() async throws {
        let session = try await Session.yearly(signedUp: "ann")
        let refused = try await session.run(["buy", "y.lite", "--billing", "monthly"])
        #expect(refused.status == 1 && refused.stderr.contains("no monthly billing plan"), "\(refused)")
        try await session.run(["buy", "y.all", "--billing", "monthly"]).expectSuccess()
        try await session.run(["clock", "advance", "2mo"]).expectSuccess()
        let before = try #require((try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        try await session.run(["cancel", "y.all"]).expectSuccess()
        let after = try #require((try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        let history = try await session.array(["history"]).compactMap { $0["signedTransaction"] as? String }
        #expect(history.count == 3, "a purchase and two renewals")
        let cancelledRenewal = try #require(after["signedRenewalInfo"] as? String)
        let items: [(kind: String, jws: String)] =
            history.map { (kind: "transaction", jws: $0) } + [
                ("renewal", try #require(before["signedRenewalInfo"] as? String)), ("renewal", cancelledRenewal),
            ]
        let results = try await AppleVerifier.verify(items, session: session, bundleID: "com.storefront.yearly")
        for (index, result) in results.enumerated() { #expect(result.ok, "item \(index): \(result.status ?? "")") }
        let ends = 1_801_389_600_000  // 2027-01-31T10:00:00Z: twelve months on
        let months = results.prefix(3).map(\.decoded).sorted {
            ($0["purchaseDate"] as? Int ?? 0) < ($1["purchaseDate"] as? Int ?? 0)
        }
        for (index, month) in months.enumerated() {
            // Read by Apple's model: an enum it knows (a raw value it does not know would leave billingPlanType out).
            #expect(month["billingPlanType"] as? String == "MONTHLY" && month["price"] as? Int == 4990, "\(month)")
            // yearly.json names no storefront: its locale en_IE and currency EUR name Ireland.
            #expect(
                month["storefront"] as? String == "IRL" && month["storefrontId"] as? String == "143449"
                    && month["currency"] as? String == "EUR", "\(month)")
            let info = month["commitmentInfo"] as? [String: Any]
            #expect(
                info?["billingPeriodNumber"] as? Int == index + 1 && info?["totalBillingPeriods"] as? Int == 12,
                "\(String(describing: info))")
            #expect(info?["commitmentExpiresDate"] as? Int == ends && info?["commitmentPrice"] as? Int == 59880)
        }
        #expect(months.first?["expiresDate"] as? Int == 1_772_272_800_000, "a month: 28 February")
        let (open, cancelled) = (results[3].decoded, results[4].decoded)
        for renewal in [open, cancelled] {
            #expect(renewal["autoRenewStatus"] as? Int == 1, "the next month comes either way: \(renewal)")
            #expect(
                renewal["renewalBillingPlanType"] as? String == "MONTHLY" && renewal["renewalPrice"] as? Int == 4990)
            let info = renewal["commitmentInfo"] as? [String: Any]
            #expect(
                info?["commitmentRenewalDate"] as? Int == ends
                    && info?["commitmentAutoRenewProductId"] as? String == "y.all")
            #expect(
                info?["commitmentRenewalBillingPlanType"] as? String == "MONTHLY"
                    && info?["commitmentRenewalPrice"] as? Int == 4990)
        }
        #expect((open["commitmentInfo"] as? [String: Any])?["commitmentAutoRenewStatus"] as? Int == 1)
        #expect(
            (cancelled["commitmentInfo"] as? [String: Any])?["commitmentAutoRenewStatus"] as? Int == 0, "\(cancelled)")
        // Apple's library turns true into 1 when it reads a count: the JSON itself is checked too.
        func payload(_ jws: String) throws -> [String: Any] {
            var part = String(jws.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
                .replacingOccurrences(of: "_", with: "/")
            part += String(repeating: "=", count: (4 - part.count % 4) % 4)
            let data = try #require(Data(base64Encoded: part))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        func isWhole(_ value: Any?) -> Bool {
            (value as? NSNumber).map { !CompactJSON.isBoolean($0) && $0.doubleValue.rounded() == $0.doubleValue }
                ?? false
        }
        let info = try #require(try payload(history[0])["commitmentInfo"] as? [String: Any])
        #expect(
            ["billingPeriodNumber", "totalBillingPeriods", "commitmentExpiresDate", "commitmentPrice"].allSatisfy {
                isWhole(info[$0])
            }, "\(info)")
        let renewalInfo = try #require(try payload(cancelledRenewal)["commitmentInfo"] as? [String: Any])
        #expect(
            ["commitmentAutoRenewStatus", "commitmentRenewalDate", "commitmentRenewalPrice"].allSatisfy {
                isWhole(renewalInfo[$0])
            }, "\(renewalInfo)")
        #expect(
            renewalInfo["commitmentRenewalBillingPlanType"] is String
                && renewalInfo["commitmentAutoRenewProductId"] is String)
        let text = try await session.run(["subscriptions"])
        #expect(text.stdout.contains("month 3 of 12 of a commitment that ends 31/01/2027"), "\(text.stdout)")
    }

    @Test(
        "What waits for a commitment's end, judged by Apple's verifier: a family member's share of a monthly plan is MONTHLY like the organizer's purchase; an offer code redeemed in the commitment shows in the renewal info as the end's BILLED_UPFRONT renewal, not as the next month's offer; an increase of the monthly price is not told to it, as its commitment ends billed up front; at the end the plan is billed up front on the code's offer"
    )
    func commitmentWaits() async throws {
        let session = try await Session()
        let catalog = session.stateDirectory.appendingPathComponent("family-yearly.json")
        try Data(
            """
            {"name": "Yearly", "bundleId": "com.storefront.yearly", "currency": "EUR", "locale": "en_IE", "policy": "approve", "products": [
              {"id": "y.all", "kind": "autoRenewableSubscription", "title": "All", "price": "49.99", "period": "P1Y", "group": "yearly",
               "monthlyCommitmentPrice": "4.99", "familyShareable": true,
               "codeOffers": [{"id": "BACK", "mode": "payUpFront", "period": "P1Y", "price": "29.99"}]}]}
            """.utf8
        ).write(to: catalog)
        session.environment["STOREFRONT_CATALOG"] = catalog.path
        try await session.run(["clock", "freeze", "2026-01-31T10:00:00Z"]).expectSuccess()
        try await session.signUp("mom", device: "phone")
        try await session.run(["buy", "y.all", "--billing", "monthly", "--device", "phone"]).expectSuccess()
        try await session.signUp("kid", device: "tablet")
        try await session.run(["family", "create", "--device", "phone"]).expectSuccess()
        try await session.run(["family", "add", "kid", "--device", "phone"]).expectSuccess()
        try await session.run(["family", "accept", "--device", "tablet"]).expectSuccess()
        let shared = try #require(
            try await session.array(["history", "--device", "tablet"]).first?["signedTransaction"] as? String)

        try await session.run(["clock", "advance", "2mo"]).expectSuccess()
        let code = try #require(
            (try await session.object(["offer-codes", "create", "BACK", "--device", "phone"])["codes"] as? [String])?
                .first)
        try await session.run(["redeem", code, "--device", "phone"]).expectSuccess()
        try await session.run([
            "price", "set", "y.all", "5.99", "--billing", "monthly", "--consent-required", "--device", "phone",
        ]).expectSuccess()
        let plan = try #require(
            (try await session.object(["subscriptions", "--device", "phone"])["plans"] as? [[String: Any]])?.first)
        #expect(plan["priceIncrease"] == nil || plan["priceIncrease"] is NSNull, "not told: \(plan)")
        let waiting = try #require(plan["signedRenewalInfo"] as? String)
        let text = try await session.run(["subscriptions", "--device", "phone"]).stdout
        #expect(
            text.contains(
                "renews 30/04/2026, month 3 of 12 of a commitment that renews 31/01/2027, then offer code BACK"),
            "\(text)")

        try await session.run(["clock", "advance", "1y"]).expectSuccess()
        let after = try #require(
            try await session.array(["history", "--device", "phone"]).compactMap { $0["signedTransaction"] as? String }
                .last)
        let results = try await AppleVerifier.verify(
            [("transaction", shared), ("renewal", waiting), ("transaction", after)], session: session,
            bundleID: "com.storefront.yearly"
        )
        for (index, result) in results.enumerated() { #expect(result.ok, "item \(index): \(result.status ?? "")") }
        let share = results[0].decoded
        #expect(
            share["inAppOwnershipType"] as? String == "FAMILY_SHARED"
                && share["billingPlanType"] as? String == "MONTHLY", "\(share)")
        let info = share["commitmentInfo"] as? [String: Any]
        #expect(
            info?["billingPeriodNumber"] as? Int == 1 && info?["commitmentExpiresDate"] as? Int == 1_801_389_600_000,
            "\(String(describing: info))")

        let renewal = results[1].decoded
        #expect(
            renewal["offerType"] == nil && renewal["priceIncreaseStatus"] == nil,
            "the next month has no offer and no increase: \(renewal)")
        #expect(renewal["renewalBillingPlanType"] as? String == "MONTHLY" && renewal["renewalPrice"] as? Int == 4990)
        let end = renewal["commitmentInfo"] as? [String: Any]
        #expect(
            end?["commitmentRenewalBillingPlanType"] as? String == "BILLED_UPFRONT"
                && end?["commitmentRenewalPrice"] as? Int == 29990, "\(String(describing: end))")

        let upfront = results[2].decoded
        #expect(
            upfront["billingPlanType"] as? String == "BILLED_UPFRONT" && upfront["commitmentInfo"] == nil, "\(upfront)")
        #expect(
            upfront["offerType"] as? Int == 3 && upfront["offerIdentifier"] as? String == "BACK"
                && upfront["price"] as? Int == 29990)
        #expect(upfront["purchaseDate"] as? Int == 1_801_389_600_000, "when the commitment ended")
    }

    @Test(
        "Switching billing plans, judged by Apple's verifier: buy --billing upfront in a commitment makes the renewal info say the commitment's end renews BILLED_UPFRONT at the yearly price; buy --billing monthly on a plan billed up front makes it say the next renewal is MONTHLY at the monthly price; the transaction then is month 1 of a commitment"
    )
    func billingSwitch() async throws {
        let session = try await Session.yearly(signedUp: "ann")
        try await session.run(["buy", "y.all", "--billing", "monthly"]).expectSuccess()
        try await session.run(["clock", "advance", "2mo"]).expectSuccess()
        try await session.run(["buy", "y.all", "--billing", "upfront"]).expectSuccess()
        func plan() async throws -> [String: Any] {
            try #require((try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        }
        let toUpfront = try await plan()
        #expect(toUpfront["nextBillingPlan"] as? String == "BILLED_UPFRONT", "\(toUpfront)")
        let told = try await session.array(["notifications"]).last
        #expect(
            told?["type"] as? String == "DID_CHANGE_RENEWAL_PREF" && told?["subtype"] is NSNull,
            "\(String(describing: told))")
        try await session.run(["clock", "advance", "1y"]).expectSuccess()
        try await session.run(["buy", "y.all", "--billing", "monthly"]).expectSuccess()
        let toMonthly = try await plan()
        #expect(
            toMonthly["nextBillingPlan"] as? String == "MONTHLY" && toMonthly["commitment"] is NSNull, "\(toMonthly)")
        try await session.run(["clock", "advance", "1y"]).expectSuccess()
        let last = try #require(
            try await session.array(["history"]).compactMap { $0["signedTransaction"] as? String }.last)
        let items: [(kind: String, jws: String)] = [
            ("renewal", try #require(toUpfront["signedRenewalInfo"] as? String)),
            ("renewal", try #require(toMonthly["signedRenewalInfo"] as? String)),
            ("transaction", last),
        ]
        let results = try await AppleVerifier.verify(items, session: session, bundleID: "com.storefront.yearly")
        for (index, result) in results.enumerated() { #expect(result.ok, "item \(index): \(result.status ?? "")") }
        let (first, second, month) = (results[0].decoded, results[1].decoded, results[2].decoded)
        #expect(
            first["renewalBillingPlanType"] as? String == "MONTHLY" && first["renewalPrice"] as? Int == 4990,
            "the next month still comes: \(first)")
        let end = first["commitmentInfo"] as? [String: Any]
        #expect(
            end?["commitmentRenewalBillingPlanType"] as? String == "BILLED_UPFRONT"
                && end?["commitmentRenewalPrice"] as? Int == 49990, "\(String(describing: end))")
        #expect(
            end?["commitmentAutoRenewStatus"] as? Int == 1 && end?["commitmentAutoRenewProductId"] as? String == "y.all"
        )
        #expect(
            second["renewalBillingPlanType"] as? String == "MONTHLY" && second["renewalPrice"] as? Int == 4990
                && second["commitmentInfo"] == nil, "\(second)")
        // 31 March 2028: month 3 of the commitment that began when the year billed up front ended.
        let info = month["commitmentInfo"] as? [String: Any]
        #expect(
            month["billingPlanType"] as? String == "MONTHLY" && info?["billingPeriodNumber"] as? Int == 3, "\(month)")
        #expect(
            info?["commitmentExpiresDate"] as? Int == 1_864_548_000_000, "31 January 2029: \(String(describing: info))")
    }

    @Test(
        "S5 each simulated Verification error signs data that Apple's verifier rejects, its own way; the history says why. On a team the server signs, and breaks it the same way",
        arguments: [false, true])
    func unverified(onTeam: Bool) async throws {
        let session = try await Session()
        // On a team: the developer's device (the errors are the developer's to set), signed in as ann.
        var root = session
        var server: Server?
        if onTeam {
            root = try await Session()
            server = try await Server(root, arguments: [])
            session.environment["STOREFRONT_SERVER"] = server?.base
            session.environment["STOREFRONT_DEVELOPER_TOKEN"] = try await root.run(["developer-token"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        defer { withExtendedLifetime(server) {} }
        try await session.signUp("ann")
        let cases: [(String, String)] = [
            ("invalidSignature", "VERIFICATION_FAILURE"), ("invalidCertificateChain", "INVALID_CHAIN_LENGTH"),
            ("revokedCertificate", "VERIFICATION_FAILURE"), ("invalidEncoding", "VERIFICATION_FAILURE"),
            ("invalidDeviceVerification", "INVALID_APP_IDENTIFIER"),
            ("missingRequiredProperties", "INVALID_ENVIRONMENT"),
        ]
        for (error, _) in cases {
            try await session.run(["errors", "set", "verification", error]).expectSuccess()
            try await session.run(["buy", "com.storefront.randomviews"]).expectSuccess()
        }
        try await session.run(["errors", "clear"]).expectSuccess()
        try await session.run(["buy", "com.storefront.randomviews"]).expectSuccess()
        let history = try await session.array(["history"])
        #expect(history.count == cases.count + 1)
        let results = try await AppleVerifier.verify(
            history.map { ("transaction", $0["signedTransaction"] as! String) }, session: root,
            bundleID: "com.storefront.comics")
        for ((error, status), (result, transaction)) in zip(cases, zip(results, history)) {
            #expect(!result.ok && result.status == status, "\(error): \(result.status ?? "accepted")")
            #expect(
                transaction["verified"] as? Bool == false && transaction["unverifiedBecause"] is String,
                Comment(rawValue: error))
        }
        #expect(results.last?.ok == true, "cleared: verified again")
        let text = try await session.run(["history"]).stdout
        #expect(text.contains("(unverified: invalidSignature — the signature does not match)"), "\(text)")
    }

    @Test(
        "S1 A5 on a team: a restore's transaction on another device is signed by the server too, naming the purchase it restores; the server signs no restore of a purchase the account does not own, nor under a transaction's id",
        arguments: StrangerTests.Backend.allCases)
    func teamRestores(backend: StrangerTests.Backend) async throws {
        let host = try await Session()
        let server = try await Server(
            host, arguments: backend == .postgres ? ["--database", try TestPostgres.freshDatabase()] : [])
        func machine() async throws -> Session {
            let session = try await Session()
            session.environment["STOREFRONT_SERVER"] = server.base
            return session
        }
        let phone = try await machine()
        let tablet = try await machine()
        let stranger = try await machine()
        try await phone.signUp("ann")
        try await tablet.signIn("ann")
        try await stranger.signUp("eve")
        let comic = "com.storefront.comic.nightshift"
        let purchase = try #require(try await phone.object(["buy", comic])["id"] as? String)
        try await tablet.run(["restore"]).expectSuccess()
        let restored = try #require(try await tablet.array(["history"]).first { $0["state"] as? String == "restored" })
        let restoredID = try #require(restored["id"] as? String)
        let verified = try await AppleVerifier.verify(
            [("transaction", try #require(restored["signedTransaction"] as? String))], session: host,
            bundleID: "com.storefront.comics")
        #expect(verified.first?.ok == true, "\(verified)")
        let decoded = verified.first?.decoded ?? [:]
        #expect(
            decoded["transactionId"] as? String == restoredID && decoded["originalTransactionId"] as? String == purchase
                && decoded["productId"] as? String == comic, "\(decoded)")

        // Through the raw wire: eve's session restores none of ann's purchases, and ann's none
        // under an id a transaction already has.
        let wire = StrangerTests.Wire(base: server.base)
        struct Signing: Encodable {
            var account: String
            var items: [SigningRequest]
        }
        func restore(_ account: String, id: String, session: String) throws -> Any? {
            let request = Signing(
                account: account,
                items: [.restored(id: id, originalID: purchase, purchaseDate: Date(), verificationError: nil)])
            let answer = try wire.call("signed", request, session: session)
            #expect(answer.status == 200, "\(answer)")
            return (answer.body["value"] as? [Any])?.first
        }
        let ann = try wire.session("ann", password: "pw-ann")
        let eve = try wire.session("eve", password: "pw-eve")
        #expect(try restore("ann", id: "2000000000000001", session: ann) is String)
        #expect(try restore("eve", id: "2000000000000002", session: eve) is NSNull)
        #expect(try restore("ann", id: purchase, session: ann) is NSNull)
    }

    @Test(
        "S1 on a team, as Apple signs with one root: a device's transactions, renewal info, app transaction, notifications and the request its cancel sends the retention endpoint are signed by the server from its records; the serving machine's root verifies them, the device's own does not, and they are the Server API's payloads",
        arguments: StrangerTests.Backend.allCases)
    func teamRoots(backend: StrangerTests.Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let device = try await team.machine()
        let developer = try await team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        try await device.signUp("ann")
        let plan = "com.storefront.selfies.sub.allaccess"
        let id = try #require(try await device.object(["buy", plan])["id"] as? String)

        // Everything the device shows, signed.
        let transaction = try #require(try await device.object(["transaction", id])["transaction"] as? [String: Any])
        var items: [(kind: String, jws: String)] = [
            ("transaction", try #require(transaction["signedTransaction"] as? String))
        ]
        let history = try await device.array(["history"])
        #expect(history.count == 1)
        for shown in history { items.append(("transaction", try #require(shown["signedTransaction"] as? String))) }
        let plans = try #require(try await device.object(["subscriptions"])["plans"] as? [[String: Any]])
        #expect(plans.count == 1)
        for shown in plans {
            items.append(("renewal", try #require(shown["signedRenewalInfo"] as? String)))
            items.append(("transaction", try #require(shown["signedTransaction"] as? String)))
        }
        items.append(
            ("appTransaction", try #require(try await device.object(["app"])["signedAppTransaction"] as? String)))
        // The purchase's notification, not delivered (no webhook): signed now, by the server.
        let notification = try #require(
            try await device.array(["notifications"]).first { $0["type"] as? String == "SUBSCRIBED" })
        #expect(notification["signedPayload"] is NSNull, "\(notification)")
        let shownNotification =
            try await device.object(["notifications", "show", try #require(notification["uuid"] as? String)])[
                "notification"]
            as? [String: Any]
        items.append(("notification", try #require(shownNotification?["signedPayload"] as? String)))
        let shownAgain =
            try await device.object(["notifications", "show", try #require(notification["uuid"] as? String)])[
                "notification"]
            as? [String: Any]
        #expect(
            shownAgain?["signedPayload"] as? String == items.last?.jws, "kept on the server, to be delivered as shown")

        // One App Store: the device's transaction and renewal info are what Apple's client reads
        // from the Server API for them, but for when each was signed.
        let api = ServeTests()
        let key = try await api.makeKey(developer)
        let answers = try await api.call(
            team.server, key, bundleID: "com.storefront.selfies",
            [["call": "transaction_info", "id": id], ["call": "statuses", "id": id]])
        func payload(_ jws: String?) throws -> [String: Any] {
            var payload = try JWS.decode(try #require(jws)).payload
            payload["signedDate"] = nil
            return payload
        }
        func differences(_ left: [String: Any], _ right: [String: Any]) -> [String] {
            Set(left.keys).union(right.keys).sorted().filter { key in
                !((left[key] as? NSObject).map { value in (right[key] as? NSObject).map(value.isEqual) ?? false }
                    ?? (right[key] == nil))
            }
        }
        let info = try payload(api.result(answers[0])["signedTransactionInfo"] as? String)
        let shownTransaction = try payload(items[0].jws)
        #expect(
            differences(shownTransaction, info).isEmpty,
            "the device's transaction differs from Get Transaction Info's in \(differences(shownTransaction, info))")
        let group = (api.result(answers[1])["data"] as? [[String: Any]])?.first
        let renewal = try payload(
            (group?["lastTransactions"] as? [[String: Any]])?.first?["signedRenewalInfo"] as? String)
        let shownRenewal = try payload(items[2].jws)
        #expect(
            differences(shownRenewal, renewal).isEmpty,
            "the device's renewal info differs from the Server API's in \(differences(shownRenewal, renewal))")

        // M2: the customer opens the plan to cancel; the App Store asks the developer's endpoint.
        let answerFile = team.host.stateDirectory.appendingPathComponent("answer.json")
        let endpoint = try await Receiver(script: "retention_endpoint.py", arguments: [answerFile.path])
        var setup = RetentionSetup()
        setup.realtimeURLs = ["Sandbox": endpoint.url]
        #expect(
            try StrangerTests.Wire(base: team.server.base).call("replaceRetentionSetup", setup, developer: team.token)
                .status == 200)
        try await device.run(["cancel", plan]).expectSuccess()
        items.append(("realtime", try #require(endpoint.payloads.first, "the endpoint was asked")))

        let servers = try await AppleVerifier.verify(items, session: team.host, bundleID: "com.storefront.selfies")
        for (item, result) in zip(items, servers) {
            #expect(result.ok, "\(item.kind) with the server's root: \(result.status ?? "")")
        }
        let own = try await AppleVerifier.verify(items, session: device, own: true, bundleID: "com.storefront.selfies")
        // The root a team device prints is the server's: the one that verifies all of it.
        #expect(
            try await device.object(["certificate"])["der"] as? String == team.host.object(["certificate"])["der"]
                as? String)
        #expect(
            try await device.object(["certificate", "--own"])["der"] as? String != team.host.object(["certificate"])[
                "der"]
                as? String)
        for (item, result) in zip(items, own) {
            #expect(
                !result.ok && result.status == "VERIFICATION_FAILURE",
                "\(item.kind) with the device's root: \(result.status ?? "ok")")
        }
        #expect(
            servers.first?.decoded["transactionId"] as? String == id
                && servers.last?.decoded["originalTransactionId"] as? String == id)
    }

    @Test(
        "F3 a comic bought in the United States and one bought after the account moved to Britain, judged by Apple's verifier: each is signed with the storefront, its id, the currency and the price where it was bought; an unknown storefront code is bad input"
    )
    func storefrontMove() async throws {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/world.json").path
        try await session.signUp("ann")
        try await session.run(["buy", "com.storefront.comic.nightshift"]).expectSuccess()
        let unknown = try await session.run(["storefront", "set", "XYZ"])
        #expect(unknown.status == 2, "an unknown code is bad input: \(unknown)")
        try await session.run(["storefront", "set", "GBR"]).expectSuccess()
        try await session.run(["buy", "com.storefront.comic.catjudge"]).expectSuccess()
        let history = try await session.array(["history"])
        let signed = history.compactMap { $0["signedTransaction"] as? String }
        #expect(signed.count == 2, "\(history)")
        let results = try await AppleVerifier.verify(
            signed.map { (kind: "transaction", jws: $0) }, session: session, bundleID: "com.storefront.comics")
        for result in results { #expect(result.ok, "\(result.status ?? "")") }
        let byProduct = Dictionary(
            results.map { ($0.decoded["productId"] as? String ?? "", $0.decoded) }, uniquingKeysWith: { a, _ in a })
        let usa = try #require(byProduct["com.storefront.comic.nightshift"])
        let gbr = try #require(byProduct["com.storefront.comic.catjudge"])
        #expect(
            usa["storefront"] as? String == "USA" && usa["storefrontId"] as? String == "143441"
                && usa["currency"] as? String == "USD" && usa["price"] as? Int == 990, "\(usa)")
        #expect(
            gbr["storefront"] as? String == "GBR" && gbr["storefrontId"] as? String == "143444"
                && gbr["currency"] as? String == "GBP" && gbr["price"] as? Int == 890, "\(gbr)")
    }
}

// Auto-renewable plans through the real binary: RW Selfies' auto-renewable plans driven as a script would.
import Foundation
import Testing

@Suite("storefront auto-renewable subscriptions", .serialized)
struct SubscriptionCommandTests {
    let monthly = "com.storefront.selfies.sub.allaccess.monthly"
    let weekly = "com.storefront.selfies.sub.allaccess"
    let oneAWeek = "com.storefront.selfies.sub.oneaweek"

    func selfies() async throws -> Session {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try await session.signUp("ann")
        return session
    }

    func plan(_ session: Session) async throws -> [String: Any] {
        let plans = try #require(try await session.object(["subscriptions"])["plans"] as? [[String: Any]])
        return try #require(plans.first)
    }

    @Test("products lists each plan's period, group, rank and offer; a trial renews monthly as the clock passes")
    func trialAndRenewals() async throws {
        let session = try await selfies()
        let rows = try await session.array(["products"])
        #expect(rows.count == 4)
        let row = try #require(rows.first { $0["id"] as? String == monthly })
        #expect(row["kind"] as? String == "autoRenewableSubscription")
        #expect(row["period"] as? String == "P1M" && row["group"] as? String == "selfies" && row["rank"] as? Int == 1)
        #expect((row["introOffer"] as? [String: Any])?["mode"] as? String == "freeTrial")
        #expect(row["action"] as? String == "subscribe")
        #expect(try await session.object(["buy", monthly])["state"] as? String == "purchased")
        var current = try await plan(session)
        #expect(current["phase"] as? String == "trial")
        #expect(current["renewsAt"] as? String == "2026-01-22T12:00:00Z")
        try await session.run(["clock", "advance", "3mo"]).expectSuccess()
        let receipt = try await session.object(["receipt"])
        #expect(receipt["consistent"] as? Bool == true)
        let renewals = (receipt["entries"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "renewal" }
        #expect(
            renewals.compactMap { $0["purchaseDate"] as? String } == [
                "2026-01-22T12:00:00Z", "2026-02-22T12:00:00Z", "2026-03-22T12:00:00Z",
            ])
        current = try await plan(session)
        #expect(current["phase"] as? String == "active" && current["renewals"] as? Int == 3)
        let status = try await session.object(["status"])
        #expect((status["plans"] as? [[String: Any]])?.count == 1)
        #expect(status["entitlements"] as? [String] == ["all-selfies"])
        #expect(try await session.run(["buy", monthly]).status == 1, "the plan one has")
    }

    @Test("cancel, renew-on, refund, expire and force-renew, each with --json and a clear refusal")
    func actions() async throws {
        let session = try await selfies()
        try await session.run(["buy", weekly]).expectSuccess()
        let cancelled = try await session.object(["cancel", weekly])
        #expect(cancelled["phase"] as? String == "cancelled" && cancelled["hasAccess"] as? Bool == true)
        let again = try await session.run(["cancel", weekly])
        #expect(again.status == 1 && again.stderr.contains("auto-renew is already off"), "\(again)")
        #expect(try await session.object(["renew-on", weekly])["autoRenew"] as? Bool == true)
        try await session.run(["clock", "advance", "2d"]).expectSuccess()
        let renewed = try await session.object(["force-renew", weekly])
        #expect(renewed["renewals"] as? Int == 1 && renewed["expires"] as? String == "2026-01-24T12:00:00Z")
        let transaction = try #require(renewed["transaction"] as? String)
        let refunded = try await session.object(["refund", String(transaction.prefix(6))])
        #expect(refunded["hasAccess"] as? Bool == false && refunded["endReason"] as? String == "refunded")
        let expire = try await session.run(["expire", weekly])
        #expect(expire.status == 1 && expire.stderr.contains("it has expired"), "\(expire)")
        #expect(try await session.run(["cancel", "com.storefront.nothing"]).status == 2)
        #expect(try await session.object(["receipt"])["consistent"] as? Bool == true)
    }

    @Test("billing retry and grace from the command line; an upgrade takes effect at once")
    func billingAndUpgrade() async throws {
        let session = try await selfies()
        try await session.run(["buy", oneAWeek]).expectSuccess()
        try await session.run(["clock", "advance", "2d"]).expectSuccess()
        try await session.run(["buy", weekly]).expectSuccess()
        var current = try await plan(session)
        #expect(current["product"] as? String == weekly && current["expires"] as? String == "2026-01-24T12:00:00Z")
        let credit = try #require(
            (try await session.object(["receipt"])["entries"] as? [[String: Any]])?.first {
                $0["event"] as? String == "credit"
            })
        #expect(credit["price"] as? String == "-0.71")
        #expect(try await session.object(["grace", "16d"])["graceDays"] as? Int == 16)
        #expect(try await session.object(["billing", "fail"])["billing"] as? String == "fail")
        try await session.run(["clock", "advance", "8d"]).expectSuccess()
        current = try await plan(session)
        #expect(current["phase"] as? String == "grace-period" && current["hasAccess"] as? Bool == true)
        #expect(current["graceUntil"] as? String == "2026-02-09T12:00:00Z")
        try await session.run(["billing", "ok"]).expectSuccess()
        current = try await plan(session)
        #expect(current["phase"] as? String == "active" && current["expires"] as? String == "2026-01-31T12:00:00Z")
        #expect(try await session.run(["grace", "90d"]).status == 2)
    }

    @Test("R9 an accelerated clock renews as the sandbox does, 12 times, then the plan expires")
    func sandbox() async throws {
        let session = try await selfies()
        try await session.run(["clock", "rate", "sandbox"]).expectSuccess()
        try await session.run(["buy", weekly]).expectSuccess()
        try await session.run(["clock", "advance", "1y"]).expectSuccess()
        let current = try await plan(session)
        #expect(current["renewals"] as? Int == 12)
        #expect(current["phase"] as? String == "expired")
        #expect((current["endReason"] as? String)?.contains("12 times") == true)
        let lines = try #require(try await session.object(["receipt"])["entries"] as? [[String: Any]])
        #expect(lines.filter { $0["event"] as? String == "renewal" }.count == 12)
    }

    @Test("Q3 a plan purchase killed after payment is finished by the next command, and the plan is there once")
    func crashAfterPayment() async throws {
        let session = try await selfies()
        let crashed = try await session.run(["buy", weekly], environment: ["STOREFRONT_FAULT": "crash-before-finish"])
        #expect(crashed.signalled && crashed.status == 9, "\(crashed)")
        let next = try await session.run(["subscriptions", "--json"])
        #expect(next.stderr.contains("delivered 1 unfinished transaction(s)"), "\(next)")
        let current = try await plan(session)
        #expect(current["product"] as? String == weekly && current["phase"] as? String == "active")
        #expect(
            try await session.array(["history"]).allSatisfy {
                $0["finished"] as? Bool == true && $0["state"] as? String == "purchased"
            })
        let receipt = try await session.object(["receipt"])
        #expect((receipt["entries"] as? [[String: Any]])?.filter { $0["event"] as? String == "purchase" }.count == 1)
        #expect(receipt["consistent"] as? Bool == true)
    }
}

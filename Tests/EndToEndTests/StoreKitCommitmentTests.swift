// M4 from a real .storekit file, judged by Apple's library: RevenueCat's v5.0 unit-test catalog sold
// on its monthly billing plan, from a new customer's free months to the commitment's end.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@Suite("a commitment year from a real .storekit file, judged by Apple's library", .tags(.python), .notInFastRun)
struct StoreKitCommitmentTests {
    @Test(
        "RevenueCat's 12-month commitment bought monthly by a new customer: two free months on the monthly plan's own offer, then twelve paid months at 0.50, each MONTHLY and numbered 1 to 12 in one commitment of 6.00; cancelled in its third month it bills all twelve, then expires"
    )
    func revenueCatCommitmentYear() async throws {
        let id = "com.revenuecat.sampleapp.monthly.12mocommitment"
        let session = try await Session()
        let sample = repositoryRoot.appendingPathComponent(
            "Tests/Fixtures/storekit/samples/revenuecat-unit-tests.storekit")
        session.environment["STOREFRONT_CATALOG"] = sample.path
        try await session.run(["clock", "freeze", "2026-01-31T10:00:00Z"]).expectSuccess()
        try await session.signUp("ann")
        // The sample's storefront is the USA, where Apple sells no 12-month commitment: refused by
        // name, nothing bought. The same file set in Ireland sells it.
        let usa = try await session.run(["buy", id, "--billing", "monthly"])
        #expect(
            usa.status == 1 && usa.stderr.contains("does not sell \(id)'s monthly plan")
                && usa.stderr.contains("in storefront USA"), "\(usa)")
        let irish = session.stateDirectory.appendingPathComponent("revenuecat-ireland.storekit")
        try String(contentsOf: sample, encoding: .utf8)
            .replacingOccurrences(of: "\"_storefront\" : \"USA\"", with: "\"_storefront\" : \"IRL\"")
            .write(to: irish, atomically: true, encoding: .utf8)
        session.environment["STOREFRONT_CATALOG"] = irish.path
        try await session.run(["buy", id, "--billing", "monthly"]).expectSuccess()
        // The third month of the commitment: 31 May to 30 June, after the free March and April.
        try await session.run(["clock", "advance", "130d"]).expectSuccess()
        try await session.run(["cancel", id]).expectSuccess()
        try await session.run(["clock", "advance", "1y"]).expectSuccess()
        let plan = try #require((try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        #expect(plan["phase"] as? String == "expired", "\(plan)")
        let history = try await session.array(["history"]).compactMap { $0["signedTransaction"] as? String }
        #expect(history.count == 13, "the free months and twelve paid ones: \(history.count)")
        let first = try #require(history.first)
        let bundleID = try #require(try JWS.decode(first).payload["bundleId"] as? String)
        let results = try await AppleVerifier.verify(
            history.map { (kind: "transaction", jws: $0) }, session: session, bundleID: bundleID)
        for (index, result) in results.enumerated() { #expect(result.ok, "item \(index): \(result.status ?? "")") }
        let periods = results.map(\.decoded).sorted {
            ($0["purchaseDate"] as? Int ?? 0) < ($1["purchaseDate"] as? Int ?? 0)
        }
        let trial = try #require(periods.first)
        #expect(trial["billingPlanType"] as? String == "MONTHLY", "\(trial)")
        #expect(
            trial["offerType"] as? Int == 1 && trial["offerPeriod"] as? String == "P2M" && trial["price"] as? Int == 0)
        #expect(trial["commitmentInfo"] == nil, "the free months are not one of the twelve")
        var ends: Set<Int> = []
        for (index, month) in periods.dropFirst().enumerated() {
            let info = month["commitmentInfo"] as? [String: Any]
            #expect(month["billingPlanType"] as? String == "MONTHLY" && month["price"] as? Int == 500, "\(month)")
            #expect(
                info?["billingPeriodNumber"] as? Int == index + 1 && info?["totalBillingPeriods"] as? Int == 12
                    && info?["commitmentPrice"] as? Int == 6_000, "\(String(describing: info))")
            if let end = info?["commitmentExpiresDate"] as? Int { ends.insert(end) }
        }
        #expect(ends == [1_806_487_200_000], "one commitment, ending 31 March 2027: \(ends)")
    }
}

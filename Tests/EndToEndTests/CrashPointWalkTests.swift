// Q3 P1 A4 A5 with real processes: `STOREFRONT_FAULT=crash-at:POINT` kills the binary with SIGKILL
// at each named durability step, for every kind of purchase, bought at once or approved after
// Ask to Buy; the next command on that device, and the account's other device, then show exactly
// the completed purchase (or, cut before the store answered, nothing charged).
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@Suite("crash points, walked with SIGKILL", .tags(.slow), .notInFastRun)
struct CrashPointWalkTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let product: String
        let deferred: Bool
        let point: CrashPoint
        var testDescription: String { "\(product)\(deferred ? " (Ask to Buy)" : "") at \(point.rawValue)" }
        var isPlan: Bool { product.contains("selfies") }
    }

    static let products = [
        "com.storefront.randomviews", "com.storefront.comic.nightshift", "com.storefront.sub.3months",
        "com.storefront.selfies.sub.oneaweek",
    ]
    static let cases: [Case] = products.flatMap { product in
        [CrashPoint.purchaseRecorded, .paymentRecorded, .purchaseMarked, .purchaseDelivered].map {
            Case(product: product, deferred: false, point: $0)
        }
            + [CrashPoint.purchaseRecorded, .purchaseWaiting, .paymentRecorded, .purchaseMarked, .purchaseDelivered]
            .map { Case(product: product, deferred: true, point: $0) }
    }

    func session(plan: Bool) async throws -> Session {
        let session = try await Session()
        if plan {
            session.environment["STOREFRONT_CATALOG"] =
                repositoryRoot.appendingPathComponent("assets/selfies.json").path
        }
        try await session.signUp("alice", device: "phone")
        try await session.signIn("alice", device: "tablet")
        return session
    }

    @Test("the crash-points command lists every point")
    func listed() async throws {
        let session = try await Session()
        let listed = try await session.array(["crash-points"]).compactMap { $0["name"] as? String }
        #expect(listed == CrashPoint.allCases.map(\.rawValue))
        let unknown = try await session.run(["status"], environment: ["STOREFRONT_FAULT": "crash-at:nowhere"])
        #expect(unknown.status == 2 && unknown.stderr.contains("purchase-marked"), "\(unknown)")
    }

    @Test(
        "Q3 SIGKILL at each point of each kind of purchase: the next command completes it exactly once",
        arguments: cases)
    func walk(_ example: Case) async throws {
        let session = try await session(plan: example.isPlan)
        let crash = ["STOREFRONT_FAULT": "crash-at:\(example.point.rawValue)"]
        let killed: RunResult
        if example.deferred {
            let bought = try await session.run(
                ["buy", example.product, "--device", "phone", "--outcome", "defer"],
                environment: example.point == .purchaseRecorded || example.point == .purchaseWaiting ? crash : [:]
            )
            if example.point == .purchaseRecorded || example.point == .purchaseWaiting {
                killed = bought
            } else {
                bought.expectSuccess()
                let id = try #require(
                    try await session.array(["pending", "--device", "phone"]).first?["id"] as? String)
                killed = try await session.run(["approve", id, "--device", "phone"], environment: crash)
            }
        } else {
            killed = try await session.run(["buy", example.product, "--device", "phone"], environment: crash)
        }
        #expect(killed.signalled && killed.status == SIGKILL, "not killed at \(example.point.rawValue): \(killed)")

        // The next command on the phone completes what the crash cut; Ask to Buy is then approved.
        let history = try await session.array(["history", "--device", "phone"])
        let charged = example.point != .purchaseRecorded
        if example.point == .purchaseWaiting {
            #expect(history.map { $0["state"] as? String } == ["deferred"])
            let id = try #require(history.first?["id"] as? String)
            try await session.run(["approve", id, "--device", "phone"]).expectSuccess()
        }
        let final = try await session.array(["history", "--device", "phone"])
        #expect(final.count == 1, "\(final)")
        let transaction = try #require(final.first)
        if charged {
            #expect(
                transaction["state"] as? String == "purchased" && transaction["finished"] as? Bool == true,
                "\(transaction)")
        } else {
            #expect(
                transaction["state"] as? String == "failed" && transaction["reason"] as? String == "network",
                "\(transaction)")
        }

        // The receipt has it exactly once (or not at all), and recomputes to what is stored (A6).
        let receipt = try await session.object(["receipt", "--device", "phone"])
        #expect(receipt["consistent"] as? Bool == true, "\(receipt)")
        let ids = (receipt["entries"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.filter { $0 == transaction["id"] as? String }.count == (charged ? 1 : 0), "\(ids)")

        // Both devices show the content exactly once.
        try await session.run(["restore", "--device", "tablet"]).expectSuccess()
        for device in ["phone", "tablet"] {
            let status = try await session.object(["status", "--device", device])
            switch example.product {
            case Self.products[0]:
                // Consumables belong to the device that bought them (R4): five views once, on the phone.
                #expect(
                    status["randomViewsRemaining"] as? Int == (charged && device == "phone" ? 5 : 0),
                    "\(device): \(status)")
            case Self.products[1]:
                #expect(
                    (status["owned"] as? [String] ?? []) == (charged ? [example.product] : []), "\(device): \(status)")
            case Self.products[2]:
                #expect(
                    (status["expires"] as? String) == (charged ? "2026-04-16T12:00:00Z" : nil), "\(device): \(status)")
            default:
                let plans = status["plans"] as? [[String: Any]] ?? []
                #expect(
                    plans.map { $0["product"] as? String } == (charged ? [example.product] : []), "\(device): \(status)"
                )
            }
        }
    }

    @Test(
        "A5 SIGKILL during restore, at each of its points: the next command delivers what was restored",
        arguments: [CrashPoint.restoreRecorded, .restoreDelivered])
    func restore(_ point: CrashPoint) async throws {
        let session = try await session(plan: false)
        try await session.run(["buy", "com.storefront.comic.nightshift", "--device", "tablet"]).expectSuccess()
        let killed = try await session.run(
            ["restore", "--device", "phone"], environment: ["STOREFRONT_FAULT": "crash-at:\(point.rawValue)"])
        #expect(killed.signalled, "\(killed)")
        let history = try await session.array(["history", "--device", "phone"])
        #expect(
            history.map { "\($0["state"] as? String ?? "") \($0["finished"] as? Bool ?? false)" } == ["restored true"],
            "\(history)")
        #expect(
            try await session.object(["status", "--device", "phone"])["owned"] as? [String] == [
                "com.storefront.comic.nightshift"
            ])
    }

    @Test("SIGKILL just after renewals are written: the next command shows them once, and the receipt recomputes")
    func renewal() async throws {
        let session = try await session(plan: true)
        try await session.run(["buy", "com.storefront.selfies.sub.oneaweek", "--device", "phone"]).expectSuccess()
        let killed = try await session.run(
            ["clock", "advance", "3w", "--device", "phone"],
            environment: ["STOREFRONT_FAULT": "crash-at:renewals-recorded"])
        #expect(killed.signalled, "\(killed)")
        let plans =
            try await session.object(["subscriptions", "--device", "tablet"])["plans"] as? [[String: Any]] ?? []
        #expect(plans.first?["renewals"] as? Int == 3, "\(plans)")
        #expect(try await session.object(["receipt", "--device", "phone"])["consistent"] as? Bool == true)
    }

    @Test(
        "O6 SIGKILL after a new price is stored, before anyone is told: the next command tells the subscriber once, and consent then works"
    )
    func priceChanged() async throws {
        let session = try await session(plan: true)
        let product = "com.storefront.selfies.sub.oneaweek"
        try await session.run(["buy", product, "--device", "phone"]).expectSuccess()
        try await session.run(["clock", "advance", "1h"]).expectSuccess()
        let killed = try await session.run(
            ["price", "set", product, "1.49", "--consent-required", "--device", "phone"],
            environment: ["STOREFRONT_FAULT": "crash-at:price-changed"])
        #expect(killed.signalled, "\(killed)")
        // The price is stored: the command that died had written it.
        #expect(
            (try await session.object(["price"])["changes"] as? [[String: Any]])?.first?["price"] as? String == "1.49")
        let plans =
            try await session.object(["subscriptions", "--device", "tablet"])["plans"] as? [[String: Any]] ?? []
        let increase = plans.first?["priceIncrease"] as? [String: Any]
        #expect(increase?["price"] as? String == "1.49" && increase?["answer"] is NSNull, "\(plans)")
        try await session.run(["price", "consent", product, "--device", "tablet"]).expectSuccess()
        let entries = try await session.object(["receipt", "--device", "phone"])["entries"] as? [[String: Any]] ?? []
        #expect(entries.filter { $0["event"] as? String == "price-increase" }.count == 1)
        #expect(entries.filter { $0["event"] as? String == "price-consent" }.count == 1)
        #expect(try await session.object(["receipt", "--device", "phone"])["plansConsistent"] as? Bool == true)
    }

    @Test(
        "O7 SIGKILL after a refund request is written, before the device's policy answers: the next start answers it once"
    )
    func refundRequested() async throws {
        let session = try await session(plan: false)
        let comic = try #require(
            try await session.object(["buy", "com.storefront.comic.nightshift", "--device", "phone"])["id"] as? String)
        try await session.run(["refund-request", "policy", "approve", "--device", "phone"]).expectSuccess()
        let killed = try await session.run(
            ["refund-request", comic, "--device", "phone"],
            environment: ["STOREFRONT_FAULT": "crash-at:refund-requested"])
        #expect(killed.signalled, "\(killed)")
        let requests =
            try await session.object(["refund-request", "list", "--device", "phone"])["requests"] as? [[String: Any]]
            ?? []
        #expect(requests.map { $0["state"] as? String } == ["approved"], "\(requests)")
        #expect(try await session.object(["status", "--device", "tablet"])["owned"] as? [String] == [])
        let refunds = try await session.array(["notifications"]).filter { $0["type"] as? String == "REFUND" }
        #expect(refunds.count == 1)
    }

    @Test(
        "O5 SIGKILL after a member is taken out of the family, before the share is revoked: the member's next command revokes it once"
    )
    func familyChanged() async throws {
        let session = try await session(plan: false)
        try await session.signUp("mom", device: "mom-phone")
        try await session.run(["family", "create", "--device", "mom-phone"]).expectSuccess()
        try await session.run(["family", "add", "alice", "--device", "mom-phone"]).expectSuccess()
        try await session.run(["family", "accept", "--device", "phone"]).expectSuccess()
        try await session.run(["buy", "com.storefront.comic.nightshift", "--device", "mom-phone"]).expectSuccess()
        #expect(
            try await session.object(["status", "--device", "phone"])["owned"] as? [String] == [
                "com.storefront.comic.nightshift"
            ])
        let killed = try await session.run(
            ["family", "leave", "alice", "--device", "mom-phone"],
            environment: ["STOREFRONT_FAULT": "crash-at:family-changed"])
        #expect(killed.signalled, "\(killed)")
        #expect(try await session.object(["status", "--device", "tablet"])["owned"] as? [String] == [])
        #expect(try await session.object(["status", "--device", "phone"])["owned"] as? [String] == [])
        let revokes = try await session.array(["notifications", "--device", "phone"]).filter {
            $0["type"] as? String == "REVOKE"
        }
        #expect(revokes.count == 1)
        #expect(try await session.object(["receipt", "--device", "phone"])["consistent"] as? Bool == true)
    }

    @Test(
        "Q6 A6 a year of monthly renewals: one purchase and twelve renewals in each device's history, once each, also after SIGKILL between receiving and finishing"
    )
    func yearOfRenewals() async throws {
        let session = try await session(plan: true)
        try await session.run(["clock", "freeze", "2026-01-31T10:00:00Z"]).expectSuccess()
        // The group's trial is used first and lapses, so the year is paid renewals.
        try await session.run(["buy", "com.storefront.selfies.sub.allaccess.monthly", "--device", "phone"])
            .expectSuccess()
        try await session.run(["cancel", "com.storefront.selfies.sub.allaccess.monthly", "--device", "phone"])
            .expectSuccess()
        try await session.run(["clock", "advance", "1w", "--device", "phone"]).expectSuccess()
        try await session.run(["buy", "com.storefront.selfies.sub.allaccess.monthly", "--device", "phone"])
            .expectSuccess()
        let killed = try await session.run(
            ["clock", "advance", "1y", "--device", "tablet"],
            environment: ["STOREFRONT_FAULT": "crash-at:renewals-received"])
        #expect(killed.signalled, "\(killed)")
        for device in ["tablet", "phone", "tablet"] {
            let history = try await session.array(["history", "--device", device]).filter {
                ($0["product"] as? String)?.contains("allaccess.monthly") == true
            }
            let renewals = history.filter { $0["transactionReason"] as? String == "RENEWAL" }
            #expect(renewals.count == 12, "\(device): \(history.map { $0["id"] ?? "" })")
            #expect(Set(renewals.compactMap { $0["id"] as? String }).count == 12)
            #expect(
                renewals.allSatisfy { $0["finished"] as? Bool == true && $0["states"] as? [String] == ["purchased"] },
                "\(device)")
            #expect(
                history.count - renewals.count == (device == "phone" ? 2 : 0),
                "the two purchases, on the phone that made them")
            #expect(try await session.object(["receipt", "--device", device])["consistent"] as? Bool == true)
        }
    }
}

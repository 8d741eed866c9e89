// Apple-exact: the conformance suite (Tests/Python/conformance.py) tells a long seeded
// story through the command line and a running `storefront serve`, on SQLite and on PostgreSQL,
// and Apple's app-store-server-library judges what a backend receives: every notification
// verifies, its transaction is the one Get Transaction Info answers and has the renewal info's
// original id, every JSON value has the type Apple's models declare, every history filter and the
// refund history are exact, one group keeps one original id. A third catalog plays a commitment
// year (monthly plans with a 12-month commitment) through Apple's lifecycle of them.
import Foundation
import TestSupport
import Testing

@Suite(
    "Apple-exact: the conformance story, judged by Apple's library", .serialized, .tags(.postgres, .python, .slow),
    .notInFastRun)
struct ConformanceTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    @Test(
        "N8 N9 S7 V8 M4 every notification verifies and names a transaction Get Transaction Info answers with the renewal info's original id; Apple's JSON types; exact history filters and refund history; a commitment year follows Apple's lifecycle",
        arguments: Backend.allCases)
    func story(backend: Backend) async throws {
        // A new seed each run (printed, and STOREFRONT_CONFORMANCE_SEED replays one).
        let seed =
            ProcessInfo.processInfo.environment["STOREFRONT_CONFORMANCE_SEED"].flatMap(Int.init)
            ?? Int.random(in: 0..<1 << 30)
        var arguments = ["--seed", String(seed)]
        if backend == .postgres {
            // One database per catalog's server.
            for _ in 0..<3 { arguments += ["--database", try TestPostgres.freshDatabase()] }
        }
        let (report, _, status) = try await AppleVerifier.story("conformance.py", arguments)
        #expect(report["error"] == nil, "seed \(seed): the story could not be told: \(report["error"] ?? "")")
        let failures = report["failures"] as? [String] ?? ["no failures list"]
        #expect(
            failures.isEmpty,
            "seed \(seed) (STOREFRONT_CONFORMANCE_SEED=\(seed) replays it):\n\(failures.joined(separator: "\n"))")
        #expect(status == 0, "seed \(seed): exit \(status)")
        // The story reached every kind of notification it tells; the judge saw each.
        let counts = report["notifications"] as? [String: Int] ?? [:]
        let told = [
            "SUBSCRIBED (INITIAL_BUY)", "SUBSCRIBED (RESUBSCRIBE)", "DID_RENEW", "DID_RENEW (BILLING_RECOVERY)",
            "DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_DISABLED)", "DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_ENABLED)",
            "PRICE_INCREASE (PENDING)", "PRICE_INCREASE (ACCEPTED)", "DID_FAIL_TO_RENEW (GRACE_PERIOD)",
            "GRACE_PERIOD_EXPIRED",
            "DID_FAIL_TO_RENEW", "EXPIRED (BILLING_RETRY)", "EXPIRED (VOLUNTARY)", "DID_CHANGE_RENEWAL_PREF (UPGRADE)",
            "DID_CHANGE_RENEWAL_PREF (DOWNGRADE)", "REVOKE", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION (SUMMARY)",
            "RENEWAL_EXTENSION (FAILURE)", "REFUND", "REFUND_REVERSED", "ONE_TIME_CHARGE", "CONSUMPTION_REQUEST",
            "RESCIND_CONSENT", "EXPIRED (PRICE_INCREASE)",
        ]
        let missing = told.filter { (counts[$0] ?? 0) == 0 }
        #expect(missing.isEmpty, "seed \(seed): the story told no \(missing)")
    }
}

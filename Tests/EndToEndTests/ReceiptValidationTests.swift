// V10 judged from outside: a year of RW Selfies plans (Tests/Python/selfies_receipts.py) through a
// running `storefront serve`, on SQLite and on PostgreSQL, each customer's receipt validated by
// inapppy (PyPI) as SelfieService validates it, every transaction compared with Get Transaction
// Info as Apple's library decodes it, every plan with Get All Subscription Statuses.
import Foundation
import TestSupport
import Testing

@Suite(
    "verifyReceipt, validated by inapppy and judged by Apple's library", .serialized, .tags(.postgres, .python),
    .notInFastRun)
struct ReceiptValidationTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    @Test(
        "V10 a year of Selfies plans: each receipt validates, agrees with Get Transaction Info field for field and with the statuses; SelfieService's upload sees the refund",
        arguments: Backend.allCases)
    func selfiesYear(backend: Backend) async throws {
        let arguments = backend == .postgres ? ["--database", try TestPostgres.freshDatabase()] : []
        let (report, stderr, status) = try await AppleVerifier.story("selfies_receipts.py", arguments)
        #expect(report["error"] == nil, "the story could not be told: \(report["error"] ?? "") \(stderr.suffix(1_000))")
        let failures = report["failures"] as? [String] ?? ["no failures list"]
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(status == 0, "exit \(status)")
        // The story reached every case it tells, and the judge saw each.
        let seen = Set(report["seen"] as? [String] ?? [])
        let told: Set = [
            "family shared", "free trial", "offer code", "refunded", "upgraded", "status 1", "status 2", "status 3",
            "status 5",
        ]
        #expect(told.isSubset(of: seen), "the answers never showed \(told.subtracting(seen).sorted())")
        #expect(report["validated"] as? Int ?? 0 >= 15, "\(report["validated"] ?? "none") receipts validated")
    }
}

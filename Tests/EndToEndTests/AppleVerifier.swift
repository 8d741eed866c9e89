// Apple's app-store-server-library, run from the tests on what Storefront signs and serves
// (Tests/Python), and the Python stories told against a running server.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

/// Apple's verifier, run on what Storefront signed.
struct AppleVerifier {
    static let script = repositoryRoot.appendingPathComponent("Tests/Python/verify_signed.py")

    /// `STOREFRONT_PYTHON`, else the `.venv` (made on first use). Missing is a failure, not a skip.
    static func python() throws -> URL { try TestTools.python() }

    /// Runs one of Tests/Python's scripts on the venv's Python: `request` as JSON on standard
    /// input, a JSON array back on standard output.
    static func run(_ script: URL, _ request: [String: Any]) async throws -> [[String: Any]] {
        let input = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let result = try await runProgram(try python(), [script.path], input: input)
        #expect(result.status == 0, "\(script.lastPathComponent) failed: \(result.stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result.stderr)")
    }

    /// Runs one of Tests/Python's stories (`script` with `arguments`, after the program and a work
    /// folder of its own): the JSON object it printed, what it said on standard error, and its exit.
    static func story(_ script: String, _ arguments: [String]) async throws -> (
        report: [String: Any], stderr: String, status: Int32
    ) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-story-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try await runProgram(
            try python(),
            [repositoryRoot.appendingPathComponent("Tests/Python/\(script)").path, storefrontBinary.path, work.path]
                + arguments)
        let report = try #require(
            try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(script) said nothing readable (exit \(result.status)): \(result.stderr.suffix(2_000))"
        )
        return (report, result.stderr, result.status)
    }

    struct Result {
        let ok: Bool
        let status: String?
        let decoded: [String: Any]
    }

    /// Verifies each (kind, jws) with the root `session` prints (on a team, the server's; `own`:
    /// its state folder's).
    static func verify(
        _ items: [(kind: String, jws: String)], session: Session, own: Bool = false, bundleID: String,
        environment: String = "Sandbox"
    ) async throws -> [Result] {
        let root = session.stateDirectory.appendingPathComponent("root.der")
        try await session.run(["certificate", "--der", root.path] + (own ? ["--own"] : [])).expectSuccess()
        let request: [String: Any] = [
            "root": try Data(contentsOf: root).base64EncodedString(), "bundleId": bundleID, "environment": environment,
            "items": items.map { ["kind": $0.kind, "jws": $0.jws] },
        ]
        let results = try await run(script, request)
        return results.map {
            Result(
                ok: $0["ok"] as? Bool == true, status: $0["status"] as? String,
                decoded: $0["decoded"] as? [String: Any] ?? [:])
        }
    }
}

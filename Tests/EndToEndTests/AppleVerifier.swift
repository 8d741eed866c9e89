// Apple's app-store-server-library, run from the tests on what Storefront signs and serves
// (Tests/Python), and the Python stories told against a running server.
import Foundation
import StoreCore
import TestSupport
import Testing

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
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
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

    /// Runs one of Tests/Python's stories (`script` with `arguments`, after the program and a work
    /// folder of its own): the JSON object it printed, what it said on standard error, and its exit.
    static func story(_ script: String, _ arguments: [String]) throws -> (
        report: [String: Any], stderr: String, status: Int32
    ) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-story-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let process = Process()
        process.executableURL = try python()
        process.arguments =
            [repositoryRoot.appendingPathComponent("Tests/Python/\(script)").path, storefrontBinary.path, work.path]
            + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let report = try #require(
            try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            "\(script) said nothing readable (exit \(process.terminationStatus)): \(stderr.suffix(2_000))"
        )
        return (report, stderr, process.terminationStatus)
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
    ) throws -> [Result] {
        let root = session.stateDirectory.appendingPathComponent("root.der")
        try session.run(["certificate", "--der", root.path] + (own ? ["--own"] : [])).expectSuccess()
        let request: [String: Any] = [
            "root": try Data(contentsOf: root).base64EncodedString(), "bundleId": bundleID, "environment": environment,
            "items": items.map { ["kind": $0.kind, "jws": $0.jws] },
        ]
        let results = try run(script, request)
        return results.map {
            Result(
                ok: $0["ok"] as? Bool == true, status: $0["status"] as? String,
                decoded: $0["decoded"] as? [String: Any] ?? [:])
        }
    }
}

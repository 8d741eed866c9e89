// Runs the real `storefront` binary with a temporary state folder and reads what it prints.
import Foundation
import Testing

/// The built `storefront` beside this test bundle (or $STOREFRONT_BINARY).
let storefrontBinary: URL = {
    if let path = ProcessInfo.processInfo.environment["STOREFRONT_BINARY"] { return URL(fileURLWithPath: path) }
    let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return folder.appendingPathComponent("storefront")
}()

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

struct RunResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String
    /// Killed by a signal (the fault injection's SIGKILL).
    let signalled: Bool

    var description: String { "status \(status)\(signalled ? " (signal)" : "")\nstdout: \(stdout)\nstderr: \(stderr)" }

    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8))
    }

    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "not a JSON object: \(stdout)")
    }

    func array() throws -> [[String: Any]] {
        try #require(try json() as? [[String: Any]], "not a JSON array: \(stdout)")
    }
}

/// One state folder; every command runs against it with a frozen clock in UTC.
final class Session {
    let stateDirectory: URL
    var environment: [String: String]
    /// The program every command runs: the built one, or a copy installed elsewhere.
    let binary: URL

    /// `binary`: a copy of the program to run instead of the built one; it finds its assets in
    /// itself, as an installed copy does.
    init(binary: URL? = nil) async throws {
        self.binary = binary ?? storefrontBinary
        stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-e2e-\(UUID().uuidString)")
        environment = [
            "STOREFRONT_STATE_DIR": stateDirectory.path,
            "STOREFRONT_ASSETS": repositoryRoot.appendingPathComponent("assets").path,
            "TZ": "UTC",
            "PATH": "/usr/bin:/bin",
            "HOME": stateDirectory.path,
            // `storefront serve` ends at once if the store's blocking work ever runs on a Swift
            // task's thread (BlockingWatch): every test that serves checks the promise.
            "STOREFRONT_STRICT_THREADS": "1",
            // A call to a team server waits a generous ceiling, not the 10 s a person gets: a
            // debug build's scrypt takes a second alone and several beside a storm on a loaded
            // machine, and no verdict may depend on the machine's speed. A test of the timeout
            // itself sets its own.
            "STOREFRONT_SERVER_TIMEOUT": "300",
        ]
        if binary != nil { environment["STOREFRONT_ASSETS"] = nil }
        ownsFolder = true
        #expect(
            FileManager.default.isExecutableFile(atPath: self.binary.path),
            "no storefront binary at \(storefrontBinary.path): run `swift build` first")
        try await run(["clock", "freeze", "2026-01-15T12:00:00Z"]).expectSuccess()
    }

    private let ownsFolder: Bool

    /// Another process's view of a session's folder; it leaves the folder to its owner.
    init(existing folder: URL, environment: [String: String]) throws {
        binary = storefrontBinary
        stateDirectory = folder
        self.environment = environment
        ownsFolder = false
    }

    deinit { if ownsFolder { try? FileManager.default.removeItem(at: stateDirectory) } }

    @discardableResult
    func run(
        _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil, in folder: URL? = nil
    ) async throws -> RunResult {
        try await runProgram(
            binary, arguments, environment: environment.merging(extra) { $1 }, input: input, in: folder)
    }

    func json(_ arguments: [String], environment: [String: String] = [:]) async throws -> RunResult {
        try await run(arguments + ["--json"], environment: environment)
    }

    func object(_ arguments: [String]) async throws -> [String: Any] {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result)")
        return try result.object()
    }

    func array(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result)")
        return try result.array()
    }

    func signUp(_ name: String, device: String = "default") async throws {
        try await run(
            ["account", "signup", name, "--device", device], environment: ["STOREFRONT_PASSWORD": "pw-\(name)"]
        )
        .expectSuccess()
    }

    /// A session on the shipped `assets/yearly.json` (M4), its clock frozen at 31 January 2026 10:00
    /// UTC, with `name` signed up.
    static func yearly(signedUp name: String) async throws -> Session {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/yearly.json").path
        try await session.run(["clock", "freeze", "2026-01-31T10:00:00Z"]).expectSuccess()
        try await session.signUp(name)
        return session
    }

    func signIn(_ name: String, device: String = "default") async throws {
        try await run(
            ["account", "login", name, "--device", device], environment: ["STOREFRONT_PASSWORD": "pw-\(name)"]
        )
        .expectSuccess()
    }

    /// Everything a device shows, for "nothing in the state changed".
    /// What the device shows, for comparing before and after. Signatures are left out: ECDSA signs
    /// with a fresh random nonce each time, so the same data signs differently every time it is read.
    func snapshot(device: String = "default") async throws -> String {
        let history = try await run(["history", "--json", "--device", device]).stdout.split(separator: "\n")
            .filter { !$0.contains("\"signedTransaction\"") }.joined(separator: "\n")
        let status = try await run(["status", "--json", "--device", device]).stdout
        return status + history + (try await run(["pending", "--json", "--device", device]).stdout)
    }
}

extension RunResult {
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "\(self)", sourceLocation: sourceLocation)
    }
}

/// Waits until `condition` holds, for at most `seconds` (a generous ceiling, never the verdict: the
/// caller expects the condition). The wait holds no thread: other tests run meanwhile.
func waitUntil(seconds: TimeInterval, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    var pause = PollingPause()
    while Date() < deadline {
        if try await condition() { return true }
        await pause.sleep()
    }
    return try await condition()
}

/// The pause between two looks at a condition: 20 ms at first, half as long again after each look,
/// up to half a second. Many tests wait at once, each asking by running a program or capturing a
/// screen; a fixed short pause would spend the cores on asking.
struct PollingPause {
    private var milliseconds = 20.0

    mutating func sleep() async {
        try? await Task.sleep(for: .milliseconds(Int(milliseconds)))
        milliseconds = min(500, milliseconds * 1.5)
    }
}

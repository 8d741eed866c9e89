// `storefront serve` as the end-to-end tests run it (a process on a free port, and machines that
// call it), and two small helpers the tests share: base64url and a seeded generator.
import Foundation
import GRDB
import StoreCore
import StoreModel
import TestSupport
import Testing

/// `storefront serve --port 0`, and the address it printed.
final class Server {
    let process = Process()
    let base: String
    private let output = Pipe()
    /// What the server wrote on standard error (its request log, and a crash's report).
    let errors: URL

    /// `port` 0 picks a free one.
    init(_ session: Session, port: Int = 0, arguments extra: [String] = []) async throws {
        process.executableURL = session.binary
        process.arguments = ["serve", "--port", String(port)] + extra
        process.environment = session.environment
        process.standardOutput = output
        errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-serve-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let text = try await firstLine(output)
        guard let address = text.components(separatedBy: "listening on ").last, address.hasPrefix("http") else {
            try await process.ended()
            let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw ServerError(notStarted: text, said: said)
        }
        base = address
    }

    /// A server on a port it can be started on again after `stop()`.
    ///
    /// `--port 0` takes a port from the kernel's ephemeral range, and so does every client socket
    /// on this machine: once the server stops, another test's connection (W11 holds 20,000) may be
    /// given that port, and a restart there finds it in use. A port below the range is never handed
    /// out by the kernel, so only another test naming the same number could take it: that one is
    /// tried again on another.
    static func restartable(_ session: Session, arguments extra: [String] = []) async throws -> Server {
        try await onRestartablePort { port in try await Server(session, port: port, arguments: extra) }
    }

    /// `start` on ports at random below the kernel's ephemeral range, until one is not in use
    /// (twenty tries).
    static func onRestartablePort<T>(_ start: (Int) async throws -> T) async throws -> T {
        let low = ephemeralLow()
        for _ in 0..<20 {
            do { return try await start(Int.random(in: 20_000..<low)) } catch ServerError.portInUse { continue }
        }
        throw ServerError.notListening("no free port below the ephemeral range in 20 tries")
    }

    /// The first port of `net.ipv4.ip_local_port_range` (32768 when it cannot be read).
    private static func ephemeralLow() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        return max(low, 20_001)
    }

    /// SIGTERM, and what it printed after.
    func stop() async throws -> (status: Int32, rest: String) {
        let rest = try await process.terminateAndWait(reading: output)
        return (process.terminationStatus, rest)
    }

    /// Whether the server wrote `text` on standard error.
    func wrote(_ text: String) -> Bool { ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains(text) }

    /// How many failed sign-ins the server checked a password for: its log names each (W17).
    var checkedSignInFailures: Int {
        ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").split(separator: "\n").filter {
            $0.contains("sign-in to \"") && $0.contains(" failed (")
        }.count
    }

    /// The end of standard error, without the request log: what a crash said.
    var errorsTail: String {
        let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.contains(" /storefront/") && !$0.contains(" /inApps/") }.suffix(
            40
        ).joined(separator: "\n")
    }

    /// SIGTERM, not waited for: Foundation reaps the process when it ends.
    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errors)
    }
}

enum ServerError: Error, CustomStringConvertible {
    case portInUse
    case notListening(String)

    /// Why a server that printed `line` instead of its address did not start, from what it `said`
    /// on standard error: a port in use is told apart, to be tried again on another.
    init(notStarted line: String, said: String) {
        self = said.contains(" is in use ") ? .portInUse : .notListening(line + said)
    }

    var description: String {
        switch self {
        case .portInUse: "the port is in use"
        case .notListening(let said): "storefront serve did not say where it listens: \(said)"
        }
    }
}

extension Server {
    /// A machine: a state folder of its own whose commands go to this server, on `host`'s catalog.
    func machine(catalogOf host: Session) async throws -> Session {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = host.environment["STOREFRONT_CATALOG"]
        session.environment["STOREFRONT_SERVER"] = base
        return session
    }
}

/// base64url without padding, for reading payloads in tests.
enum JWS64 {
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// A small seeded generator (SplitMix64) for the property tests here.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

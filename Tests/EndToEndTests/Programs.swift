// Runs a program and waits for it without holding a thread (swift-subprocess): while one test waits
// for a process, the cooperative pool's few threads run other tests.
import Foundation
import Subprocess
import SystemPackage
import TestSupport

/// The most a test reads of one stream; a command that prints more fails the test.
private let outputLimit = 64 << 20

/// Runs `executable` with exactly `environment` (nil: the test runner's), gives it `input` on
/// standard input (or nothing: end of file), and collects what it prints.
@discardableResult
func runProgram(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
    in folder: URL? = nil
) async throws -> RunResult {
    let result = try await ProgramSlots.shared.holding {
        try await Subprocess.run(
            .path(FilePath(executable.path)), arguments: Arguments(arguments),
            environment: environment.map { .exactly($0) } ?? .inherit,
            workingDirectory: folder.map { FilePath($0.path) }, input: .string(input ?? ""),
            output: .string(limit: outputLimit), error: .string(limit: outputLimit))
    }
    let (status, signalled) = result.terminationStatus.statusAndSignal
    return RunResult(
        status: status, stdout: result.standardOutput, stderr: result.standardError, signalled: signalled)
}

/// Runs `executable` with its output thrown away; after `delay`, if it is still running, kills it with
/// SIGKILL. How it ended: its status (the signal's number when `signalled`).
func runProgram(
    _ executable: URL, _ arguments: [String], environment: [String: String], killAfter delay: Duration?
) async throws -> (status: Int32, signalled: Bool) {
    let result = try await ProgramSlots.shared.holding {
        try await Subprocess.run(
            .path(FilePath(executable.path)), arguments: Arguments(arguments), environment: .exactly(environment),
            input: .none, output: .discarded, error: .discarded
        ) { execution in
            guard let delay else { return }
            try await Task.sleep(for: delay)
            // A process that already ended is not running: the signal reaches nothing.
            try? execution.send(signal: .kill)
        }
    }
    return result.terminationStatus.statusAndSignal
}

/// How many programs the tests run at once. A test that waits for its program holds no thread, so
/// without a bound every test would start its programs together, hundreds would share two cores,
/// and a device that waits for a server longer than its timeout would fail a test by the machine's
/// speed. Twice the cores keeps them busy while other tests wait for screens, servers and clocks;
/// STOREFRONT_TEST_PROGRAMS sets another number. Programs that run beside a test (a server, a
/// receiver) are not counted: they wait for the test, and counting them could leave none free.
actor ProgramSlots {
    static let shared = ProgramSlots(
        count: ProcessInfo.processInfo.environment["STOREFRONT_TEST_PROGRAMS"].flatMap { Int($0) }
            ?? 2 * ProcessInfo.processInfo.activeProcessorCount)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = max(1, count) }

    /// Runs `body` once a slot is free, and frees it after.
    func holding<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if free > 0 {
            free -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}

extension Subprocess.Environment {
    /// Exactly these variables, none of the test runner's.
    static func exactly(_ variables: [String: String]) -> Self {
        .custom(Dictionary(uniqueKeysWithValues: variables.map { (Key(stringLiteral: $0.key), $0.value) }))
    }
}

extension TerminationStatus {
    /// Foundation's terminationStatus and terminationReason, which the tests compare against.
    var statusAndSignal: (status: Int32, signalled: Bool) {
        switch self {
        case .exited(let code): (code, false)
        case .signaled(let signal): (signal, true)
        }
    }
}

/// The first line `pipe` gives (without its newline), waited for off the pool.
func firstLine(_ pipe: Pipe) async throws -> String {
    try await offPool {
        var line = Data()
        while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        return String(decoding: line, as: UTF8.self)
    }
}

extension Process {
    /// Ends the process with SIGTERM and waits for it off the pool; what `output` (its standard
    /// output pipe) still held.
    func terminateAndWait(reading output: Pipe) async throws -> String {
        terminate()
        return try await offPool {
            let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            self.waitUntilExit()
            return rest
        }
    }

    /// Waits off the pool for the process to end by itself.
    func ended() async throws {
        try await offPool { self.waitUntilExit() }
    }
}

// Issue 13, first contact: the program copied to an empty folder and run from `/` opens its
// default store and runs every shipped scenario; shell completion; scenarios that name a catalog.
import Foundation
import Testing

@Suite("A copied binary", .serialized)
struct InstallTests {
    /// Runs `binary` from `/` with only HOME, PATH and TZ: no assets folder anywhere it looks.
    func run(_ binary: URL, _ arguments: [String], home: URL) throws -> RunResult {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin", "TZ": "UTC", "STOREFRONT_STATE_DIR": home.appendingPathComponent("state").path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both to the end before waiting: a full pipe would stall the program.
        let errReader = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = await_(errReader)
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), signalled: process.terminationReason == .uncaughtSignal
        )
    }

    @Test("C1 W13 copied to an empty folder and run from /, it opens the default store and scenario check runs every shipped scenario; https:// needs the TLS library beside it")
    func copiedBinary() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-install-\(UUID().uuidString)")
        let home = folder.appendingPathComponent("home"), bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = bin.appendingPathComponent("storefront")
        try copyExecutable(storefrontBinary, to: binary)
        let products = try run(binary, ["products", "--json"], home: home)
        #expect(products.status == 0 && products.stdout.contains("com.storefront.comic.nightshift"), "\(products)")
        let check = try run(binary, ["scenario", "check"], home: home)
        #expect(check.status == 0 && check.stdout.contains(", 0 failed"), "\(check)")
        for name in ["in-app-rage.scenario", "billing.scenario", "upgrade.scenario", "trial-and-renewals.scenario"] {
            #expect(check.stdout.contains("\(name)\n"), "\(name) ran")
        }
        let cached = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent(".cache/storefront").path)
        #expect(cached.count == 1 && cached[0].hasPrefix("assets-"), "\(cached)")
        let bad = try run(binary, ["products", "--catalog", "/nonexistent.json"], home: home)
        #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1, "\(bad)")
        // W13: https:// needs the TLS library installed beside the program; without it, one line.
        let lonely = try run(binary, ["status", "--server", "https://127.0.0.1:9"], home: home)
        #expect(lonely.status == 3 && lonely.stderr.split(separator: "\n").count == 1 && lonely.stderr.contains("libStorefrontTLS.so"), "\(lonely)")
        try copyExecutable(storefrontBinary.deletingLastPathComponent().appendingPathComponent("libStorefrontTLS.so"), to: bin.appendingPathComponent("libStorefrontTLS.so"))
        let loaded = try run(binary, ["status", "--server", "https://127.0.0.1:9"], home: home)
        #expect(loaded.status == 3 && loaded.stderr.contains("Connection refused"), "installed beside it, the library is found: \(loaded)")
    }

    @Test("--generate-completion-script writes bash, zsh and fish completion")
    func completion() throws {
        let session = try Session()
        for (shell, marker) in [("bash", "-F _storefront storefront"), ("zsh", "#compdef storefront"), ("fish", "complete -c 'storefront'")] {
            let result = try session.run(["--generate-completion-script", shell])
            #expect(result.status == 0 && result.stdout.contains(marker), "\(shell): \(result.stdout.prefix(200))")
        }
    }

    @Test("a scenario names its catalog (beside it or shipped); a missing one or a late catalog line is one clear line, exit 2")
    func scenarioCatalog() throws {
        let session = try Session()
        let folder = session.stateDirectory.appendingPathComponent("scenarios")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let shipped = folder.appendingPathComponent("shipped.scenario")
        try "catalog selfies.json\nsign up ann\nbuy \"All Access (Monthly)\"\nexpect plan \"free trial\"\n".write(to: shipped, atomically: true, encoding: .utf8)
        let passed = try session.run(["scenario", "check", shipped.path])
        #expect(passed.status == 0 && passed.stdout.contains("1 passed, 0 failed"), "\(passed)")
        let missing = folder.appendingPathComponent("missing.scenario")
        try "catalog nowhere.json\nsign up ann\n".write(to: missing, atomically: true, encoding: .utf8)
        let refused = try session.run(["scenario", "check", missing.path])
        #expect(refused.status == 2 && refused.stderr.contains("missing.scenario:1: catalog \"nowhere.json\""), "\(refused)")
        let late = folder.appendingPathComponent("late.scenario")
        try "sign up ann\ncatalog selfies.json\n".write(to: late, atomically: true, encoding: .utf8)
        let lateResult = try session.run(["scenario", "check", late.path])
        #expect(lateResult.status != 0 && lateResult.stdout.contains("late.scenario:2: \"catalog\" must come before every other step"), "\(lateResult)")
    }
}

/// Copies a program that will then be run. The copy is written by `cp`, a process of its own:
/// while this test process held the new file open for writing, any child another test spawned in
/// that moment inherited the descriptor, and running the copy failed with "Text file busy"
/// (ETXTBSY) for as long as such a child lived.
func copyExecutable(_ source: URL, to destination: URL) throws {
    let copy = Process()
    copy.executableURL = URL(fileURLWithPath: "/bin/cp")
    copy.arguments = [source.path, destination.path]
    try copy.run()
    copy.waitUntilExit()
    guard copy.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
}

/// Waits for a detached task's value from synchronous code.
private func await_<T: Sendable>(_ task: Task<T, Never>) -> T {
    let semaphore = DispatchSemaphore(value: 0)
    let box = Box<T>()
    Task { box.value = await task.value; semaphore.signal() }
    semaphore.wait()
    return box.value!
}

private final class Box<T>: @unchecked Sendable { var value: T? }

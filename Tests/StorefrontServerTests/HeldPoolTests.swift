// Why RemoteStoreTests' servers answer on threads of their own: in one test process, other suites'
// synchronous work can hold every one of Swift's cooperative threads (two on two cores) for
// minutes, and a server whose connections need one of them then answers nobody. CI met it as
// "no answer in 120 s" on two machines' devices.
import Dispatch
import Foundation
import StoreCore
import StoreModel
import StorefrontServer
import TestSupport
import Testing

@Suite("An in-process server while the test process's cooperative threads are all held", .notInFastRun)
struct HeldPoolTests {
    /// Blocks as many tasks on the cooperative pool as it has threads, until `release` is called or
    /// a minute has passed.
    final class Holders: @unchecked Sendable {
        let count = ProcessInfo.processInfo.activeProcessorCount
        private let started = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        /// Whether the holders were still holding when `release` was called.
        let heldAtRelease = Locked(false)
        private let done = Locked(false)

        func hold() {
            for _ in 0..<count {
                Task.detached {
                    self.started.signal()
                    // Blocking on purpose: this is the work the server must not depend on.
                    let held = self.released.wait(timeout: .now() + 60) == .success
                    if !held { self.done.withLock { $0 = true } }
                }
            }
        }

        /// Waits (a generous ceiling) until every holder is running on a cooperative thread.
        func waitUntilHeld() -> Bool {
            (0..<count).allSatisfy { _ in started.wait(timeout: .now() + 120) == .success }
        }

        func release() {
            heldAtRelease.withLock { $0 = !done.withLock { $0 } }
            for _ in 0..<count { released.signal() }
        }
    }

    /// Set in the process of its own that the check runs in.
    static let alone = "STOREFRONT_HELD_POOL_ALONE"

    /// The check below, alone in a process of its own (this test binary, filtered to it): in a
    /// whole run, the other suites' tasks stand in the cooperative pool's queue, so the holders
    /// could not all be sure to hold at once, and holding every thread for long would stall them.
    @Test("a device signs up and buys while every cooperative thread is held, before any is let go")
    func answersWhileHeld() async throws {
        guard ProcessInfo.processInfo.environment[Self.alone] != nil else {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["--testing-library", "swift-testing", "--filter", "HeldPoolTests"]
            child.environment = ProcessInfo.processInfo.environment.merging([Self.alone: "1"]) { $1 }
            let output = Pipe()
            child.standardOutput = output
            child.standardError = output
            try child.run()
            let said = String(
                decoding: try await offPool { output.fileHandleForReading.readDataToEndOfFile() }, as: UTF8.self)
            try await offPool { child.waitUntilExit() }
            #expect(child.terminationStatus == 0 && said.contains("Test run with 1 test in 1 suite passed"), "\(said)")
            return
        }
        try await checkWhileHeld()
    }

    func checkWhileHeld() async throws {
        let setup = try RemoteStoreTests.Setup(catalog: testCatalog, backend: .sqlite)
        let holders = Holders()
        let bought = try await setup.run { port in
            let phone = try setup.device(port: port)
            holders.hold()
            defer { holders.release() }
            guard holders.waitUntilHeld() else { return false }
            try phone.accounts.signUp("ann", password: "secret")
            return try phone.queue.buy("comic.a").productID == "comic.a"
        }
        #expect(bought)
        // Answered while held: the holders' minute had not run out when the device was done.
        #expect(holders.heldAtRelease.withLock { $0 })
    }
}

// W1: `serve --port 0` on a name with two addresses. The kernel picks a port free on the first
// address only; when another process holds it on the second, the listener starts again on a new
// port instead of failing. A port the user named is never changed. The second address here is
// 127.0.0.2 (every 127/8 address is this machine's on Linux), held by a socket of the test's.
import Foundation
import Hummingbird
import Logging
import StoreCore
import StoreModel
import TestSupport
import Testing

@testable import StorefrontServer

@Suite("serve on every address of a name, one port", .timeLimit(.minutes(15)))
struct ListenerTests {
    static let addresses = ["127.0.0.1", "127.0.0.2"]

    /// What a run saw: each `make` (address and port asked for), the port it reported running on,
    /// the sockets held against it, and what it logged.
    final class Seen: Sendable {
        let made = Locked<[(address: String, port: Int)]>([])
        let running = Locked<Int?>(nil)
        let held = Locked<[SilentListener]>([])
        let lines = Locked<[String]>([])
    }

    /// A listener whose applications on `addresses[1]` find their port held by another socket
    /// first, on the first `holdings` tries.
    static func listener(port: Int, holdings: Int, seen: Seen) -> Listener {
        Listener(
            addresses: addresses, port: port, logger: Logger(label: "test") { _ in KeptLog(lines: seen.lines) }
        ) { address, port, running throws(StoreError) in
            let tries = seen.made.withLock {
                $0.append((address, port))
                return $0.count(where: { $0.address == address })
            }
            // The kernel may pick a port again that an earlier try found held: it is held still.
            if address == addresses[1], tries <= holdings, !seen.held.withLock({ $0.contains { $0.port == port } }) {
                do {
                    let holder = try SilentListener(address: address, port: port)
                    seen.held.withLock { $0.append(holder) }
                } catch {
                    throw StoreError.storage(path: "\(address):\(port)", reason: "the test could not hold it")
                }
            }
            return Application(
                router: Router(), configuration: .init(address: .hostname(address, port: port), serverName: nil),
                onServerRunning: { channel in await running(channel.localAddress?.port ?? 0) },
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        } onRunning: { port in
            seen.running.withLock { $0 = port }
        }
    }

    /// Runs `listener` until it reports running (then stops it) or ends; its error, if any.
    static func run(_ listener: Listener, _ seen: Seen) async throws -> (any Error)? {
        let ended = Locked(false)
        let task = Task {
            defer { ended.withLock { $0 = true } }
            try await listener.run()
        }
        // A condition with a generous ceiling: a slow machine only takes longer. The whole suite
        // has kept Swift's two pool threads busy for over two minutes at its start on a slow
        // machine, and the listener makes no progress meanwhile: a minute's ceiling was not enough.
        let ceiling = ContinuousClock.now + .seconds(600)
        while seen.running.withLock({ $0 }) == nil, !ended.withLock({ $0 }), ContinuousClock.now < ceiling {
            try await Task.sleep(for: .milliseconds(20))
        }
        task.cancel()
        if case .failure(let error) = await task.result { return error }
        return nil
    }

    @Test("--port 0: a port held on the second address is left for a new one, on both addresses")
    func retried() async throws {
        let seen = Seen()
        let failure = try await Self.run(Self.listener(port: 0, holdings: 1, seen: seen), seen)
        #expect(failure == nil)
        let made = seen.made.withLock { $0 }
        let running = try #require(seen.running.withLock { $0 })
        let held = try #require(seen.held.withLock { $0.first?.port })
        // Two tries, or more when the kernel picks the held port again.
        #expect(
            made.count >= 4
                && made.map(\.address) == Array(repeating: Self.addresses, count: made.count / 2).flatMap { $0 })
        #expect(
            made.indices.filter { $0.isMultiple(of: 2) }.allSatisfy { made[$0].port == 0 },
            "each try lets the kernel pick: \(made)")
        #expect(made[1].port == held && made.last?.port == running && running != held)
        #expect(seen.lines.withLock { $0 }.contains { $0.contains("port \(held) is taken on another address") })
        // The first try's application on 127.0.0.1 was stopped before the second began: its
        // port is free there again.
        #expect((try? SilentListener(address: Self.addresses[0], port: held)) != nil)
    }

    @Test("--port 0 held on the second address every time: after a bounded number of tries, the bind's error")
    func exhausted() async throws {
        let seen = Seen()
        let failure = try await Self.run(Self.listener(port: 0, holdings: .max, seen: seen), seen)
        #expect(failure.map(ServerApplication.isAddressInUse) == true, "\(String(describing: failure))")
        #expect(seen.made.withLock { $0.count } == 2 * Listener.attempts)
        #expect(seen.running.withLock { $0 } == nil)
    }

    @Test("a port the user named, held on the second address: the bind's error at once, never another port")
    func named() async throws {
        let free = try SilentListener(address: Self.addresses[0]).port
        let seen = Seen()
        let failure = try await Self.run(Self.listener(port: free, holdings: 1, seen: seen), seen)
        #expect(failure.map(ServerApplication.isAddressInUse) == true, "\(String(describing: failure))")
        #expect(seen.made.withLock { $0.map(\.port) } == [free, free])
    }
}

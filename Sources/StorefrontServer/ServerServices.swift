// `storefront serve`'s background work (N3 delivery, O5 family shares, V7's request list) as
// services of one ServiceGroup with the HTTP server: each runs its work every second on the
// blocking pool (delivery also at once when a request leaves a notification in the outbox), logs a failure instead of dropping it (one that repeats, once a minute), and
// stops when the server stops (SIGTERM, SIGINT), finishing the round it is in.
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import StoreCore

public struct RepeatingService: Service {
    public let name: String
    let interval: Duration
    let logger: Logger
    /// A failure that repeats word for word is logged once, then once every this many rounds (a
    /// database that is down would otherwise write a line a second for each service).
    let repeatEvery: Int
    let work: @Sendable () throws -> Void
    /// Starts the next round before the interval is up when rung.
    let wake: Wakeup?

    public init(
        name: String, every interval: Duration = .seconds(1), repeatEvery: Int = 60, wake: Wakeup? = nil, logger: Logger,
        _ work: @escaping @Sendable () throws -> Void
    ) {
        self.name = name
        self.wake = wake
        self.interval = interval
        self.repeatEvery = max(1, repeatEvery)
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        /// The failure that the last rounds repeated, and how many rounds did.
        var failing: (words: String, rounds: Int)?
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await ServerApplication.blockingWork.runIfActive(work)
                if let failing { logger.info("\(name) works again, after \(failing.rounds) failed round\(failing.rounds == 1 ? "" : "s")") }
                failing = nil
            } catch is CancellationError where Task.isCancelled {
                // The group is stopping without a graceful shutdown (the HTTP server could not
                // bind its port, say) and the pool refused the round: the stop, not a failure.
                return
            } catch {
                let words = "\(error)"
                if var repeated = failing, repeated.words == words {
                    repeated.rounds += 1
                    failing = repeated
                    if repeated.rounds % repeatEvery == 0 { logger.error("\(name) still failing, \(repeated.rounds) rounds: \(words)") }
                } else {
                    logger.error("\(name) failed: \(words)")
                    failing = (words, 1)
                }
            }
            // A sleep that a graceful shutdown, or the bell, cuts short.
            try? await cancelWhenGracefulShutdown { [interval, wake] in
                guard let wake else { return try await Task.sleep(for: interval) }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { try? await Task.sleep(for: interval) }
                    group.addTask { await wake.wait() }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}

/// A bell for a RepeatingService: rung, its next round starts at once. Rings while it is busy
/// are kept as one, so a round never misses work asked for during the one before.
public final class Wakeup: Sendable {
    private let rings: AsyncStream<Void>
    private let bell: AsyncStream<Void>.Continuation

    public init() {
        (rings, bell) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public func ring() { bell.yield() }

    /// Returns at the next ring (or at once for one kept), or when the task is cancelled. One
    /// waiter at a time.
    func wait() async {
        var iterator = rings.makeAsyncIterator()
        _ = await iterator.next()
    }
}

extension ServedStore {
    /// The services that run beside the HTTP server: notification delivery, family shares, and
    /// listing the requests answered.
    public func services(logger: Logger) -> [any Service] {
        [
            RepeatingService(name: "notification delivery", wake: deliveryDue, logger: logger) { [courier] in _ = try courier.deliverDue() },
            RepeatingService(name: "family reconciliation", logger: logger) { [self] in try reconcileFamilies() },
            RepeatingService(name: "request list", logger: logger) { [self] in try listRequests() },
        ]
    }
}

/// W11: SIGTERM stops the server within five seconds whatever it is doing. The server and the
/// services finish what they are doing; work parked on a blocking thread (a query, a password hash)
/// cannot be hurried, so once the stop begins a thread of its own ends the process at `limit` if it
/// is still running. Nothing is lost: every write is one transaction, and a device retries what it
/// did not see answered (W3).
public struct StopDeadline: Service {
    let limit: Duration
    let logger: Logger

    public init(limit: Duration = .milliseconds(4_500), logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    public func run() async throws {
        // Returns when the group starts to stop (or throws if cancelled first: then too).
        try? await gracefulShutdown()
        let (seconds, attoseconds) = limit.components
        let microseconds = UInt32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let logger = logger
        Thread.detachNewThread {
            usleep(microseconds)
            logger.error("still stopping after \(microseconds / 1_000) ms: stopped by force")
            // Stopping was asked for and is done: exit 0, as a graceful stop does.
            FileHandle.standardOutput.write(Data("storefront serve: stopped (by force, after \(microseconds / 1_000) ms)\n".utf8))
            _exit(0)
        }
    }
}

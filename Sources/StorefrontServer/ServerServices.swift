// `storefront serve`'s background work (N3 delivery, O5 family shares, V7's request list) as
// services of one ServiceGroup with the HTTP server: each runs its work every second on the
// blocking pool (delivery also at once when a request leaves a notification in the outbox), logs
// a failure instead of dropping it (one that repeats, once a minute), and stops when the server
// stops (SIGTERM, SIGINT). A round in progress is told that the stop has begun, so that it ends
// at its next step instead of finishing all its work: a round on a blocking thread cannot be
// cancelled, and ServiceLifecycle ends the process with a fatal error when cancelling takes
// longer than it allows.
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import StoreCore
import StoreModel

public struct RepeatingService: Service {
    public let name: String
    let interval: Duration
    let logger: Logger
    /// A failure that repeats word for word is logged once, then once every this many rounds (a
    /// database that is down would otherwise write a line a second for each service).
    let repeatEvery: Int
    /// One round; its argument says whether the stop has begun.
    let work: @Sendable (_ stopping: @Sendable () -> Bool) throws -> Void
    /// Starts the next round before the interval is up when rung.
    let wake: Wakeup?

    public init(
        name: String, every interval: Duration = .seconds(1), repeatEvery: Int = 60, wake: Wakeup? = nil,
        logger: Logger,
        _ work: @escaping @Sendable (_ stopping: @Sendable () -> Bool) throws -> Void
    ) {
        self.name = name
        self.wake = wake
        self.interval = interval
        self.repeatEvery = max(1, repeatEvery)
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        let stop = Locked(false)
        let stopping: @Sendable () -> Bool = { stop.withLock { $0 } }
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await rounds(stopping: stopping)
        } onCancelOrGracefulShutdown: {
            stop.withLock { $0 = true }
        }
    }

    private func rounds(stopping: @escaping @Sendable () -> Bool) async throws {
        /// The failure that the last rounds repeated, and how many rounds did.
        var failing: (words: String, rounds: Int)?
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await ServerApplication.blockingWork.runIfActive { [work] in try work(stopping) }
                if let failing {
                    logger.info(
                        "\(name) works again, after \(failing.rounds) failed round\(failing.rounds == 1 ? "" : "s")")
                }
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
                    if repeated.rounds % repeatEvery == 0 {
                        logger.error("\(name) still failing, \(repeated.rounds) rounds: \(words)")
                    }
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
/// are kept as one, so a round never misses work asked for during the one before. A wait that is
/// cancelled (the interval ran out first) leaves the bell as it was for the next wait: an
/// AsyncStream would end at its consumer's cancellation, and every wait after it would return at
/// once, turning the service into a loop that never sleeps.
public final class Wakeup: Sendable {
    private struct State {
        var isRung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    public init() {}

    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.isRung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next ring (or at once for one kept), or when the task is cancelled. One
    /// waiter at a time.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.isRung {
                        state.isRung = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}

extension ServedStore {
    /// The services that run beside the HTTP server: notification delivery, family shares, and
    /// listing the requests answered.
    public func services(logger: Logger) -> [any Service] {
        [
            RepeatingService(name: "notification delivery", wake: deliveryDue, logger: logger) { [courier] stopping in
                _ = try courier.deliverDue(until: stopping)
            },
            RepeatingService(name: "family reconciliation", logger: logger) { [self] _ in try reconcileFamilies() },
            RepeatingService(name: "request list", logger: logger) { [self] _ in try listRequests() },
        ]
    }
}

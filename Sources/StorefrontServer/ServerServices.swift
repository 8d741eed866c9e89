// `storefront serve`'s background work (N3 delivery, O5 family shares, V7's request list) as
// services of one ServiceGroup with the HTTP server: each runs its work every second on the
// blocking pool, logs a failure instead of dropping it, and stops when the server stops (SIGTERM,
// SIGINT), finishing the round it is in.
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import StoreCore

public struct RepeatingService: Service {
    public let name: String
    let interval: Duration
    let logger: Logger
    let work: @Sendable () throws -> Void

    public init(name: String, every interval: Duration = .seconds(1), logger: Logger, _ work: @escaping @Sendable () throws -> Void) {
        self.name = name
        self.interval = interval
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await ServerApplication.blockingWork.runIfActive(work)
            } catch {
                logger.error("\(name) failed: \(error)")
            }
            // A sleep that a graceful shutdown cuts short.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}

extension ServedStore {
    /// The services that run beside the HTTP server: notification delivery, family shares, and
    /// listing the requests answered.
    public func services(logger: Logger) -> [any Service] {
        [
            RepeatingService(name: "notification delivery", logger: logger) { [courier] in _ = try courier.deliverDue() },
            RepeatingService(name: "family reconciliation", logger: logger) { [self] in try reconcileFamilies() },
            RepeatingService(name: "request list", logger: logger) { [self] in try listRequests() },
        ]
    }
}

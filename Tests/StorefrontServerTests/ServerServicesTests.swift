// `storefront serve`'s background work logs its failures, and a failure that repeats
// word for word (a database that is down) is logged once and then once every `repeatEvery`
// rounds, not once a round; the round that works again says so.
import Foundation
import Logging
import StoreCore
import StoreModel
import Testing

@testable import StorefrontServer

@Suite("the background services' failures, logged")
struct ServerServicesTests {
    /// Runs a service whose work answers round by round from `rounds` (nil: works; a text: throws
    /// it), every millisecond, until every round is used and `done` holds for the log, or a
    /// generous ceiling of rounds. Returns the lines logged.
    func run(_ rounds: [String?], repeatEvery: Int, until done: @escaping @Sendable ([String]) -> Bool) async throws
        -> [String]
    {
        struct Failure: Error, CustomStringConvertible {
            var description: String
        }
        let lines = Locked<[String]>([])
        let next = Locked(0)
        let service = RepeatingService(
            name: "delivery", every: .milliseconds(1), repeatEvery: repeatEvery,
            logger: Logger(label: "test") { _ in KeptLog(lines: lines) }
        ) { _ in
            let index = next.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            if index < rounds.count, let words = rounds[index] { throw Failure(description: words) }
        }
        let task = Task { try await service.run() }
        // A condition, not a time: the rounds are counted (a slow machine only takes longer).
        while next.withLock({ $0 }) < rounds.count || !done(lines.withLock { $0 }) {
            try #require(
                next.withLock { $0 } < rounds.count + 100_000,
                "the log never showed what was expected: \(lines.withLock { $0 })")
            try await Task.sleep(for: .milliseconds(1))
        }
        task.cancel()
        _ = try? await task.value
        return lines.withLock { $0 }
    }

    @Test("a failure that repeats is logged once, then every repeatEvery rounds; the round that works says so")
    func repeated() async throws {
        let rounds: [String?] = Array(repeating: "database down", count: 5) + [nil]
        let lines = try await run(rounds, repeatEvery: 2) { $0.contains { $0.contains("works again") } }
        #expect(
            lines == [
                "delivery failed: database down",
                "delivery still failing, 2 rounds: database down",
                "delivery still failing, 4 rounds: database down",
                "delivery works again, after 5 failed rounds",
            ])
    }

    @Test("a different failure is logged at once, and nothing is logged while the work works")
    func different() async throws {
        let rounds: [String?] = [nil, "first", "first", "second", nil, nil]
        let lines = try await run(rounds, repeatEvery: 60) { $0.contains { $0.contains("works again") } }
        #expect(
            lines == [
                "delivery failed: first",
                "delivery failed: second",
                "delivery works again, after 1 failed round",
            ])
    }

    @Test(
        "a round the stop cuts short (the group cancels its services when the HTTP server cannot bind its port) is the stop, not a failure: nothing is logged and the service ends; the same error while nothing stops is a failure"
    )
    func cancelled() async throws {
        let lines = Locked<[String]>([])
        let running = Locked<Task<Void, any Error>?>(nil)
        let rounds = Locked(0)
        let service = RepeatingService(
            name: "delivery", every: .milliseconds(1), repeatEvery: 1,
            logger: Logger(label: "test") { _ in KeptLog(lines: lines) }
        ) { _ in
            let round = rounds.withLock { value -> Int in
                value += 1
                return value
            }
            // The first round: the work itself fails so, and nothing is stopping.
            if round == 1 { throw CancellationError() }
            // The second: the group cancels the service, and the pool refuses the round as
            // `runIfActive` does for a cancelled task.
            while running.withLock({ $0 }) == nil { usleep(1_000) }
            running.withLock { $0 }?.cancel()
            throw CancellationError()
        }
        let task = Task { try await service.run() }
        running.withLock { $0 = task }
        _ = try? await task.value
        #expect(rounds.withLock { $0 } == 2)
        #expect(lines.withLock { $0 } == ["delivery failed: CancellationError()"])
    }

    @Test(
        "W11 a round in progress is told when the stop begins, so that it ends at its next step: a round that would run until told ends, and the service with it"
    )
    func toldToStop() async throws {
        let started = Locked(false)
        let toldAfter = Locked<Int?>(nil)
        let service = RepeatingService(name: "delivery", every: .milliseconds(1), logger: Logger(label: "test")) {
            stopping in
            started.withLock { $0 = true }
            // A delivery round with many notifications due: one step at a time until told. The
            // ceiling only ends a test that would otherwise never end; it is ten minutes of the
            // clock, not a count of steps, since a loaded machine (every test at once on two cores)
            // can leave the test's own task waiting for a thread for a minute while steps go on.
            let ceiling = ContinuousClock.now + .seconds(600)
            var steps = 0
            while !stopping() {
                usleep(1_000)
                steps += 1
                if ContinuousClock.now > ceiling { return }
            }
            toldAfter.withLock { $0 = steps }
        }
        let running = Task { try await service.run() }
        // A generous ceiling for the round to start.
        for _ in 0..<6_000 where !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(started.withLock { $0 })
        // The group cancels a service that outlives its graceful stop; the service hears it at
        // once, as it hears a graceful stop (one handler for both), and tells the round.
        running.cancel()
        _ = try? await running.value
        #expect(toldAfter.withLock { $0 } != nil, "the round saw the stop")
    }

    @Test(
        "N5 a bell whose wait was cancelled still waits for the next ring: a service with nothing to do sleeps between rounds, and a ring still starts a round"
    )
    func bellAfterCancel() async throws {
        let bell = Wakeup()
        // A wait the interval ended, as in every round nobody rang.
        let cut = Task { await bell.wait() }
        cut.cancel()
        await cut.value
        let returned = Locked(false)
        let waiting = Task {
            await bell.wait()
            returned.withLock { $0 = true }
        }
        // Unrung, the wait does not return however long it is given (a slow machine only waits longer).
        try await Task.sleep(for: .milliseconds(300))
        #expect(!returned.withLock { $0 }, "a wait after a cancelled one returned with no ring")
        bell.ring()
        await waiting.value
        #expect(returned.withLock { $0 })
        // A ring with nobody waiting is kept for the next wait.
        bell.ring()
        await bell.wait()
    }

    @Test("N5 a service woken by a bell runs a round per interval when nobody rings, never a loop")
    func idleServiceSleeps() async throws {
        let rounds = Locked(0)
        let service = RepeatingService(
            name: "delivery", every: .milliseconds(100), wake: Wakeup(), logger: Logger(label: "test")
        ) { _ in
            rounds.withLock { $0 += 1 }
        }
        let running = Task { try await service.run() }
        try await Task.sleep(for: .seconds(1))
        running.cancel()
        _ = try? await running.value
        // Ten intervals at most fit in a second (a slow machine runs fewer); a service whose wait
        // returns at once runs thousands.
        #expect(rounds.withLock { $0 } <= 12, "\(rounds.withLock { $0 }) rounds in one second at one every 100 ms")
    }
}

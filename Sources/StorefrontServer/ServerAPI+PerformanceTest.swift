// Initiate Performance Test and Get Performance Test Results (M1): the realtime URL is called as
// Apple's test calls it (signed requests about one original transaction, a few at a time, each
// given Apple's time budget), in the background; the results say how many answered in time with a
// usable choice, how fast, and why the others failed.
import Foundation
import StoreCore
import StoreModel

extension ServerAPI {
    /// Apple's PerformanceTestConfig, as Storefront runs the test.
    static var performanceTestConfig: PerformanceTestConfig {
        let rounds =
            (PerformanceTestRun.totalRequests + PerformanceTestRun.maxConcurrentRequests - 1)
            / PerformanceTestRun.maxConcurrentRequests
        return PerformanceTestConfig(
            maxConcurrentRequests: PerformanceTestRun.maxConcurrentRequests,
            totalRequests: PerformanceTestRun.totalRequests,
            totalDuration: rounds * PerformanceTestRun.responseTimeThreshold,
            responseTimeThreshold: PerformanceTestRun.responseTimeThreshold,
            successRateThreshold: PerformanceTestRun.successRateThreshold)
    }

    func initiatePerformanceTest(_ request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard let id = request.decodedBody(PerformanceTestRequest.self)?.originalTransactionId.value else {
            return .error(.invalidPerformanceTestRequest, "the body needs originalTransactionId")
        }
        guard Self.isTransactionID(id) else {
            return .error(.invalidOriginalTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let (line, receipt) = try customer(id) else {
            return .error(.originalTransactionIDNotFound, "no transaction \(id)")
        }
        guard line.kind == .autoRenewableSubscription,
            try builder(identity, account: line.account).originalTransaction(of: line, in: receipt) == id
        else {
            return .error(
                .invalidPerformanceTestRequest, "\(id) is not an auto-renewable subscription's original transaction")
        }
        let setup = try server.retentionSetup()
        guard let target = setup.realtimeURL(identity.environment), let url = URL(string: target) else {
            return .error(.realtimeURLNotFound, "no realtime URL is configured: Configure Realtime URL first")
        }
        let run = PerformanceTestRun(
            requestID: UUID().uuidString.lowercased(), originalTransactionID: id, target: target, startedAt: realNow())
        let now = realNow()
        let started = try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            if setup.performanceTests.contains(where: { $0.isRunning(at: now) }) {
                return .error(.existingPerformanceTestRun, "a performance test is still running")
            }
            setup.performanceTests.append(run)
            return nil
        }
        guard started.status == 200 else { return started }
        let locale = catalog.userLocale
        let calls = try (0..<PerformanceTestRun.totalRequests).map { _ throws(StoreError) -> Data in
            try RealtimeCall.body(
                originalTransactionID: id, productID: line.productID, locale: locale, identity: identity,
                now: clock.now(), authority: authority
            ).body
        }
        let server = server
        let logger = logger
        // Apple's few at a time: that many threads of their own, each taking the next request
        // until none is left; the last to finish records the run. Nothing waits for them.
        let next = Locked(0)
        let results = Locked<[RealtimeCall.Outcome]>([])
        let working = Locked(PerformanceTestRun.maxConcurrentRequests)
        for _ in 0..<PerformanceTestRun.maxConcurrentRequests {
            Thread.detachNewThread {
                while let call = next.withLock({ index -> Data? in
                    defer { index += 1 }
                    return index < calls.count ? calls[index] : nil
                }) {
                    let outcome = RealtimeCall.ask(url, body: call)
                    results.withLock { $0.append(outcome) }
                }
                guard
                    working.withLock({ count -> Bool in
                        count -= 1
                        return count == 0
                    })
                else { return }
                var finished = run
                for outcome in results.withLock({ $0 }) {
                    if let failure = outcome.failure {
                        finished.failures[failure, default: 0] += 1
                    } else {
                        finished.responseMilliseconds.append(outcome.milliseconds)
                    }
                }
                finished.isFinished = true
                // Recorded even if the setup changed meanwhile: the run is found by its id. Not
                // recorded (a storage failure), the result reads as a run the server stopped.
                do {
                    try server.changeRetention { (setup: inout RetentionSetup) throws(StoreError) in
                        if let index = setup.performanceTests.firstIndex(where: { $0.requestID == finished.requestID })
                        {
                            setup.performanceTests[index] = finished
                        }
                    }
                } catch {
                    logger.error("performance test \(finished.requestID)'s result was not recorded: \(error)")
                }
            }
        }
        return .json(PerformanceTestResponse(config: Self.performanceTestConfig, requestId: run.requestID))
    }

    func performanceTestResult(_ given: String) throws(StoreError) -> APIResponse {
        guard let id = Self.uuid(given) else {
            return .error(.invalidPerformanceTestRequestID, "\"\(given)\" is not a request id")
        }
        guard var run = try server.retentionSetup().performanceTests.first(where: { $0.requestID == id }) else {
            return .error(.performanceTestRunNotFound, "no performance test \(id)")
        }
        if !run.isFinished, !run.isRunning(at: realNow()) {
            // The server stopped while it ran: what never came back counts as failed.
            run.failures["OTHER", default: 0] += PerformanceTestRun.totalRequests - run.responseMilliseconds.count
            run.isFinished = true
        }
        var answer = PerformanceTestResultResponse(
            config: Self.performanceTestConfig, target: run.target, result: run.result,
            numPending: run.isFinished ? 0 : PerformanceTestRun.totalRequests)
        if run.isFinished {
            answer.successRate = run.successRate
            let times = run.responseMilliseconds.sorted()
            if !times.isEmpty {
                func percentile(_ p: Int) -> Int { times[min(times.count - 1, (times.count * p + 99) / 100 - 1)] }
                answer.responseTimes = .init(
                    average: times.reduce(0, +) / times.count, p50: percentile(50), p90: percentile(90),
                    p95: percentile(95), p99: percentile(99))
            }
            answer.failures = run.failures
        }
        return .json(answer)
    }
}

// N5: `storefront serve` answers first and delivers after, as Apple's service does, judged with
// Apple's own client against a receiver slower than the delivery's timeout.
import Foundation
import TestSupport
import Testing

extension ServeTests {
    @Test(
        "N5 V3 a receiver that answers after 5 s does not hold Request Test Notification: the answer comes while the delivery is still open, then the notification arrives and its status reports the attempt"
    )
    func slowReceiver() async throws {
        let receiver = try await Receiver(arguments: ["--delay", "5"])
        let session = try await Session()
        try await session.run(["webhook", "set", receiver.url]).expectSuccess()
        try await session.signUp("ann")
        let key = try await makeKey(session)
        let server = try await Server(session)
        // One client process, the two calls back to back: the status is read right after the
        // answer, while the delivery (which ends at its 2 s timeout at the soonest) is still open.
        let results = try await call(
            server, key, bundleID: "com.storefront.comics",
            [
                ["call": "request_test"], ["call": "test_status", "token": "previous"],
            ])
        #expect(results.allSatisfy { $0["ok"] as? Bool == true }, "\(results)")
        #expect(
            (result(results[1])["sendAttempts"] as? [Any])?.isEmpty == true,
            "answered before the delivery ended: \(results[1])")
        let token = try #require(result(results[0])["testNotificationToken"] as? String)
        #expect(await waitUntil(seconds: 60) { !receiver.payloads.isEmpty }, "the notification arrives")
        var attempts: [[String: Any]] = []
        #expect(
            try await waitUntil(seconds: 60) {
                let status = try await call(
                    server, key, bundleID: "com.storefront.comics", [["call": "test_status", "token": token]])
                attempts = result(status[0])["sendAttempts"] as? [[String: Any]] ?? []
                return !attempts.isEmpty
            })
        #expect(
            attempts.first?["sendAttemptResult"] as? String == "TIMED_OUT",
            "the receiver answered after the 2 s timeout: \(attempts)")
        _ = try await server.stop()
    }
}

// N1–N5 in the store: which notification each event writes, written with its line (N2), the
// retry schedule on the store clock (N3), the same UUID and bytes on every attempt (N4), and a
// receiver that fails never failing a purchase (N5). A fake poster stands for the network here;
// EndToEndTests/NotificationDeliveryTests POSTs to a real receiver and has Apple's library verify.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

/// Answers with the statuses it is given, in turn (then 200), and keeps every body.
final class FakePoster: WebhookPosting, @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int?]
    private(set) var bodies: [Data] = []

    init(_ statuses: [Int?] = []) { self.statuses = statuses }

    func post(_ body: Data, to url: URL, timeout: TimeInterval) -> Result<Int, HTTPProblem> {
        lock.withLock {
            bodies.append(body)
            let status = statuses.isEmpty ? 200 : statuses.removeFirst()
            return status.map { .success($0) } ?? .failure(.refused)
        }
    }

    var count: Int { lock.withLock { bodies.count } }
}

@Suite("Server notifications")
struct NotificationTests {
    func titles(_ store: Store) throws -> [String] { try store.notifications.all().map(\.title) }

    func store(_ state: TemporaryState, _ catalog: Catalog = selfiesCatalog, at date: Date = utc(2026, 5, 4, 12)) throws
        -> Store
    {
        state.clock.set(date)
        let store = try state.signedIn("jo", catalog: catalog)
        store.notifications.poster = FakePoster()
        return store
    }

    @Test("N1 every plan event writes the notification Apple sends, with its subtype")
    func planEvents() throws {
        let state = TemporaryState()
        let store = try store(state)
        try store.queue.buy("oneaweek.monthly")  // a free week
        state.clock.set(utc(2026, 5, 12, 12))  // renewed on the 11th
        _ = try store.plans.subscriptions()
        try store.queue.buy("oneaweek")  // another length: at the next renewal (a change)
        try store.queue.buy("oneaweek.monthly")  // undoes the pending change
        try store.queue.buy("allaccess.monthly")  // a higher level: at once
        _ = try store.plans.perform(.cancel, on: "allaccess.monthly")
        _ = try store.plans.perform(.renewOn, on: "allaccess.monthly")
        try store.settings.setBilling(BillingSetting(failing: true, graceDays: 3))
        state.clock.set(utc(2026, 6, 20, 12))  // the renewal fails, grace runs out
        _ = try store.plans.subscriptions()
        try store.settings.setBilling(BillingSetting(failing: false, graceDays: 3))
        state.clock.set(utc(2026, 6, 21, 12))  // billing works again
        _ = try store.plans.subscriptions()
        let plan = try #require(try store.plans.subscriptions().first)
        _ = try store.plans.refund(plan.transactionID)
        try store.queue.buy("allaccess")  // after the refund ended it: a resubscription
        _ = try store.plans.perform(.expire, on: "allaccess")
        #expect(
            try titles(store) == [
                "SUBSCRIBED (INITIAL_BUY)", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF (DOWNGRADE)",
                "DID_CHANGE_RENEWAL_PREF",
                "DID_CHANGE_RENEWAL_PREF (UPGRADE)", "DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_DISABLED)",
                "DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_ENABLED)", "DID_FAIL_TO_RENEW (GRACE_PERIOD)",
                "GRACE_PERIOD_EXPIRED",
                "DID_RENEW (BILLING_RECOVERY)", "REFUND", "SUBSCRIBED (RESUBSCRIBE)", "EXPIRED (VOLUNTARY)",
            ])
    }

    @Test(
        "N1 one-time charges for a comic, a pack and a pass; a cancelled plan's end and billing retry giving up expire it"
    )
    func oneTimeAndExpiries() throws {
        let state = TemporaryState()
        let catalog = Catalog(name: "Both", bonusDays: 1, products: testCatalog.products + selfiesCatalog.products)
        let store = try store(state, catalog)
        for product in ["comic.a", "pack", "sub3"] { try store.queue.buy(product) }
        #expect(try titles(store) == ["ONE_TIME_CHARGE", "ONE_TIME_CHARGE", "ONE_TIME_CHARGE"])
        try store.queue.buy("allaccess")
        _ = try store.plans.perform(.cancel, on: "allaccess")
        state.clock.set(utc(2026, 5, 20))
        _ = try store.plans.subscriptions()
        _ = try store.plans.subscriptions()
        #expect(
            try titles(store).suffix(3) == [
                "SUBSCRIBED (INITIAL_BUY)", "DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_DISABLED)", "EXPIRED (VOLUNTARY)",
            ],
            "the period's end, told once")
        try store.settings.setBilling(BillingSetting(failing: true, graceDays: nil))
        try store.queue.buy("allaccess")
        state.clock.set(utc(2026, 9, 1))
        _ = try store.plans.subscriptions()
        #expect(
            try titles(store).suffix(3) == ["SUBSCRIBED (RESUBSCRIBE)", "DID_FAIL_TO_RENEW", "EXPIRED (BILLING_RETRY)"])
    }

    @Test("N2 a crash after the renewals are written leaves their notifications written too; no line, no notification")
    func writtenWithTheLine() throws {
        let state = TemporaryState()
        let store = try store(state)
        try store.queue.buy("allaccess")
        state.clock.set(utc(2026, 6, 4, 12))
        store.crashPoints = { point throws(StoreError) in if point == .renewalsRecorded { throw .stopped(at: point) } }
        #expect(throws: StoreError.self) { try store.queue.recover() }
        let renewals = try store.server.planLines(account: "jo").filter { $0.event == .renewal }.map(\.transactionID)
        let told = try store.notifications.all().filter { $0.type == "DID_RENEW" }.compactMap(\.transactionID)
        #expect(renewals.count == 4 && told == renewals)
    }

    @Test(
        "N3 N4 a receiver that fails is retried 1, 12, 24, 48 and 72 hours after the first attempt on the store clock, same UUID and bytes, then failed"
    )
    func retrySchedule() throws {
        let state = TemporaryState()
        let store = try store(state, testCatalog, at: utc(2026, 1, 15, 12))
        let poster = FakePoster(Array(repeating: 500, count: 10))
        store.notifications.poster = poster
        try store.notifications.setWebhook(Webhook(url: "http://127.0.0.1:9/apple"))
        try store.queue.buy("comic.a")
        #expect(try store.notifications.deliverDue().retrying.count == 1)
        var expected = [utc(2026, 1, 15, 12)]
        for hours in [1, 12, 24, 48, 72] {
            // Not yet due a second before; due at the hour.
            state.clock.set(utc(2026, 1, 15, 12).addingTimeInterval(TimeInterval(hours * 3600 - 1)))
            #expect(try store.notifications.deliverDue().isEmpty, "\(hours) h")
            state.clock.set(utc(2026, 1, 15, 12).addingTimeInterval(TimeInterval(hours * 3600)))
            try store.notifications.deliverDue()
            expected.append(state.clock.now())
        }
        let notification = try #require(try store.notifications.all().first)
        #expect(notification.state == .failed && notification.nextAttemptAt == nil)
        #expect(notification.attempts.map(\.at) == expected && notification.attempts.allSatisfy { $0.status == 500 })
        #expect(Set(poster.bodies).count == 1 && poster.count == 6, "the same bytes, the same UUID, six attempts")
        state.clock.set(utc(2026, 2, 1))
        #expect(try store.notifications.deliverDue().isEmpty && poster.count == 6, "failed is final until resent")
        store.notifications.poster = FakePoster()
        try store.notifications.resend(notification.uuid)
        #expect(try store.notifications.deliverDue().delivered == [notification.uuid])
    }

    @Test("N3 --once: one attempt, as the sandbox; no webhook: written and kept, sent once one is set")
    func onceAndNoWebhook() throws {
        let state = TemporaryState()
        let store = try store(state, testCatalog, at: utc(2026, 1, 15, 12))
        let poster = FakePoster([nil])
        store.notifications.poster = poster
        try store.queue.buy("comic.a")
        #expect(try store.notifications.deliverDue().isEmpty && poster.count == 0)
        try store.notifications.setWebhook(Webhook(url: "http://127.0.0.1:9/apple", once: true))
        #expect(try store.notifications.deliverDue().failed.count == 1)
        let failed = try #require(try store.notifications.all().first)
        #expect(
            failed.attempts.first?.problem == .refused && failed.attempts.first?.error == "Connection refused"
                && failed.state == .failed)
    }

    @Test("N5 a receiver that refuses every attempt never fails a purchase")
    func neverFailsAPurchase() throws {
        let state = TemporaryState()
        let store = try store(state, testCatalog)
        store.notifications.poster = FakePoster(Array(repeating: nil, count: 100))
        try store.notifications.setWebhook(Webhook(url: "http://127.0.0.1:9/apple"))
        for product in ["comic.a", "comic.b", "pack"] {
            let transaction = try store.queue.buy(product)
            #expect(transaction.state == .purchased)
            _ = try? store.notifications.deliverDue()
        }
        #expect(try store.entitlements.status().owned == ["comic.a", "comic.b"])
    }

    @Test("W9 a customer is shown where the webhook goes, never its path, query or credentials")
    func webhookShownToCustomers() {
        let shown = { (url: String) in Webhook(url: url, once: true).shownToCustomers }
        #expect(
            shown("https://backend.example/apple/s3cret?token=t")
                == Webhook(url: "https://backend.example/…", once: true))
        #expect(shown("http://127.0.0.1:8000/apple").url == "http://127.0.0.1:8000/…")
        #expect(shown("https://user:pw@backend.example").url == "https://backend.example/…")
        #expect(shown("https://backend.example").url == "https://backend.example")
        #expect(shown("https://backend.example/").url == "https://backend.example")
    }
}

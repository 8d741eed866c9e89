// Q1–Q5: the mock payment queue.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

struct SimulatedCrash: Error {}

@Suite("Payment queue")
struct PaymentQueueTests {
    struct OutcomeCase: Sendable, CustomTestStringConvertible {
        let outcome: PurchaseOutcome
        let states: [TransactionState]
        let reason: FailureReason?
        var testDescription: String { outcome.description }
    }

    static let outcomes: [OutcomeCase] =
        [
            OutcomeCase(outcome: .approve, states: [.purchasing, .purchased], reason: nil),
            OutcomeCase(outcome: .defer, states: [.purchasing, .deferred], reason: nil),
            OutcomeCase(outcome: .interrupt, states: [.purchasing, .interrupted], reason: nil),
            OutcomeCase(outcome: .delayed(after: .seconds(30), approve: true), states: [.purchasing], reason: nil),
        ]
        + FailureReason.policyReasons.map {
            OutcomeCase(outcome: .fail($0), states: [.purchasing, .failed], reason: $0)
        }

    @Test("Q1 Q2 each outcome's state sequence, seen by observers in order", arguments: outcomes)
    func stateSequences(_ example: OutcomeCase) throws {
        let state = TemporaryState()
        let store = try state.store()
        var seen: [TransactionState] = []
        store.queue.observe { seen.append($0.state) }
        let transaction = try store.queue.buy("comic.a", outcome: example.outcome)
        #expect(transaction.states == example.states)
        #expect(transaction.reason == example.reason)
        #expect(seen == example.states)
        #expect(transaction.isFinished == (transaction.state == .purchased || transaction.state == .failed))
    }

    @Test("Q1 transaction identifiers are unique")
    func uniqueIDs() throws {
        let state = TemporaryState()
        let store = try state.store()
        let ids = try (0..<50).map { _ in try store.queue.buy("pack").id }
        #expect(Set(ids).count == 50)
    }

    @Test("Q1 a deferred purchase approved moves to purchased; declined to failed(declined)")
    func deferred() throws {
        let state = TemporaryState()
        let store = try state.store()
        let first = try store.queue.buy("pack", outcome: .defer)
        let second = try store.queue.buy("pack", outcome: .defer)
        #expect(try store.queue.pending().map(\.id) == [first.id, second.id])
        state.clock.advance(seconds: 3600)
        let approved = try store.queue.approve(String(first.id.prefix(6)))
        #expect(approved.states == [.purchasing, .deferred, .purchased])
        #expect(approved.purchaseDate == startDate.addingTimeInterval(3600))
        let declined = try store.queue.decline(second.id)
        #expect(declined.states == [.purchasing, .deferred, .failed])
        #expect(declined.reason == .declined)
        #expect(try store.entitlements.status().randomViewsRemaining == 5)
        #expect(try store.queue.pending().isEmpty)
        #expect(error { try store.queue.approve(second.id) } == .notPending(id: second.id, state: .failed))
    }

    @Test("Q4 an interrupted purchase completes when resolved, or fails as cancelled")
    func interrupted() throws {
        let state = TemporaryState()
        let store = try state.store()
        let first = try store.queue.buy("comic.a", outcome: .interrupt)
        #expect(try store.entitlements.productRows().first { $0.product.id == "comic.a" }?.pending == .interrupted)
        #expect(try store.queue.resolve(first.id).states == [.purchasing, .interrupted, .purchased])
        #expect(try store.entitlements.status().owned == ["comic.a"])
        let second = try store.queue.buy("comic.b", outcome: .interrupt)
        let cancelled = try store.queue.decline(second.id)
        #expect(cancelled.reason == .cancelled)
        #expect(error { try store.queue.resolve(cancelled.id) } == .cannotResolve(id: cancelled.id, state: .failed))
    }

    @Test("Q4 the device's policy decides, and can change at any time")
    func policy() throws {
        let state = TemporaryState()
        let store = try state.store()
        #expect(try store.queue.policy() == .approve)
        try store.queue.setPolicy(.fail(.paymentInvalid))
        #expect(try store.queue.buy("comic.a").reason == .paymentInvalid)
        // Another process on the same device sees the new policy.
        #expect(try state.store().queue.policy() == .fail(.paymentInvalid))
        try store.queue.setPolicy(.defer)
        #expect(try store.queue.buy("comic.a").state == .deferred)
        store.queue.outcomeOverride = .approve
        #expect(try store.queue.buy("comic.b").state == .purchased)
    }

    @Test("Q5 a delayed approval stays purchasing until the clock passes it, and is dated then")
    func delayed() throws {
        let state = TemporaryState()
        let store = try state.store()
        let transaction = try store.queue.buy("pack", outcome: .delayed(after: .seconds(90), approve: true))
        #expect(transaction.state == .purchasing)
        state.clock.advance(seconds: 89)
        #expect(try store.queue.recover().settled.isEmpty)
        #expect(try store.queue.transaction(transaction.id).state == .purchasing)
        state.clock.advance(seconds: 3600)
        #expect(try store.queue.recover().settled == [transaction.id])
        let settled = try store.queue.transaction(transaction.id)
        #expect(settled.state == .purchased)
        #expect(settled.purchaseDate == startDate.addingTimeInterval(90))
        #expect(try store.entitlements.status().randomViewsRemaining == 5)
    }

    @Test("Q5 a delayed decline fails as declined when due")
    func delayedDecline() throws {
        let state = TemporaryState()
        let store = try state.store()
        let transaction = try store.queue.buy("comic.a", outcome: .delayed(after: .days(1), approve: false))
        state.clock.advance(.days(2), calendar: utcCalendar)
        try store.queue.recover()
        let settled = try store.queue.transaction(transaction.id)
        #expect(settled.states == [.purchasing, .failed])
        #expect(settled.reason == .declined)
        #expect(try store.entitlements.status().owned.isEmpty)
    }

    @Test("Q3 a purchase cut off before delivery is delivered once at the next start")
    func redelivery() throws {
        let state = TemporaryState()
        let crashing = try state.signedIn("ann")
        crashing.crashPoints = { point throws(StoreError) in if point == .purchaseMarked { throw .stopped(at: point) } }
        #expect(throws: StoreError.self) { try crashing.queue.buy("pack") }
        #expect(throws: StoreError.self) { try crashing.queue.buy("sub3") }
        let pending = try crashing.queue.history()
        #expect(pending.map(\.state) == [.purchased, .purchased])
        #expect(pending.allSatisfy { !$0.isFinished })
        #expect(try crashing.entitlements.status().randomViewsRemaining == 0)

        let restarted = try state.store()
        let report = try restarted.queue.recover()
        #expect(report.redelivered == pending.map(\.id))
        #expect(try restarted.queue.recover().isEmpty)
        let status = try restarted.entitlements.status()
        #expect(status.randomViewsRemaining == 5)
        #expect(status.expiry == utc(2026, 4, 16, 12))
        #expect(try restarted.queue.history().allSatisfy(\.isFinished))
    }

    @Test("Q3 delivery is idempotent per transaction")
    func idempotentDelivery() throws {
        let state = TemporaryState()
        let store = try state.store()
        let transaction = try store.queue.buy("pack")
        try store.queue.deliver(transaction.id)
        try store.queue.deliver(transaction.id)
        #expect(try store.entitlements.status().randomViewsRemaining == 5)
    }

    @Test("Q3 a purchase the server recorded but the device did not is completed, never lost")
    func reconciles() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        let transaction = try store.queue.buy("sub3", outcome: .defer)
        // The crash came between the server's receipt and the device's state change.
        try store.server.record(
            ReceiptEntry(
                transactionID: transaction.id, account: "ann", productID: "sub3", kind: .nonRenewingSubscription,
                months: 3, bonusDays: 1, purchaseDate: startDate, device: "phone"),
            calendar: utcCalendar
        )
        let report = try state.store().queue.recover()
        #expect(report.reconciled == [transaction.id])
        #expect(try store.queue.transaction(transaction.id).state == .purchased)
        #expect(try store.entitlements.status().isSubscribed)
    }

    @Test("Q3 a purchase cut off before the store answered fails as a network error; nothing is charged")
    func abandoned() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        let orphan = StoreTransaction(
            id: "orphan", user: "ann", productID: "comic.a", kind: .nonConsumable, quantity: 0, months: 0, bonusDays: 0,
            state: .purchasing, reason: nil, createdAt: startDate, purchaseDate: nil, dueAt: nil, dueApproves: nil,
            isFinished: false, originalID: nil, steps: []
        )
        try store.device.insert(orphan)
        #expect(try store.queue.recover().abandoned == ["orphan"])
        #expect(try store.queue.transaction("orphan").reason == .network)
        #expect(try store.server.receipt(account: "ann").isEmpty)
    }

    @Test("R3 a subscription needs an account; R1 a comic cannot be bought twice")
    func refusals() throws {
        let state = TemporaryState()
        let store = try state.store()
        #expect(error { try store.queue.buy("sub3") } == .signInRequired(productID: "sub3"))
        try store.queue.buy("comic.a")
        #expect(error { try store.queue.buy("comic.a") } == .alreadyOwned(productID: "comic.a"))
        #expect(error { try store.queue.buy("comic.z") } == .unknownProduct("comic.z", suggestion: "comic.a"))
        #expect(try store.queue.history().count == 1)
    }
}

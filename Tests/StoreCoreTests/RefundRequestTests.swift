// O7: refund requests as a customer makes them, answered by the developer's side or a policy;
// consumption requests for consumables; refunds taken back. The receipt still recomputes (A6).
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Refund requests")
struct RefundRequestTests {
    func told(_ store: Store, _ account: String = "ann") throws -> [String] {
        try store.server.notifications(account: account).map { "\($0.type)\($0.subtype.map { " " + $0 } ?? "")" }
    }

    @Test(
        "O7 a comic's refund approved: REFUND, the comic leaves every device of the account and restore does not bring it back; reversed, it comes back (REFUND_REVERSED)"
    )
    func comicRefunded() throws {
        let state = TemporaryState()
        let phone = try state.signedIn("ann", device: "phone")
        let tablet = try state.signedIn("ann", device: "tablet")
        let bought = try phone.queue.buy("comic.a")
        _ = try tablet.queue.restore()
        let request = try phone.refunds.request(bought.id, reason: .unsatisfied)
        #expect(request.state == .pending && request.reason == .unsatisfied)
        #expect(try phone.entitlements.status().owned == ["comic.a"], "a request alone takes nothing")
        let approved = try tablet.refunds.decide(bought.id, approve: true)
        #expect(approved.state == .approved)
        for store in [phone, tablet] {
            _ = try store.queue.recover()
            #expect(try store.entitlements.status().owned.isEmpty)
        }
        _ = try tablet.queue.restore()
        #expect(try tablet.entitlements.status().owned.isEmpty)
        let signed = try #require(try phone.signed.transaction(try phone.queue.transaction(bought.id)))
        #expect(signed.payload["revocationDate"] != nil && signed.payload["revocationReason"] as? Int == 0)
        #expect(try told(phone).suffix(1) == ["REFUND"])
        _ = try phone.refunds.reverse(bought.id)
        _ = try phone.queue.recover()
        #expect(try phone.entitlements.status().owned == ["comic.a"])
        #expect(try phone.signed.transaction(try phone.queue.transaction(bought.id))?.payload["revocationDate"] == nil)
        #expect(try told(phone).suffix(1) == ["REFUND_REVERSED"])
        #expect(try phone.entitlements.receipt().isConsistent)
    }

    @Test(
        "O7 a consumable's request sends CONSUMPTION_REQUEST with the reason; declined, REFUND_DECLINED and nothing is revoked; asked again, approved"
    )
    func consumable() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann", device: "phone")
        let bought = try store.queue.buy("pack")
        _ = try store.refunds.request(bought.id, reason: .fulfillment)
        let notification = try #require(try store.server.notifications(account: "ann").last)
        #expect(notification.type == "CONSUMPTION_REQUEST")
        let payload = try #require(
            try JWS.decode(try store.notifications.signedPayload(notification)).payload["data"] as? [String: Any])
        #expect(payload["consumptionRequestReason"] as? String == "FULFILLMENT_ISSUE")
        let reported = try JWS.decode(try #require(payload["signedTransactionInfo"] as? String)).payload
        #expect(reported["transactionId"] as? String == bought.id)
        #expect(try store.refunds.decide(bought.id, approve: false).state == .declined)
        #expect(try told(store).suffix(1) == ["REFUND_DECLINED"])
        #expect(
            error { try store.refunds.decide(bought.id, approve: true) }
                == .refundRefused(.requestAnswered(transactionID: bought.id, state: .declined)))
        _ = try store.refunds.request(bought.id, reason: .other)
        #expect(try store.refunds.decide(bought.id, approve: true).state == .approved)
        #expect(
            try store.entitlements.status().randomViewsRemaining == 5,
            "views already given are the developer's to take back")
        #expect(
            try store.refunds.requests().map(\.state).sorted { $0.rawValue < $1.rawValue } == [.approved, .declined])
    }

    @Test(
        "O7 a plan period's refund ends the plan (REFUND); reversed, it runs again; the receipt gives the plan back (A6)"
    )
    func planPeriod() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 1))
        let store = try state.signedIn("ann", device: "phone", catalog: selfiesCatalog)
        let bought = try store.queue.buy("allaccess")
        _ = try store.refunds.request(bought.id, reason: .unintended)
        _ = try store.refunds.decide(bought.id, approve: true)
        var plan = try #require(try store.plans.subscriptions().first)
        #expect(plan.phase == .expired && plan.endReason == "refunded")
        _ = try store.refunds.reverse(bought.id)
        plan = try #require(try store.plans.subscriptions().first)
        #expect(plan.hasAccess && plan.autoRenew)
        let report = try store.entitlements.receipt()
        #expect(report.storedPlans == report.recomputedPlans)
        #expect(try told(store) == ["SUBSCRIBED INITIAL_BUY", "REFUND", "REFUND_REVERSED"])
    }

    @Test(
        "O7 a device's policy answers at once; a crash after the request is written leaves it to the next start, which answers it once"
    )
    func policy() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann", device: "phone")
        try store.refunds.setPolicy(.approve)
        let first = try store.queue.buy("comic.a")
        #expect(try store.refunds.request(first.id, reason: .other).state == .approved)
        try store.refunds.setPolicy(.decline)
        let second = try store.queue.buy("comic.b")
        store.crashPoints = { point throws(StoreError) in
            if point == .refundRequested { throw StoreError.stopped(at: point) }
        }
        #expect(error { try store.refunds.request(second.id, reason: .other) } == .stopped(at: .refundRequested))
        store.crashPoints = { _ in }
        let restarted = try state.signedIn("ann", device: "phone")
        _ = try restarted.queue.recover()
        _ = try restarted.queue.recover()
        let requests = try restarted.refunds.requests()
        #expect(
            Dictionary(uniqueKeysWithValues: requests.map { ($0.productID, $0.state) }) == [
                "comic.a": .approved, "comic.b": .declined,
            ], "\(requests)")
        #expect(try told(restarted).filter { $0 == "REFUND_DECLINED" }.count == 1)
    }

    @Test(
        "O7 refused: a second request while one waits, one of a refunded purchase, one of another account's purchase, a non-renewing subscription"
    )
    func refusals() throws {
        let state = TemporaryState()
        let ann = try state.signedIn("ann", device: "phone")
        let comic = try ann.queue.buy("comic.a")
        let pass = try ann.queue.buy("sub3")
        _ = try ann.refunds.request(comic.id, reason: .other)
        #expect(
            error { try ann.refunds.request(comic.id, reason: .other) }
                == .refundRefused(.requestWaiting(transactionID: comic.id)))
        _ = try ann.refunds.decide(comic.id, approve: true)
        #expect(
            error { try ann.refunds.request(comic.id, reason: .other) }
                == .refundRefused(.refundedAlready(transactionID: comic.id)))
        guard case .refundRefused? = error({ try ann.refunds.request(pass.id, reason: .other) }) else {
            Issue.record("a non-renewing subscription was refunded")
            return
        }
        let bob = try state.signedIn("bob", device: "tablet")
        #expect(error { try bob.refunds.request(comic.id, reason: .other) } == .unknownTransaction(comic.id))
    }
}

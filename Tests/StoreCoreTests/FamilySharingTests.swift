// O5: Family Sharing — members see the organizer's shareable purchases as their own
// FAMILY_SHARED transactions; leaving or unsharing revokes them (REVOKE); crashes leave nothing
// the next start does not put right.
import Foundation
import Testing
import TestSupport
@testable import StoreCore

@Suite("Family Sharing")
struct FamilySharingTests {
    /// mom organizes a family with kid; both on their own devices.
    func family(_ state: TemporaryState) throws -> (mom: Store, kid: Store) {
        state.clock.set(utc(2026, 4, 1, 9))
        let kid = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        let mom = try state.signedIn("mom", device: "phone", catalog: selfiesCatalog)
        _ = try mom.family.create()
        _ = try mom.family.add("kid")
        return (mom, kid)
    }

    @Test("O5 a shared comic is the member's own FAMILY_SHARED transaction (its own id, the organizer's purchase as original); leaving revokes it: REVOKE, revocation date, the ✓ gone")
    func sharedComic() throws {
        let state = TemporaryState()
        let (mom, kid) = try family(state)
        let bought = try mom.queue.buy("comic.a")
        _ = try kid.queue.recover()
        #expect(try kid.entitlements.status().owned == ["comic.a"])
        let shared = try #require(try kid.queue.history().first { $0.productID == "comic.a" })
        #expect(shared.id != bought.id && shared.originalID == bought.id)
        #expect(shared.arrival == .familyShare && bought.arrival == nil, "D3: it arrived as a family share")
        #expect(try kid.queue.recentEvents(limit: 10).last?.arrival == .familyShare, "the log says how it came")
        let payload = try #require(try kid.signed.transaction(shared)).payload
        #expect(payload["inAppOwnershipType"] as? String == "FAMILY_SHARED" && payload["originalTransactionId"] as? String == bought.id)
        #expect(payload["revocationDate"] == nil)
        state.clock.advance(seconds: 3600)
        _ = try kid.family.leave("kid")
        _ = try kid.queue.recover()
        #expect(try kid.entitlements.status().owned.isEmpty)
        #expect(try kid.entitlements.productRows().first { $0.product.id == "comic.a" }?.action == .buy)
        let revoked = try #require(try kid.signed.transaction(shared)).payload
        #expect(revoked["revocationDate"] as? Int64 == Int64(utc(2026, 4, 1, 10).timeIntervalSince1970 * 1000))
        #expect(try kid.server.notifications(account: "kid").map(\.type) == ["REVOKE"])
        #expect(try mom.entitlements.status().owned == ["comic.a"], "the organizer keeps it")
        #expect(try kid.entitlements.receipt().isConsistent)
    }

    @Test("O5 a shared plan gives the member access as it renews; sharing turned off takes it away (REVOKE); a plan that is not shareable is never shared")
    func sharedPlan() throws {
        let state = TemporaryState()
        let (mom, kid) = try family(state)
        try mom.queue.buy("allaccess")
        _ = try kid.queue.recover()
        var plan = try #require(try kid.entitlements.status().plans.first)
        #expect(plan.familySharedBy == "mom" && plan.hasAccess && plan.unlocks == ["all-selfies"])
        state.clock.set(utc(2026, 4, 20))
        _ = try kid.queue.recover()
        plan = try #require(try kid.entitlements.status().plans.first)
        #expect(plan.hasAccess && plan.renewals == 2, "the member's access follows the organizer's renewals")
        _ = try mom.family.share("allaccess", on: false)
        _ = try kid.queue.recover()
        #expect(try kid.entitlements.status().plans.isEmpty)
        #expect(try kid.server.notifications(account: "kid").map(\.type) == ["REVOKE"])
        #expect(error { try mom.family.share("oneaweek", on: true) } == .familyRefused(.notShareable(productID: "oneaweek")))
        let report = try kid.entitlements.receipt()
        #expect(report.isConsistent && report.storedPlans == report.recomputedPlans)
    }

    @Test("O5 a crash after the family changed and before the members' shares are put right: the member's next start does it, once")
    func crashAfterChange() throws {
        let state = TemporaryState()
        let (mom, kid) = try family(state)
        try mom.queue.buy("comic.a")
        _ = try kid.queue.recover()
        mom.crashPoints = { point throws(StoreError) in if point == .familyChanged { throw StoreError.stopped(at: point) } }
        #expect(error { try mom.family.leave("kid") } == .stopped(at: .familyChanged))
        #expect(try kid.entitlements.status().owned == ["comic.a"], "not yet revoked")
        let restarted = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        _ = try restarted.queue.recover()
        _ = try restarted.queue.recover()
        #expect(try restarted.entitlements.status().owned.isEmpty)
        #expect(try restarted.server.notifications(account: "kid").map(\.type) == ["REVOKE"])
    }

    @Test("O5 refused: joining a second family, a sixth member, removing someone else as a member, a member asking a refund of a shared purchase")
    func refusals() throws {
        let state = TemporaryState()
        let (mom, kid) = try family(state)
        let dad = try state.signedIn("dad", device: "laptop", catalog: selfiesCatalog)
        _ = try dad.family.create()
        #expect(error { try dad.family.add("kid") } == .familyRefused(.inAFamily(account: "kid")))
        for name in ["a1", "a2", "a3", "a4"] {
            _ = try state.signedIn(name, device: "d-\(name)", catalog: selfiesCatalog)
            _ = try mom.family.add(name)
        }
        _ = try state.signedIn("a5", device: "d-a5", catalog: selfiesCatalog)
        #expect(error { try mom.family.add("a5") } == .familyRefused(.full(maximum: 5)))
        #expect(error { try dad.family.leave("kid") } == .familyRefused(.memberOrOrganizerOnly(member: "kid", organizer: "mom")))
        try mom.queue.buy("comic.a")
        _ = try kid.queue.recover()
        let shared = try #require(try kid.queue.history().first)
        guard case .refundRefused? = error({ try kid.refunds.request(shared.id, reason: .other) }) else {
            Issue.record("a member asked a refund of a shared purchase")
            return
        }
    }
}

// O5: Family Sharing — members see the organizer's shareable purchases as their own
// FAMILY_SHARED transactions; leaving or unsharing revokes them (REVOKE); crashes leave nothing
// the next start does not put right. The organizer, as parent or guardian, withdraws consent for a
// member's use of the app (RESCIND_CONSENT), once per withdrawal.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Family Sharing")
struct FamilySharingTests {
    /// mom organizes a family with kid; both on their own devices.
    func family(_ state: TemporaryState) throws -> (mom: Store, kid: Store) {
        state.clock.set(utc(2026, 4, 1, 9))
        let kid = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        let mom = try state.signedIn("mom", device: "phone", catalog: selfiesCatalog)
        _ = try mom.family.create()
        _ = try mom.family.add("kid")
        _ = try kid.family.accept()
        return (mom, kid)
    }

    @Test(
        "O5 a shared comic is the member's own FAMILY_SHARED transaction (its own id, the organizer's purchase as original); leaving revokes it: REVOKE, revocation date, the ✓ gone"
    )
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
        #expect(
            payload["inAppOwnershipType"] as? String == "FAMILY_SHARED"
                && payload["originalTransactionId"] as? String == bought.id)
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

    @Test(
        "O5 a shared plan gives the member access as it renews; sharing turned off takes it away (REVOKE); a plan that is not shareable is never shared"
    )
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
        #expect(
            error { try mom.family.share("oneaweek", on: true) } == .familyRefused(.notShareable(productID: "oneaweek"))
        )
        let report = try kid.entitlements.receipt()
        #expect(report.isConsistent && report.storedPlans == report.recomputedPlans)
    }

    @Test(
        "O5 a crash after the family changed and before the members' shares are put right: the member's next start does it, once"
    )
    func crashAfterChange() throws {
        let state = TemporaryState()
        let (mom, kid) = try family(state)
        try mom.queue.buy("comic.a")
        _ = try kid.queue.recover()
        mom.crashPoints = { point throws(StoreError) in
            if point == .familyChanged { throw StoreError.stopped(at: point) }
        }
        #expect(error { try mom.family.leave("kid") } == .stopped(at: .familyChanged))
        #expect(try kid.entitlements.status().owned == ["comic.a"], "not yet revoked")
        let restarted = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        _ = try restarted.queue.recover()
        _ = try restarted.queue.recover()
        #expect(try restarted.entitlements.status().owned.isEmpty)
        #expect(try restarted.server.notifications(account: "kid").map(\.type) == ["REVOKE"])
    }

    @Test(
        "O5 refused: joining a second family, a sixth member, removing someone else as a member, a member asking a refund of a shared purchase"
    )
    func refusals() throws {
        let state = TemporaryState()
        let (mom, kid) = try family(state)
        let dad = try state.signedIn("dad", device: "laptop", catalog: selfiesCatalog)
        _ = try dad.family.create()
        // W19: dad may invite kid, who is in mom's family; kid cannot accept while she is.
        _ = try dad.family.add("kid")
        #expect(
            error { try kid.family.accept(from: "dad") }
                == .familyRefused(.inFamilyOf(account: "kid", organizer: "mom")))
        for name in ["a1", "a2", "a3", "a4"] {
            _ = try state.signedIn(name, device: "d-\(name)", catalog: selfiesCatalog)
            _ = try mom.family.add(name)
        }
        let a5 = try state.signedIn("a5", device: "d-a5", catalog: selfiesCatalog)
        #expect(error { try mom.family.add("a5") } == .familyRefused(.full(maximum: 5)))
        #expect(
            error { try a5.family.leave("kid") }
                == .familyRefused(.memberOrOrganizerOnly(member: "kid", organizer: "mom")))
        // dad takes back his own invitation; kid stays in mom's family.
        #expect(try dad.family.leave("kid").invited.isEmpty)
        #expect(try mom.family.family()?.hasMember("kid") == true)
        try mom.queue.buy("comic.a")
        _ = try kid.queue.recover()
        let shared = try #require(try kid.queue.history().first)
        guard case .refundRefused? = error({ try kid.refunds.request(shared.id, reason: .other) }) else {
            Issue.record("a member asked a refund of a shared purchase")
            return
        }
    }

    @Test(
        "RESCIND_CONSENT: the organizer withdraws consent for a member; the developer is told once, the app closes to the member; consent given again sends nothing; withdrawn again, told again; leaving is the member's own right, and the withdrawal goes with them"
    )
    func consentWithdrawn() throws {
        let state = TemporaryState()
        let (mom, kid) = try family(state)
        #expect(try kid.family.consentWithdrawnBy() == nil)
        state.clock.advance(seconds: 60)
        let family = try mom.family.setConsent("kid", withdrawn: true)
        #expect(
            family.consentWithdrawn.map(\.member) == ["kid"] && family.consentWithdrawn.first?.at == state.clock.now())
        _ = try kid.queue.recover()
        _ = try mom.queue.recover()
        let told = try kid.server.notifications(account: "kid")
        #expect(told.map(\.type) == ["RESCIND_CONSENT"], "once, however often the family is put right")
        #expect(told.first?.transactionID == nil && told.first?.createdAt == state.clock.now())
        #expect(try kid.family.consentWithdrawnBy() == "mom" && mom.family.consentWithdrawnBy() == nil)
        #expect(
            error { try mom.family.setConsent("kid", withdrawn: true) }
                == .familyRefused(.consentUnchanged(member: "kid", withdrawn: true)))
        #expect(
            error { try kid.family.setConsent("kid", withdrawn: false) }
                == .familyRefused(.organizesNone(account: "kid")))
        #expect(
            error { try mom.family.setConsent("mom", withdrawn: true) } == .familyRefused(.notAMember(account: "mom")))
        _ = try mom.family.setConsent("kid", withdrawn: false)
        #expect(try kid.family.consentWithdrawnBy() == nil)
        // The same frozen moment: a second withdrawal is still its own notification.
        _ = try mom.family.setConsent("kid", withdrawn: true)
        _ = try kid.queue.recover()
        #expect(try kid.server.notifications(account: "kid").map(\.type) == ["RESCIND_CONSENT", "RESCIND_CONSENT"])
        // The member leaving, withdrawn or not, ends the family's say over them.
        _ = try kid.family.leave("kid")
        #expect(try kid.family.consentWithdrawnBy() == nil && kid.family.family() == nil)
    }

    @Test(
        "RESCIND_CONSENT: a crash after the family recorded the withdrawal, before it was told: the member's next start tells it, once"
    )
    func consentCrash() throws {
        let state = TemporaryState()
        let (mom, _) = try family(state)
        mom.crashPoints = { point throws(StoreError) in
            if point == .familyChanged { throw StoreError.stopped(at: point) }
        }
        #expect(error { try mom.family.setConsent("kid", withdrawn: true) } == .stopped(at: .familyChanged))
        #expect(try mom.server.notifications(account: "kid").isEmpty, "not yet told")
        let restarted = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        _ = try restarted.queue.recover()
        _ = try restarted.queue.recover()
        #expect(try restarted.server.notifications(account: "kid").map(\.type) == ["RESCIND_CONSENT"])
    }

    @Test(
        "RESCIND_CONSENT: the account server takes a family's consents from its organizer only; a member leaving takes only their own withdrawal with them; a withdrawal names a member"
    )
    func consentChanges() throws {
        let was = Family(organizer: "mom", members: ["kid", "teen"])
        var withdrawn = was
        withdrawn.consentWithdrawn = [ConsentWithdrawal(member: "kid", at: utc(2026, 4, 1))]
        let byKid = FamilyChange(organizer: "mom", expected: was, new: withdrawn)
        #expect(throws: StoreError.familyRefused(.organizerOnly(organizer: "mom"))) {
            try byKid.check(by: ["kid"], at: utc(2026, 4, 1, 9))
        }
        try byKid.check(by: ["mom"], at: utc(2026, 4, 1, 9))
        // kid leaving, consent withdrawn: allowed, the withdrawal going with kid.
        var left = withdrawn
        left.members = ["teen"]
        left.consentWithdrawn = []
        try FamilyChange(organizer: "mom", expected: withdrawn, new: left).check(by: ["kid"], at: utc(2026, 4, 1, 9))
        // teen leaving and taking kid's withdrawal off on the way: refused.
        var lifted = withdrawn
        lifted.members = ["kid"]
        lifted.consentWithdrawn = []
        #expect(throws: StoreError.familyRefused(.organizerOnly(organizer: "mom"))) {
            try FamilyChange(organizer: "mom", expected: withdrawn, new: lifted).check(
                by: ["teen"], at: utc(2026, 4, 1, 9))
        }
        // teen leaving, kid's withdrawal kept as it was: allowed.
        var teenLeft = withdrawn
        teenLeft.members = ["kid"]
        try FamilyChange(organizer: "mom", expected: withdrawn, new: teenLeft).check(
            by: ["teen"], at: utc(2026, 4, 1, 9))
        // A withdrawal for someone outside the family is refused when it is written.
        var stranger = was
        stranger.consentWithdrawn = [ConsentWithdrawal(member: "eve", at: utc(2026, 4, 1))]
        #expect(throws: StoreError.familyRefused(.notAMember(account: "eve"))) {
            try FamilyChange(organizer: "mom", expected: was, new: stranger).applied(to: [was])
        }
        // A family stored before consents existed reads as none withdrawn.
        let old = try JSONDecoder().decode(
            Family.self, from: Data(#"{"organizer":"mom","members":["kid"],"unshared":[]}"#.utf8))
        #expect(old == Family(organizer: "mom", members: ["kid"]))
    }

    @Test(
        "O5 W9 a member joins by accepting: the organizer's add is an invitation (no share until it is accepted), a name with no account is invited like any other, the organizer cannot list a member who never accepted, the invitee declines or accepts only for themself"
    )
    func invitations() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 4, 1, 9))
        let kid = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        let mom = try state.signedIn("mom", device: "phone", catalog: selfiesCatalog)
        _ = try mom.family.create()
        try mom.queue.buy("comic.a")
        let invited = try mom.family.add("kid")
        #expect(invited.members.isEmpty && invited.invited == ["kid"])
        _ = try kid.queue.recover()
        #expect(try kid.entitlements.status().owned.isEmpty, "nothing is shared with an invitee")
        #expect(try kid.family.family()?.organizer == "mom", "the invitee sees who invited it")
        // W19: a name with no account is invited as any other, so the answer tells no one it is free.
        #expect(try mom.family.add("nobody").invited == ["kid", "nobody"])
        _ = try mom.family.leave("nobody")
        // The organizer writing a member straight in, as a raw change would: refused.
        var forced = invited
        forced.invitations = []
        forced.members = ["kid"]
        #expect(throws: StoreError.familyRefused(.acceptsOwnInvitation(account: "kid"))) {
            try FamilyChange(organizer: "mom", expected: invited, new: forced).check(
                by: ["mom"], at: utc(2026, 4, 1, 9))
        }
        // Someone else accepting for kid: refused; kid accepting: allowed.
        #expect(throws: StoreError.familyRefused(.organizerOnly(organizer: "mom"))) {
            try FamilyChange(organizer: "mom", expected: invited, new: forced).check(
                by: ["eve"], at: utc(2026, 4, 1, 9))
        }
        try FamilyChange(organizer: "mom", expected: invited, new: forced).check(by: ["kid"], at: utc(2026, 4, 1, 9))
        let eve = try state.signedIn("eve", device: "laptop", catalog: selfiesCatalog)
        #expect(error { try eve.family.accept() } == .familyRefused(.notInvited(account: "eve")))
        // Declined, then invited again and accepted: the share arrives.
        #expect(try kid.family.leave("kid").invited.isEmpty)
        _ = try mom.family.add("kid")
        let joined = try kid.family.accept()
        #expect(joined.members == ["kid"] && joined.invited.isEmpty)
        _ = try kid.queue.recover()
        #expect(try kid.entitlements.status().owned == ["comic.a"])
    }
}

// W19: invitations to a family, on a manual clock. Several families may invite one account and its
// acceptance decides; declining one blocks no other; an invitation stands for a week, dated by the
// keeper of the records whatever date a device sends.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Family invitations")
struct FamilyInvitationTests {
    @Test(
        "W19 two families invite kid: neither blocks the other, declining one lets its organizer invite again without blocking the other, and kid's acceptance decides"
    )
    func severalFamilies() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 4, 1, 9))
        let kid = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        let eve = try state.signedIn("eve", device: "laptop", catalog: selfiesCatalog)
        let mom = try state.signedIn("mom", device: "phone", catalog: selfiesCatalog)
        _ = try eve.family.create()
        _ = try eve.family.add("kid")
        _ = try mom.family.create()
        state.clock.advance(seconds: 60)
        _ = try mom.family.add("kid")
        #expect(try kid.family.invitations().map(\.organizer) == ["eve", "mom"], "oldest first")
        #expect(
            error { try kid.family.accept() }
                == .familyRefused(.invitedBySeveral(account: "kid", organizers: ["eve", "mom"])))
        // Declining eve's, as often as she invites again, leaves mom's standing.
        for _ in 0..<3 {
            #expect(try kid.family.leave("kid", from: "eve").invited.isEmpty)
            _ = try eve.family.add("kid")
            #expect(try kid.family.invitations().map(\.organizer).sorted() == ["eve", "mom"])
        }
        let joined = try kid.family.accept(from: "mom")
        #expect(joined.members == ["kid"] && joined.invited.isEmpty)
        #expect(try kid.family.family()?.organizer == "mom")
        #expect(
            error { try kid.family.accept(from: "eve") }
                == .familyRefused(.inFamilyOf(account: "kid", organizer: "mom")), "one family at a time")
        // Declining every invitation at once: a fresh invitee with two.
        let gran = try state.signedIn("gran", device: "ipad", catalog: selfiesCatalog)
        _ = try eve.family.add("gran")
        _ = try mom.family.add("gran")
        _ = try gran.family.leave("gran")
        #expect(try gran.family.invitations().isEmpty)
        #expect(try gran.family.family() == nil)
        // Holding an invitation does not stop an account from starting a family of its own.
        _ = try eve.family.add("gran")
        #expect(try gran.family.create().organizer == "gran")
    }

    @Test(
        "W19 an invitation stands for 7 days of store time: after that it cannot be accepted, the organizer's next change drops it, and inviting again makes a new one"
    )
    func expiry() throws {
        let state = TemporaryState()
        let start = utc(2026, 4, 1, 9)
        state.clock.set(start)
        let kid = try state.signedIn("kid", device: "tablet", catalog: selfiesCatalog)
        let mom = try state.signedIn("mom", device: "phone", catalog: selfiesCatalog)
        _ = try mom.family.create()
        let invited = try mom.family.add("kid")
        #expect(invited.invitation(of: "kid")?.expires == utc(2026, 4, 8, 9))
        state.clock.set(utc(2026, 4, 8, 8, 59, 59))
        #expect(try kid.family.invitations().map(\.organizer) == ["mom"], "a second before it expires")
        state.clock.set(utc(2026, 4, 8, 9))
        #expect(try kid.family.invitations().isEmpty)
        #expect(try kid.family.family() == nil)
        #expect(
            error { try kid.family.accept() } == .familyRefused(.invitationExpired(account: "kid", organizer: "mom")))
        #expect(try mom.family.share("comic.a", on: false).invitations.isEmpty, "dropped with mom's next change")
        _ = try mom.family.add("kid")
        #expect(try kid.family.accept().members == ["kid"])
    }

    @Test(
        "W19 the keeper dates invitations: one it expected keeps its date, any other (a far-future date included) takes the keeper's now; an expired invitation is not accepted, even by a raw change"
    )
    func keeperDates() throws {
        let now = utc(2026, 4, 1, 9)
        let old = Invitation(account: "kid", at: utc(2026, 3, 30))
        let was = Family(organizer: "mom", invitations: [old])
        var sent = was
        sent.invitations.append(Invitation(account: "gran", at: .distantFuture))
        let dated = try #require(FamilyChange(organizer: "mom", expected: was, new: sent).dated(at: now).new)
        #expect(dated.invitations == [old, Invitation(account: "gran", at: now)])
        // A raw change by kid that accepts: allowed while the invitation stands, refused after.
        var accepted = was
        accepted.invitations = []
        accepted.members = ["kid"]
        let change = FamilyChange(organizer: "mom", expected: was, new: accepted)
        try change.check(by: ["kid"], at: now)
        #expect(throws: StoreError.familyRefused(.invitationExpired(account: "kid", organizer: "mom"))) {
            try change.check(by: ["kid"], at: old.expires)
        }
        // Declining is always allowed, expired or not.
        var declined = was
        declined.invitations = []
        try FamilyChange(organizer: "mom", expected: was, new: declined).check(by: ["kid"], at: old.expires)
    }

    @Test("W19 a family stored before invitations were dated reads its invitations as expired, and writes them dated")
    func legacyInvitations() throws {
        let stored = #"{"organizer":"mom","members":[],"unshared":[],"invited":["kid"]}"#
        let family = try JSONDecoder().decode(Family.self, from: Data(stored.utf8))
        #expect(family.invited == ["kid"])
        #expect(!family.invites("kid", at: utc(2026, 4, 1)))
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(family)) as? [String: Any]
        #expect(written?["invited"] == nil && (written?["invitations"] as? [Any])?.count == 1)
    }
}

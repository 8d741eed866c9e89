// Invitations to a family (W19): each dated by the keeper of the records, standing for a week.
// Any number of families may invite one account, and its acceptance decides; declining one blocks
// no other, and an invitation names a name whether or not it is an account, so it tells no one
// which names exist.
import Foundation

/// An organizer's invitation to `account`, sent at `at` on the keeper's clock.
public struct Invitation: Sendable, Equatable, Codable {
    public var account: String
    public var at: Date

    public init(account: String, at: Date) {
        self.account = account
        self.at = at
    }

    /// How long an invitation stands. Apple publishes no figure for Family Sharing; a week is the
    /// choice written in docs/rules.md (W19).
    public static let lifetime: TimeInterval = 7 * 86_400
    public static let lifetimeWords = "7 days"

    /// When it stops standing.
    public var expires: Date { at.addingTimeInterval(Invitation.lifetime) }

    /// It may be accepted at `now`.
    public func stands(at now: Date) -> Bool { now < expires }

    /// It invites `name`, whatever its case.
    public func names(_ name: String) -> Bool { account.lowercased() == name.lowercased() }
}

extension Family {
    /// The invitation to `account`, standing or not.
    public func invitation(of account: String) -> Invitation? {
        invitations.first { $0.names(account) }
    }

    /// `account` holds an invitation from this family that it may accept at `now`.
    public func invites(_ account: String, at now: Date) -> Bool {
        invitation(of: account)?.stands(at: now) == true
    }

    /// The family without the invitations that no longer stand at `now`.
    public func withoutExpiredInvitations(at now: Date) -> Family {
        var family = self
        family.invitations.removeAll { !$0.stands(at: now) }
        return family
    }
}

extension [Family] {
    /// The families whose invitation `account` may accept at `now`, oldest invitation first.
    public func inviting(_ account: String, at now: Date) -> [Family] {
        filter { $0.invites(account, at: now) }.sorted {
            ($0.invitation(of: account)?.at ?? .distantPast) < ($1.invitation(of: account)?.at ?? .distantPast)
        }
    }
}

extension FamilyChange {
    /// The change as the keeper writes it: an invitation it expected, unchanged, keeps its date;
    /// any other is dated `now` on the keeper's clock, whatever date the device sent (W18).
    public func dated(at now: Date) -> FamilyChange {
        guard var family = new else { return self }
        let kept = expected?.invitations ?? []
        family.invitations = family.invitations.map { invitation in
            kept.contains(invitation) ? invitation : Invitation(account: invitation.account, at: now)
        }
        return FamilyChange(organizer: organizer, expected: expected, new: family)
    }
}

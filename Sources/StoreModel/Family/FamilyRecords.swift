// A family as the account server keeps it (O5): its organizer, the members who accepted its
// invitation, the invitations not answered yet (W19), the members' consent, and one change to it,
// applied as one update.
import Foundation

public struct Family: Sendable, Equatable, Codable {
    public var organizer: String
    public var members: [String]
    /// Shareable products the organizer stopped sharing ("Share with family" off).
    public var unshared: [String]
    /// Members whose use of the app the organizer no longer consents to, and since when.
    public var consentWithdrawn: [ConsentWithdrawal]
    /// Invitations the organizer sent that were neither accepted nor declined: the accounts they
    /// name are not members, and nothing is shared with them. One past its lifetime can no longer
    /// be accepted.
    public var invitations: [Invitation]

    public init(
        organizer: String, members: [String] = [], unshared: [String] = [], consentWithdrawn: [ConsentWithdrawal] = [],
        invitations: [Invitation] = []
    ) {
        self.organizer = organizer
        self.members = members
        self.unshared = unshared
        self.consentWithdrawn = consentWithdrawn
        self.invitations = invitations
    }

    /// The accounts invited, in the order they were.
    public var invited: [String] { invitations.map(\.account) }

    enum CodingKeys: String, CodingKey {
        case organizer, members, unshared, consentWithdrawn, invitations, invited
    }

    /// Families stored before consent could be withdrawn have no `consentWithdrawn`; those stored
    /// before members were invited, no invitations. Those stored before invitations expired name the
    /// accounts invited (`invited`) with no date: they count as expired, and the organizer invites
    /// again.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        organizer = try container.decode(String.self, forKey: .organizer)
        members = try container.decode([String].self, forKey: .members)
        unshared = try container.decode([String].self, forKey: .unshared)
        consentWithdrawn = try container.decodeIfPresent([ConsentWithdrawal].self, forKey: .consentWithdrawn) ?? []
        if let invitations = try container.decodeIfPresent([Invitation].self, forKey: .invitations) {
            self.invitations = invitations
        } else {
            let undated = try container.decodeIfPresent([String].self, forKey: .invited) ?? []
            invitations = undated.map { Invitation(account: $0, at: .distantPast) }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(organizer, forKey: .organizer)
        try container.encode(members, forKey: .members)
        try container.encode(unshared, forKey: .unshared)
        try container.encode(consentWithdrawn, forKey: .consentWithdrawn)
        try container.encode(invitations, forKey: .invitations)
    }

    /// `account` was invited and has not answered, whatever its case, and whether or not the
    /// invitation expired.
    public func hasInvitation(_ account: String) -> Bool {
        invitations.contains { $0.names(account) }
    }

    /// The family is the account's concern: it organizes it, is a member, or is invited.
    public func concerns(_ account: String) -> Bool { includes(account) || hasInvitation(account) }

    /// Where `account` stands: 2 a member or the organizer, 1 invited, 0 neither.
    fileprivate func standing(of account: String) -> Int {
        includes(account) ? 2 : hasInvitation(account) ? 1 : 0
    }

    /// The withdrawal that keeps `account` out of the app, if the organizer made one.
    public func withdrawal(of account: String) -> ConsentWithdrawal? {
        consentWithdrawn.first { $0.member.lowercased() == account.lowercased() }
    }

    /// The App Store's limit: the organizer and five others.
    public static let maximumMembers = 5

    public func includes(_ account: String) -> Bool {
        organizer.lowercased() == account.lowercased() || hasMember(account)
    }

    /// `account` is one of the members (not the organizer), whatever its case.
    public func hasMember(_ account: String) -> Bool {
        members.contains { $0.lowercased() == account.lowercased() }
    }
}

extension [Family] {
    /// The family `organizer` organizes, whatever the name's case.
    public func organized(by organizer: String) -> Family? {
        first { $0.organizer.lowercased() == organizer.lowercased() }
    }
}

/// The organizer withdrew consent for `member`'s use of the app at `at` (store clock): the App
/// Store tells the developer once (RESCIND_CONSENT), keyed by the withdrawal's own id.
public struct ConsentWithdrawal: Sendable, Equatable, Codable {
    public var member: String
    public var at: Date
    /// Tells this withdrawal from another of the same member at the same moment (a frozen clock).
    public var id: String

    public init(member: String, at: Date, id: String = UUID().uuidString.lowercased()) {
        self.member = member
        self.at = at
        self.id = id
    }

    /// The one notification this withdrawal means.
    public var notification: ServerNotification {
        ServerNotification(key: "rescind-consent:\(id)", account: member, type: "RESCIND_CONSENT", createdAt: at)
    }
}

extension FamilyChange {
    /// W9: whether the accounts `callers` (lowercased) may make this change. The organizer changes
    /// the family, but adds a member only by inviting them: a member joins by accepting from their
    /// own session. Anyone else changes only their own place in it: an invitee accepts or
    /// declines, a member leaves (always their right; a withdrawal of consent for them goes with
    /// them).
    /// An invitation is accepted only while it stands at `moment`, the keeper's clock (W19).
    public func check(by callers: Set<String>, at moment: Date) throws(StoreError) {
        guard expected != new else { return }
        let refused = StoreError.familyRefused(.organizerOnly(organizer: organizer))
        if callers.contains(organizer.lowercased()) {
            let before = Set((expected?.members ?? []).map { $0.lowercased() })
            if let joined = new?.members.first(where: { !before.contains($0.lowercased()) }) {
                throw StoreError.familyRefused(.acceptsOwnInvitation(account: joined))
            }
            return
        }
        guard let was = expected, let now = new, was.organizer == now.organizer, was.unshared == now.unshared,
            now.consentWithdrawn == was.consentWithdrawn.filter({ now.hasMember($0.member) })
        else { throw refused }
        let everyone = Set((was.members + was.invited + now.members + now.invited).map { $0.lowercased() })
        for account in everyone {
            let (before, after) = (was.standing(of: account), now.standing(of: account))
            guard before != after else { continue }
            // Accepting or declining an invitation, or leaving: each only by that account.
            guard callers.contains(account), before > 0, before == 1 || after == 0 else { throw refused }
            if after == 2, was.invitation(of: account)?.stands(at: moment) != true {
                throw StoreError.familyRefused(.invitationExpired(account: account, organizer: was.organizer))
            }
        }
    }
}

/// One family's change, made by the account server as one update (W9): the family `organizer`
/// organizes goes from `expected` (nil: none yet) to `new` (nil: none any more), only if it is still
/// `expected` when the server writes. Nobody reads every family and writes every family back.
public struct FamilyChange: Codable, Sendable, Equatable {
    public var organizer: String
    public var expected: Family?
    public var new: Family?

    public init(organizer: String, expected: Family?, new: Family?) {
        self.organizer = organizer
        self.expected = expected
        self.new = new
    }

    /// The accounts the change makes members that were neither members nor invited before. An
    /// invitation is not among them: it names anyone, account or not (W19).
    public var addedMembers: [String] {
        let before = Set(((expected?.members ?? []) + (expected?.invited ?? [])).map { $0.lowercased() })
        return (new?.members ?? []).filter { !before.contains($0.lowercased()) }
    }

    /// The families after the change, or nil when the family is no longer what the change expected
    /// (another device changed it: read again). An account in two families is refused.
    public func applied(to families: [Family]) throws(StoreError) -> [Family]? {
        let key = organizer.lowercased()
        let index = families.firstIndex { $0.organizer.lowercased() == key }
        guard index.map({ families[$0] }) == expected else { return nil }
        var result = families
        if let new {
            guard new.organizer.lowercased() == key else {
                throw StoreError.familyRefused(.keepsOrganizer(organizer: organizer))
            }
            let others = families.filter { $0.organizer.lowercased() != key }
            for account in [new.organizer] + new.members {
                if let other = others.first(where: { $0.includes(account) }) {
                    throw StoreError.familyRefused(.inFamilyOf(account: account, organizer: other.organizer))
                }
            }
            // Any number of families may invite an account, in a family or not, existing or not
            // (W19): its acceptance decides, and only then must it be in no other family.
            let listed = (new.members + new.invited).map { $0.lowercased() }
            guard Set(listed).count == listed.count, !listed.contains(key) else {
                throw StoreError.familyRefused(.memberTwice)
            }
            guard listed.count <= Family.maximumMembers else {
                throw StoreError.familyRefused(.full(maximum: Family.maximumMembers))
            }
            // Consent is withdrawn only for members, once each.
            let withdrawn = new.consentWithdrawn.map { $0.member.lowercased() }
            if let stranger = new.consentWithdrawn.first(where: { !new.hasMember($0.member) }) {
                throw StoreError.familyRefused(.notAMember(account: stranger.member))
            }
            guard Set(withdrawn).count == withdrawn.count else { throw StoreError.familyRefused(.memberTwice) }
            if let index { result[index] = new } else { result.append(new) }
        } else if let index {
            result.remove(at: index)
        }
        return result
    }
}

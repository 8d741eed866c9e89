// Why a family could not be changed (O5), as data; `description` words it once.
import Foundation

public enum FamilyRefusal: Codable, Equatable, Sendable, CustomStringConvertible {
    /// A change to a family by someone who is not its organizer.
    case organizerOnly(organizer: String)
    case keepsOrganizer(organizer: String)
    case inFamilyOf(account: String, organizer: String)
    /// A change that lists one account twice.
    case memberTwice
    case full(maximum: Int)
    case organizesAlready(account: String)
    case inAFamily(account: String)
    case notAMember(account: String)
    case memberOrOrganizerOnly(member: String, organizer: String)
    case notShareable(productID: String)
    case organizesNone(account: String)
    /// A member whose consent the organizer withdrew: the app stays closed to them while they are
    /// in the family.
    case consentWithdrawn(member: String, organizer: String)
    /// Consent given to a member it was never withdrawn from, or withdrawn twice.
    case consentUnchanged(member: String, withdrawn: Bool)
    /// A member joins by accepting the organizer's invitation from their own session.
    case acceptsOwnInvitation(account: String)
    /// No family invited the account.
    case notInvited(account: String)
    /// The organizer's invitation to the account is past its lifetime.
    case invitationExpired(account: String, organizer: String)
    /// Several families invited the account: it names the one it accepts.
    case invitedBySeveral(account: String, organizers: [String])
    /// Twenty tries, and each found the family changed by someone else.
    case keptChanging

    public var description: String {
        switch self {
        case .organizerOnly(let organizer): "only \(organizer), the organizer, can change that family"
        case .keepsOrganizer(let organizer): "a family keeps its organizer, \(organizer)"
        case .inFamilyOf(let account, let organizer): "\(account) is in \(organizer)'s family already"
        case .memberTwice: "an account is in a family once"
        case .full(let maximum): "a family has the organizer and \(maximum) others at most"
        case .organizesAlready(let account): "\(account) organizes a family already"
        case .inAFamily(let account): "\(account) is in a family already"
        case .notAMember(let account): "\(account) is in no family as a member"
        case .memberOrOrganizerOnly(let member, let organizer):
            "only \(member) or the organizer, \(organizer), can take \(member) out of the family"
        case .notShareable(let id): "\"\(id)\" is not family-shareable (`familyShareable` in the catalog)"
        case .organizesNone(let account): "\(account) organizes no family (`storefront family create` starts one)"
        case .consentWithdrawn(let member, let organizer):
            "\(member)'s parent or guardian, \(organizer), withdrew consent for this app: it stays closed to \(member) until \(organizer) gives it again"
        case .consentUnchanged(let member, let withdrawn):
            withdrawn ? "consent for \(member) is withdrawn already" : "consent for \(member) was not withdrawn"
        case .acceptsOwnInvitation(let account):
            "\(account) joins a family only by accepting its invitation (`storefront family accept`, signed in as \(account))"
        case .notInvited(let account):
            "no family invited \(account) (its organizer runs `storefront family add \(account)`)"
        case .invitationExpired(let account, let organizer):
            "\(organizer)'s invitation to \(account) has expired (after \(Invitation.lifetimeWords)); \(organizer) can invite again"
        case .invitedBySeveral(let account, let organizers):
            "\(organizers.joined(separator: ", ")) each invited \(account): name the family to accept (`storefront family accept ORGANIZER`)"
        case .keptChanging: "the family kept changing on the account server; try again"
        }
    }
}

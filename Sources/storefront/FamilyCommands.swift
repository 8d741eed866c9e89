// `storefront family` (O5): Family Sharing — an organizer, up to five members, and which of the
// organizer's family-shareable purchases are shared.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct FamilyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family",
        abstract:
            "Family Sharing: create a family, invite members (who accept), remove them, share a product or stop sharing it, withdraw or give consent.",
        discussion: """
            Members see the organizer's family-shareable comics and plans as their own FAMILY_SHARED transactions; leaving, or sharing turned off, revokes them (REVOKE). \
            The organizer, as parent or guardian, can withdraw consent for a member's use of the app: the developer hears of it (RESCIND_CONSENT) and the member's screen stays closed until consent is given again.
            """,
        subcommands: [
            Show.self, Invitations.self, Create.self, Add.self, Accept.self, Leave.self, Share.self, Consent.self,
        ],
        defaultSubcommand: Show.self
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The signed-in account's family, or else the oldest invitation it may accept.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in report(try context.store.family.family(), context) }
        }
    }

    struct Invitations: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The invitations the signed-in account may accept, oldest first, and when each expires.",
            discussion:
                "Any number of families may invite an account; it accepts one (`family accept ORGANIZER`), and declines any (`family leave NAME --from ORGANIZER`). An invitation stands for \(Invitation.lifetimeWords)."
        )
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                let user = try context.store.accounts.currentUser() ?? ""
                let standing = try context.store.family.invitations().compactMap { family in
                    family.invitation(of: user).map {
                        InvitationOutput(organizer: family.organizer, expires: context.isoText($0.expires))
                    }
                }
                output(
                    context, json: ["invitations": standing],
                    text: standing.isEmpty
                        ? "no invitation stands"
                        : standing.map { "from \($0.organizer), until \($0.expires)" }.joined(separator: "\n"))
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a family organized by the signed-in account.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in report(try context.store.family.create(), context) }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Invite an account to the organizer's family: once it accepts (`family accept`), it gets the shared purchases."
        )
        @Argument(help: "The account to invite.") var name: String
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in report(try context.store.family.add(name), context) }
        }
    }

    struct Accept: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept the invitation a family sent the signed-in account: it becomes a member.")
        @Argument(help: "The organizer whose invitation to accept, when several families invite the account.")
        var organizer: String?
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in report(try context.store.family.accept(from: organizer), context) }
        }
    }

    struct Leave: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Take a member out of the family, or decline an invitation (the account, or the organizer): what was shared is revoked."
        )
        @Argument(help: "The member.") var name: String
        @Option(help: "The organizer whose invitation to decline; without it, an invitee declines every invitation.")
        var from: String?
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in report(try context.store.family.leave(name, from: from), context) }
        }
    }

    struct Share: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn Share with Family on or off for a family-shareable product (the organizer).")
        @Argument(help: "The product: its id or its title.") var product: String
        @Argument(help: "Share with Family, turned on or off.") var state: SharingWord
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                report(try context.store.family.share(try context.productID(product), on: state == .on), context)
            }
        }
    }

    struct Consent: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Withdraw or give again consent for a member's use of the app (the organizer, as parent or guardian).",
            discussion:
                "withdraw sends the developer RESCIND_CONSENT with the member's signed app transaction, and closes the app to the member; give opens it again and sends nothing."
        )
        @Argument(help: "The member.") var name: String
        @Argument(help: "Consent withdrawn, or given again.") var state: ConsentWord
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                report(try context.store.family.setConsent(name, withdrawn: state == .withdraw), context)
            }
        }
    }
}

private struct InvitationOutput: Encodable {
    var organizer, expires: String
}

private struct FamilyOutput: Encodable {
    var organizer: String
    var members, unshared, consentWithdrawn, invited: [String]
}

private func report(_ family: Family?, _ context: Context) {
    guard let family else {
        output(context, json: JSON.null, text: "in no family (`storefront family create` starts one)")
        return
    }
    output(
        context,
        json: FamilyOutput(
            organizer: family.organizer, members: family.members, unshared: family.unshared,
            consentWithdrawn: family.consentWithdrawn.map(\.member), invited: family.invited),
        text:
            "organizer \(family.organizer); members: \(family.members.isEmpty ? "none" : family.members.joined(separator: ", "))"
            + (family.unshared.isEmpty ? "" : "; not shared: \(family.unshared.joined(separator: ", "))")
            + (family.consentWithdrawn.isEmpty
                ? "" : "; consent withdrawn: \(family.consentWithdrawn.map(\.member).joined(separator: ", "))")
            + (family.invited.isEmpty ? "" : "; invited: \(family.invited.joined(separator: ", "))")
    )
}

/// Read as a scenario reads them: in any case; another word is a usage error naming the two.
extension SharingWord: ExpressibleByArgument {
    public init?(argument: String) { self.init(word: argument) }
}

extension ConsentWord: ExpressibleByArgument {
    public init?(argument: String) { self.init(word: argument) }
}

// `storefront account`: sign up, sign in and out, who is signed in (with the failed sign-ins a
// team's server counted since the last one), the sessions a team's server keeps for the account's
// devices, and the developer's unlock (A1, A7, W2, W17).
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import TerminalUI

struct Account: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign up, sign in, sign out and say who is signed in (A1).",
        subcommands: [Signup.self, Login.self, Logout.self, Whoami.self, Sessions.self, Unlock.self],
        defaultSubcommand: Whoami.self
    )

    /// W17: the developer lifts an account's lock on sign-ins from new devices.
    struct Unlock: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Let new devices sign in to an account that failed sign-ins locked (the developer's, on a team server)."
        )
        @Argument(help: "The account name.") var name: String
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                let locked = try context.store.accounts.unlock(name)
                struct Unlocked: Encodable {
                    var account: String
                    var wasLocked: Bool
                }
                output(
                    context, json: Unlocked(account: name, wasLocked: locked),
                    text: locked
                        ? "unlocked \(name): new devices may sign in again"
                        : "\(name) was not locked; its waits are cleared")
            }
        }
    }

    /// W2: the sessions devices hold for the signed-in account on a served account server.
    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The devices signed in to this account through `storefront serve`, and revoking one (a lost or stolen device).",
            subcommands: [List.self, Revoke.self], defaultSubcommand: List.self
        )

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the account's device sessions (id, device, since, revoked).")
            @OptionGroup var common: CommonOptions

            func run() throws {
                try perform(common) { context in
                    let sessions = try context.store.accounts.deviceSessions()
                    struct Listed: Encodable {
                        var id, device: String
                        var since, revoked, expires: String?
                    }
                    let json = sessions.map {
                        Listed(
                            id: $0.id, device: $0.device, since: context.dateText($0.createdAt),
                            revoked: context.dateText($0.revokedAt), expires: context.dateText($0.expiresAt))
                    }
                    let text = sessions.map { session in
                        "\(session.id)  \(session.device)  since \(context.isoText(session.createdAt))"
                            + (session.revokedAt.map { "  revoked \(context.isoText($0))" } ?? "")
                            + (session.expiresAt.map { "  expires \(context.isoText($0))" } ?? "")
                    }.joined(separator: "\n")
                    output(
                        context, json: json,
                        text: sessions.isEmpty
                            ? "no device sessions (devices sign in through `storefront serve`)" : text)
                }
            }
        }

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Revoke a device's session by its id: that device must sign in again.")
            @Argument(help: "The session id (`storefront account sessions`).") var id: String
            @OptionGroup var common: CommonOptions

            func run() throws {
                try perform(common) { context in
                    try context.store.accounts.revokeDeviceSession(id)
                    struct Revoked: Encodable { var revoked: String }
                    output(context, json: Revoked(revoked: id), text: "revoked \(id)")
                }
            }
        }
    }

    private struct SignedIn: Encodable {
        var user: String?
        var failedSignIns: Omitted<FailedSignIns>
    }

    /// Who is signed in; on a team server, the failed sign-ins since the last one (W17):
    /// `told` are those the sign-in just made was told of.
    static func show(_ context: Context, told: FailedSignIns? = nil) throws {
        let user = try context.store.accounts.currentUser()
        // The count is a team server's extra line: a server that does not answer leaves it out,
        // and who is signed in (kept on this device) is said all the same.
        let failed = told ?? (user == nil ? nil : (try? context.store.accounts.failedSignIns()) ?? nil)
        let shown = failed.flatMap { $0.count > 0 ? $0 : nil }
        let line = shown.map {
            "\n\($0.count) failed sign-in(s) since the last one, from \($0.addresses.joined(separator: ", "))"
        }
        output(
            context, json: SignedIn(user: user, failedSignIns: Omitted(shown)),
            text: (user.map { "signed in as \($0)" } ?? "not signed in (guest)") + (line ?? ""))
    }

    struct Signup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account and sign in to it on this device.", aliases: ["sign-up"])
        @Argument(help: "The account name.") var name: String
        @OptionGroup var common: CommonOptions

        func run() throws {
            // Recovery after signing in: a device whose session was revoked can still sign in (W2).
            try perform(common, recover: false) { context in
                try context.store.accounts.signUp(name, password: try Context.readPassword())
                try context.recover()
                try Account.show(context)
            }
        }
    }

    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign in; the device remembers the account.", aliases: ["signin", "sign-in"]
        )
        @Argument(help: "The account name.") var name: String
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common, recover: false) { context in
                try context.store.accounts.signIn(name, password: try Context.readPassword())
                try context.recover()
                try Account.show(context, told: context.store.accounts.failedBefore ?? FailedSignIns())
            }
        }
    }

    struct Logout: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign out; the device continues as a guest.", aliases: ["signout", "sign-out"]
        )
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                try context.store.accounts.signOut()
                try Account.show(context)
            }
        }
    }

    struct Whoami: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Who is signed in on this device.")
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in try Account.show(context) }
        }
    }
}

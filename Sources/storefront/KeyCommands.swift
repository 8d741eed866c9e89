// `storefront keys`, `storefront developer-token` and `storefront shared-secret` (V2, W9, V10): the
// in-app purchase keys the App Store Server API's clients sign their tokens with, the developer's
// token of a team server, and the app's shared secrets verifyReceipt checks.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract:
            "In-app purchase keys (the App Store Server API, promotional offers) and subscription-offer keys: create one (a .p8 private key), list them, revoke one.",
        subcommands: [List.self, Create.self, Revoke.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The keys and the issuer id they share.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                struct Listed: Encodable {
                    struct Key: Encodable {
                        var keyId, type: String
                        var createdAt: String?
                        var revoked: Bool
                    }
                    var issuerId: String
                    var keys: [Key]
                }
                let keyring = try context.store.server.apiKeyring() ?? APIKeyring(issuerID: "", keys: [])
                output(
                    context,
                    json: Listed(
                        issuerId: keyring.issuerID,
                        keys: keyring.keys.map {
                            Listed.Key(
                                keyId: $0.keyID, type: $0.kind.rawValue, createdAt: context.dateText($0.createdAt),
                                revoked: $0.revoked)
                        }),
                    text: keyring.keys.isEmpty
                        ? "no keys (`storefront keys create --out key.p8`)"
                        : "issuer \(keyring.issuerID)\n"
                            + keyring.keys.map {
                                "\($0.keyID)  \($0.kind.rawValue)  \(context.isoText($0.createdAt))\($0.revoked ? "  revoked" : "")"
                            }.joined(separator: "\n")
                )
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key: its private half goes to --out (or standard output), never into the store.")
        @Option(
            help: ArgumentHelp(
                "Write the private key (PEM, as App Store Connect's .p8) here, owner-only.", valueName: "file"))
        var out: String?
        @Option(
            help: ArgumentHelp(
                "in-app-purchase (Server API tokens and promotional offers) or subscription-offer (promotional offers only).",
                valueName: "type"))
        var type: APIKey.KeyType = .inAppPurchase
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                var keyring = try context.store.server.apiKeyring() ?? APIKeyring()
                let (pem, key) = APIKeyring.makeKey(now: Date(), type: type)
                if let out {
                    guard
                        FileManager.default.createFile(
                            atPath: out, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600])
                    else {
                        throw CommandFailure(message: "\(out): cannot be written", status: 3)
                    }
                }
                keyring.keys.append(key)
                try context.store.server.setAPIKeyring(keyring)
                struct Made: Encodable {
                    var keyId, type, issuerId, bundleId: String
                    /// Only when it went to standard output.
                    var privateKey, file: String?
                }
                let bundle = try context.store.signed.identity().bundleID
                output(
                    context,
                    json: Made(
                        keyId: key.keyID, type: key.kind.rawValue, issuerId: keyring.issuerID, bundleId: bundle,
                        privateKey: out == nil ? pem : nil, file: out),
                    text: (out == nil ? pem : "wrote \(out!)\n")
                        + "key id \(key.keyID) (\(key.kind.rawValue))\nissuer id \(keyring.issuerID)\nbundle id \(bundle)"
                )
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key: tokens it signs are refused from now on.")
        @Argument(help: "The key id.") var keyID: String
        @OptionGroup var common: CommonOptions
        func run() throws {
            struct Revoked: Encodable {
                var keyId: String
                var revoked: Bool
            }
            try perform(common) { context in
                guard var keyring = try context.store.server.apiKeyring(),
                    let index = keyring.keys.firstIndex(where: { $0.keyID == keyID })
                else {
                    throw CommandFailure(message: "no key \"\(keyID)\" (`storefront keys` lists them)", status: 2)
                }
                keyring.keys[index].revoked = true
                try context.store.server.setAPIKeyring(keyring)
                output(
                    context, json: Revoked(keyId: keyID, revoked: true),
                    text: "revoked \(keyID)")
            }
        }
    }
}

extension APIKey.KeyType: ExpressibleByArgument {}

/// W9: the developer's token of this state folder, the one `storefront serve` checks; made on
/// first use (owner-only). Run it where the server runs; give the token to the developer's devices.
struct DeveloperTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "developer-token",
        abstract:
            "Print the developer token `storefront serve` accepts from this state folder (made on first use); --rotate replaces it.",
        discussion:
            "A device acts as the developer (clock, billing, errors, webhook, prices, offer codes) when it has STOREFRONT_DEVELOPER_TOKEN or --developer-token-file; without it, only as its own accounts."
    )
    @Flag(help: "Make a new token; the old one stops working at once.") var rotate = false
    @OptionGroup var state: StateFolderOption

    func run() throws {
        try reportingFailures { print(try DeveloperToken.current(in: try state.resolved(), rotate: rotate)) }
    }
}

/// `--state-dir` alone, for the commands run on the server's machine about its own state folder.
struct StateFolderOption: ParsableArguments {
    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "Where state is kept (default: $STOREFRONT_STATE_DIR, else $XDG_STATE_HOME/storefront).", valueName: "dir"))
    var stateDirectory: String?

    /// The state folder `--state-dir` names, else the default one.
    func resolved() throws -> StateDirectory {
        var options = try CommonOptions.parse([])
        options.stateDirectory = stateDirectory
        return StateDirectory(try Context.resolveStateDirectory(options))
    }
}

/// V10: the app's shared secret, which a backend sends to verifyReceipt as `password` with a
/// receipt that holds auto-renewable subscriptions; made on first use (owner-only). Run it where
/// the server runs, as App Store Connect shows it to the developer.
struct SharedSecretCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-secret",
        abstract: "Print the app's shared secret for verifyReceipt (made on first use); --rotate replaces it.",
        discussion:
            "As in App Store Connect, the app-specific secret and the primary one (--primary) both work; a rotated one stops working at once."
    )
    @Flag(help: "The primary shared secret, which works for every app, instead of the app-specific one.") var primary =
        false
    @Flag(help: "Make a new secret; the old one stops working at once.") var rotate = false
    @OptionGroup var state: StateFolderOption

    func run() throws {
        try reportingFailures {
            let kind: SharedSecret = primary ? .primary : .appSpecific
            print(try kind.current(in: try state.resolved(), rotate: rotate))
        }
    }
}

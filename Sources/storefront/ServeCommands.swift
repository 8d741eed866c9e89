// `storefront serve` and `storefront keys` (V1, V2): the App Store Server API over this state
// folder, and the in-app purchase keys its clients sign their tokens with.
import ArgumentParser
import Foundation
import StoreCore
#if canImport(Glibc)
import Glibc
#endif

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "In-app purchase keys (the App Store Server API, promotional offers) and subscription-offer keys: create one (a .p8 private key), list them, revoke one.",
        subcommands: [List.self, Create.self, Revoke.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The keys and the issuer id they share.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                let keyring = try context.store.server.apiKeyring() ?? APIKeyring(issuerID: "", keys: [])
                output(
                    context,
                    json: .object([
                        ("issuerId", .string(keyring.issuerID)),
                        ("keys", .array(keyring.keys.map { key in
                            .object([
                                ("keyId", .string(key.keyID)), ("type", .string(key.kind.rawValue)), ("createdAt", context.formatDate(key.createdAt)),
                                ("revoked", .bool(key.revoked)),
                            ])
                        })),
                    ]),
                    text: keyring.keys.isEmpty ? "no keys (`storefront keys create --out key.p8`)"
                        : "issuer \(keyring.issuerID)\n" + keyring.keys.map { "\($0.keyID)  \($0.kind.rawValue)  \(context.isoText($0.createdAt))\($0.revoked ? "  revoked" : "")" }.joined(separator: "\n")
                )
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a key: its private half goes to --out (or standard output), never into the store.")
        @Option(help: ArgumentHelp("Write the private key (PEM, as App Store Connect's .p8) here, owner-only.", valueName: "file")) var out: String?
        @Option(help: ArgumentHelp("in-app-purchase (Server API tokens and promotional offers) or subscription-offer (promotional offers only).", valueName: "type"))
        var type: APIKey.KeyType = .inAppPurchase
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                var keyring = try context.store.server.apiKeyring() ?? APIKeyring()
                let (pem, key) = APIKeyring.makeKey(now: Date(), type: type)
                if let out {
                    guard FileManager.default.createFile(atPath: out, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600]) else {
                        throw CommandFailure(message: "\(out): cannot be written", status: 3)
                    }
                }
                keyring.keys.append(key)
                try context.store.server.setAPIKeyring(keyring)
                let bundle = try context.store.signed.identity().bundleID
                output(
                    context,
                    json: .object([
                        ("keyId", .string(key.keyID)), ("type", .string(key.kind.rawValue)), ("issuerId", .string(keyring.issuerID)), ("bundleId", .string(bundle)),
                        ("privateKey", out == nil ? .string(pem) : .null), ("file", .optional(out)),
                    ]),
                    text: (out == nil ? pem : "wrote \(out!)\n") + "key id \(key.keyID) (\(key.kind.rawValue))\nissuer id \(keyring.issuerID)\nbundle id \(bundle)"
                )
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key: tokens it signs are refused from now on.")
        @Argument(help: "The key id.") var keyID: String
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                guard var keyring = try context.store.server.apiKeyring(), let index = keyring.keys.firstIndex(where: { $0.keyID == keyID }) else {
                    throw CommandFailure(message: "no key \"\(keyID)\" (`storefront keys` lists them)", status: 2)
                }
                keyring.keys[index].revoked = true
                try context.store.server.setAPIKeyring(keyring)
                output(context, json: .object([("keyId", .string(keyID)), ("revoked", .bool(true))]), text: "revoked \(keyID)")
            }
        }
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the App Store Server API over this state folder (V1): Apple's paths, tokens, JSON and errors.",
        discussion: "Prints the address it listens on (--port 0 picks a free one); stops cleanly on SIGINT and SIGTERM; delivers notifications while it runs. Runs the storefront-server program installed beside this one."
    )
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0: a free one, printed).") var port = 8080
    @Option(help: ArgumentHelp("Keep the account server's state in PostgreSQL (default: $STOREFRONT_DATABASE_URL, else SQLite in the state folder). A URL with a password is best given in $STOREFRONT_DATABASE_URL: options show in the process list.", valueName: "postgres://user@host/db"))
    var database: String?
    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "chain.pem"))
    var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "key.pem"))
    var tlsKey: String?
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Close a connection idle this many seconds (or whose request head never completes).", valueName: "seconds"))
    var idleTimeout: Double = 30
    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections open at once, at most (default: below the file limit); beyond it the longest-idle one is closed.", valueName: "n"))
    var maxConnections: Int?
    @OptionGroup var common: CommonOptions

    func run() throws {
        try reportingFailures {
            guard idleTimeout > 0 else { throw CommandFailure(message: "--idle-timeout takes a number of seconds above 0", status: 2) }
            if let maxConnections, maxConnections < 1 { throw CommandFailure(message: "--max-connections takes a number above 0", status: 2) }
            guard (0...65_535).contains(port) else { throw CommandFailure(message: "--port takes 0 to 65535", status: 2) }
            guard (tlsCertificate == nil) == (tlsKey == nil) else { throw CommandFailure(message: "--tls-cert and --tls-key go together", status: 2) }
            let catalog = try Context.catalogFile(common)
            let state = try Context.resolveStateDirectory(common)
            // https:// webhooks: the server trusts the same CA file (in its environment).
            try Context.applyCAFile(common)
            // Open the store once here: a corrupt or missing state is said before anything listens
            // (the server program checks a PostgreSQL database itself).
            let database = DatabaseURL.given(self.database)
            if database == nil { try perform(common) { _ in } }
            let beside = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("storefront-server")
            guard let server = beside, FileManager.default.isExecutableFile(atPath: server.path) else {
                throw CommandFailure(message: "storefront-server is not installed beside this program (`swift build` makes it)", status: 3)
            }
            // The database URL goes in the environment, never in the arguments: a password in it
            // would show in `ps` for as long as the server runs.
            if let database { setenv(DatabaseURL.variable, database, 1) }
            var arguments = [server.path, "--state-dir", state.path, "--catalog", catalog.path, "--host", host, "--port", String(port)]
            if let tlsCertificate, let tlsKey { arguments += ["--tls-cert", tlsCertificate, "--tls-key", tlsKey] }
            arguments += ["--idle-timeout", String(idleTimeout)]
            if let maxConnections { arguments += ["--max-connections", String(maxConnections)] }
            var argv = arguments.map { strdup($0) } + [nil]
            execv(server.path, &argv)
            throw CommandFailure(message: "cannot start \(server.path): \(String(cString: strerror(errno)))", status: 3)
        }
    }
}

extension APIKey.KeyType: ExpressibleByArgument {}

/// W9: the developer's token of this state folder, the one `storefront serve` checks; made on
/// first use (owner-only). Run it where the server runs; give the token to the developer's devices.
struct DeveloperTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "developer-token",
        abstract: "Print the developer token `storefront serve` accepts from this state folder (made on first use); --rotate replaces it.",
        discussion: "A device acts as the developer (clock, billing, errors, webhook, prices, offer codes) when it has STOREFRONT_DEVELOPER_TOKEN or --developer-token-file; without it, only as its own accounts."
    )
    @Flag(help: "Make a new token; the old one stops working at once.") var rotate = false
    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Where state is kept (default: $STOREFRONT_STATE_DIR, else $XDG_STATE_HOME/storefront).", valueName: "dir"))
    var stateDirectory: String?

    func run() throws {
        try reportingFailures {
            var options = try CommonOptions.parse([])
            options.stateDirectory = stateDirectory
            let state = StateDirectory(try Context.resolveStateDirectory(options))
            print(try DeveloperToken.current(in: state, rotate: rotate))
        }
    }
}

// Signed data on the command line (S1–S5): the root a backend trusts, the app identity signed data
// carries, and one transaction beside its JWS.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

/// Foundation JSON (a decoded payload) as the command line's JSON, keys in order.
func foundationJSON(_ value: Any) -> JSON {
    switch value {
    case let object as [String: Any]: return .object(object.keys.sorted().map { ($0, foundationJSON(object[$0]!)) })
    case let array as [Any]: return .array(array.map(foundationJSON))
    case let text as String: return .string(text)
    case let flag as Bool where CompactJSON.isBoolean(value): return .bool(flag)
    case let number as NSNumber: return .int(number.intValue)
    case let integer as Int: return .int(integer)
    case let integer as Int64: return .int(Int(integer))
    default: return .null
    }
}

struct CertificateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certificate",
        abstract:
            "The root certificate a backend trusts to verify Storefront's signed data (S1): the state folder's, or on a team the server's.",
        discussion: """
            With no option, prints it as PEM. The authority (root, intermediate, leaf) is made on first use in STATE/ca, owner-only. \
            On a team (--server), the server signs what a signed-in device shows, so its root is printed: the one root that \
            verifies what the team signs. --own prints this state folder's, which verifies only a guest's purchases there.
            """
    )
    @Option(
        help: ArgumentHelp(
            "Write the root in DER (what Apple's libraries take as root_certificates).", valueName: "file")) var der:
        String?
    @Option(help: ArgumentHelp("Write the root in PEM.", valueName: "file")) var pem: String?
    @Flag(help: "This state folder's own root, even on a team.") var own = false
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let root = try context.store.signed.rootCertificate(own: own)
            let rootPEM = CertificateAuthority.pem(der: root)
            for (path, data) in [(der, root), (pem, Data(rootPEM.utf8))] {
                guard let path else { continue }
                guard FileManager.default.createFile(atPath: path, contents: data) else {
                    throw CommandFailure(message: "\(path): cannot be written", status: 3)
                }
            }
            guard der == nil, pem == nil else { return }
            struct Root: Encodable { var pem, der: String }
            output(
                context, json: Root(pem: rootPEM, der: root.base64EncodedString()),
                text: rootPEM.trimmingCharacters(in: .newlines))
        }
    }
}

struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract:
            "The app signed data names: bundle id, App Apple ID and environment (S4); `app set` changes them; `app receipt` is the app receipt.",
        subcommands: [Show.self, Set.self, Receipt.self],
        defaultSubcommand: Show.self
    )

    private struct Shown: Encodable {
        var bundleId: String
        var appAppleId: Int?
        var environment, signedAppTransaction: String
    }

    static func show(_ context: Context) throws {
        let identity = try context.store.signed.identity()
        let appTransaction = try context.store.signed.appTransaction()
        output(
            context,
            json: Shown(
                bundleId: identity.bundleID, appAppleId: identity.appAppleID.map { Int($0) },
                environment: identity.environment.rawValue, signedAppTransaction: appTransaction.jws),
            text:
                "\(identity.bundleID) · \(identity.appAppleID.map { "App Apple ID \($0)" } ?? "no App Apple ID") · \(identity.environment.rawValue)"
        )
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The app identity, and (with --json) this device's signed app transaction.")
        @OptionGroup var common: CommonOptions
        func run() throws { try perform(common) { try AppCommand.show($0) } }
    }

    struct Receipt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The app receipt (StoreKit 1's appStoreReceiptURL): PKCS #7, signed with the store's chain, one in-app receipt per purchase of the account.",
            discussion: """
                Printed in base64 (--base64 says so outright), as an app sends it to its server; --out writes the DER file; --post \
                uploads it as an app uploads it to its backend (RW Selfies' SelfieService), as {"receipt-data": …}, and prints the \
                answer. `storefront certificate` is the root that verifies it; `storefront serve` validates it at /verifyReceipt.
                """
        )
        @Option(help: ArgumentHelp("Write the receipt (DER) to this file.", valueName: "file")) var out: String?
        @Flag(help: "Print the receipt in base64, whatever else is asked.") var base64 = false
        @Option(
            help: ArgumentHelp(
                "POST the receipt as JSON {\"receipt-data\": base64} to this http(s) URL and print the answer.",
                valueName: "url"))
        var post: String?
        @OptionGroup var common: CommonOptions

        func run() throws { try Self.emit(common, out: out, base64: base64, post: post) }

        /// Writes, prints or posts the signed-in account's app receipt.
        static func emit(_ common: CommonOptions, out: String? = nil, base64: Bool, post: String?) throws {
            try perform(common) { context in
                struct Written: Encodable { var appReceipt: String }
                let receipt = try context.store.signed.appReceipt()
                let text = receipt.base64EncodedString()
                if let out {
                    guard FileManager.default.createFile(atPath: out, contents: receipt) else {
                        throw CommandFailure(message: "\(out): cannot be written", status: 3)
                    }
                }
                if let post {
                    try Self.upload(text, to: post)
                } else if base64 {
                    print(text)
                } else {
                    output(
                        context, json: Written(appReceipt: text), text: out.map { "wrote \($0)" } ?? text
                    )
                }
            }
        }

        /// Posts the receipt and prints the answer; an answer other than 2xx is a failure.
        static func upload(_ receipt: String, to address: String) throws {
            guard let url = URL(string: address), HTTPCall.supports(url) else {
                throw CommandFailure(message: "--post \"\(address)\" is not an http:// or https:// URL", status: 2)
            }
            let body = try JSONSerialization.data(withJSONObject: ["receipt-data": receipt])
            switch HTTPCall.post(url, headers: [:], body: body, timeout: 30) {
            case .failure(let problem):
                throw CommandFailure(message: "\(address): \(problem)", status: 3)
            case .success(let answer):
                print(String(decoding: answer.body, as: UTF8.self))
                guard (200..<300).contains(answer.status) else {
                    throw CommandFailure(message: "\(address) answered HTTP \(answer.status)", status: 1)
                }
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change what signed data names; what is not given stays.")
        @Option(name: .customLong("bundle-id"), help: "The bundle id, such as com.example.comics.") var bundleID:
            String?
        @Option(name: .customLong("app-apple-id"), help: "Apple's numeric id of the app (Production data needs one).")
        var appAppleID: String?
        @Option(help: "Sandbox, Production, Xcode or LocalTesting.") var environment: String?
        @OptionGroup var common: CommonOptions

        func run() throws {
            try reportingFailures {
                if let bundleID, !AppIdentity.isValid(bundleID: bundleID) {
                    throw CommandFailure(
                        message: "--bundle-id \"\(bundleID)\" is not a bundle id (letters, digits, hyphens and dots)",
                        status: 2)
                }
                let appleID = try appAppleID.map { text in
                    guard let number = Int64(text), number > 0 else {
                        throw CommandFailure(message: "--app-apple-id \"\(text)\" is not a positive number", status: 2)
                    }
                    return number
                }
                let environment = try self.environment.map { text in
                    guard let environment = AppIdentity.Environment(argument: text) else {
                        throw CommandFailure(
                            message: "--environment \"\(text)\" is not one of Sandbox, Production, Xcode, LocalTesting",
                            status: 2)
                    }
                    return environment
                }
                try perform(common) { context in
                    var identity = try context.store.signed.identity()
                    if let bundleID { identity.bundleID = bundleID }
                    if let appleID { identity.appAppleID = appleID }
                    if let environment { identity.environment = environment }
                    try context.store.signed.setIdentity(identity)
                    try AppCommand.show(context)
                }
            }
        }
    }
}

struct TransactionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transaction",
        abstract: "One transaction of this device: its states, its signed form (JWS) and that form decoded (S2)."
    )
    @Argument(help: "The transaction id, or a unique prefix of 4+ characters.") var id: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let transaction = try context.store.queue.transaction(id)
            let signed = try context.store.signed.transaction(transaction)
            /// The transaction, and its signed form's header and payload decoded.
            struct Shown: Encodable {
                var transaction: TransactionOutput
                var header, payload: Omitted<JSON>
            }
            let decoded = signed.flatMap { try? JWS.decode($0.jws) }
            let json = Shown(
                transaction: TransactionOutput(transaction, signed: signed, in: context),
                header: Omitted(decoded.map { foundationJSON($0.header) }),
                payload: Omitted(decoded.map { foundationJSON($0.payload) }))
            var text = context.line(transaction)
            if let signed {
                text += "\n\nsigned transaction (JWS, ES256, x5c leaf-intermediate-root):\n\(signed.jws)\n\ndecoded:\n"
                text += foundationJSON(signed.payload).rendered()
                if let unverified = signed.unverified { text += "\n\nunverified on purpose: \(unverified.reason)" }
            } else {
                text += "\n\n(not signed: only purchased and restored transactions are)"
            }
            output(context, json: json, text: text)
        }
    }
}

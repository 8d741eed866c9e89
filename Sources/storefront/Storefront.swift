// The `storefront` executable: with no subcommand the screen (L1), else headless subcommands.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

#if canImport(Glibc)
    import Glibc
#endif

@main
struct Storefront: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storefront",
        abstract: "A terminal storefront with a mock payment queue: browse, buy, and test purchase edge cases.",
        discussion: """
            Exit status: 0 done (a deferred purchase included); 1 the request could not be done (a purchase \
            failed or was declined, no random views left, sign-in needed); 2 bad input (unknown product or \
            transaction, malformed duration or outcome, bad catalog, wrong password); 3 storage trouble \
            (corrupt or unwritable database).
            """,
        version: "storefront \(version) (commit \(buildCommit))",
        subcommands: [
            Screen.self, Products.self, Account.self, Buy.self, Pending.self, Approve.self, Decline.self,
            Resolve.self, Restore.self, Status.self, Random.self, History.self, Receipt.self, ClockCommand.self,
            Policy.self, ResetDevice.self, CatalogCommand.self, ShowImage.self, ScenarioCommand.self,
            Subscriptions.self, Cancel.self, RenewOn.self, Refund.self, Expire.self, ForceRenew.self, Billing.self,
            Grace.self, ErrorsCommand.self, CertificateCommand.self, AppCommand.self, TransactionCommand.self,
            WebhookCommand.self, NotificationsCommand.self, KeysCommand.self, DeveloperTokenCommand.self,
            SharedSecretCommand.self, Serve.self, CrashPoints.self, OfferCodes.self, Redeem.self, PriceCommand.self,
            RefundRequestCommand.self, FamilyCommand.self, MessagesCommand.self, StorefrontCommand.self,
            OfferPolicyCommand.self, PlayCommand.self,
        ],
        defaultSubcommand: Screen.self
    )

    /// This release's number; the commit comes from the VersionStamp plugin.
    static let version = "0.22.0"

    /// Parses, then runs. Every usage error is one line and exit status 2 (the parser's own is 64
    /// with the usage text), and a word that names no subcommand says so instead of being read as
    /// an argument of the screen.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, !first.hasPrefix("-"), !isSubcommandName(first) {
            printError(
                "storefront: unknown subcommand \"\(first)\"\(didYouMean(first, among: configuration.subcommands)) (`storefront --help` lists them)"
            )
            Glibc.exit(2)
        }
        let command: ParsableCommand
        do {
            command = startsTheScreen(arguments) ? try Screen.parseAsRoot(arguments) : try parseAsRoot(arguments)
        } catch {
            exitWithParseError(error, arguments: arguments)
        }
        do {
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// No subcommand and no request for help: the screen, parsed on its own. Building the whole
    /// command tree costs milliseconds of dynamic casts that the screen's first frame need not wait for.
    static func startsTheScreen(_ arguments: [String]) -> Bool {
        let rootOnly = ["-h", "--help", "help", "--version", "--experimental-dump-help"]
        return (arguments.first.map { $0.hasPrefix("-") } ?? true)
            && !arguments.contains { rootOnly.contains($0) || $0.hasPrefix("--generate-completion-script") }
    }

    static func isSubcommandName(_ word: String) -> Bool {
        word == "help" || configuration.subcommands.contains { $0.isNamed(word) }
    }

    /// Help and version requests print as the parser prints them (exit 0); anything else is a usage
    /// error: its message on one line, exit 2.
    static func exitWithParseError(_ error: Error, arguments: [String]) -> Never {
        let parser: ParsableCommand.Type = startsTheScreen(arguments) ? Screen.self : Storefront.self
        let code = parser.exitCode(for: error)
        guard code != .success else { parser.exit(withError: error) }
        let lines = parser.message(for: error).split(separator: "\n").map(String.init)
        var message = lines.first ?? "bad arguments"
        // The parser lists an option's values a line each, under a line that ends in a colon.
        if message.hasSuffix(":") {
            message +=
                " "
                + lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces).trimmingPrefix("- ") }.joined(
                    separator: ", ")
        }
        // A mistyped word after a command that has subcommands: `storefront clock advnce 1d`.
        let path = commandPath(arguments)
        if arguments.count >= path.count, case let word = arguments[path.count - 1], !word.hasPrefix("-"),
            let parent = command(at: path), !parent.configuration.subcommands.isEmpty
        {
            let hint = didYouMean(word, among: parent.configuration.subcommands)
            // With no near name, the ones there are, where the parser took the word for a stray
            // argument (`storefront scenario run x`), not where it is the default's own (`refund ID`).
            let names = parent.configuration.subcommands.map { $0._commandName }.joined(separator: ", ")
            let stray = message.lowercased().contains("unexpected argument") && message.contains("'\(word)'")
            if !hint.isEmpty || stray {
                message =
                    "unknown subcommand \"\(word)\" of `\(path.joined(separator: " "))`"
                    + (hint.isEmpty ? " (it has \(names))" : hint)
            }
        }
        printError("storefront: \(message) (`\(path.joined(separator: " ")) --help` shows the usage)")
        Glibc.exit(2)
    }

    /// ` (did you mean "products"?)` when one subcommand's name is a typo's worth from `word`
    /// (at most 2 edits, or its start), else nothing.
    static func didYouMean(_ word: String, among commands: [ParsableCommand.Type]) -> String {
        let names = commands.flatMap { [$0._commandName] + $0.configuration.aliases }
        let scored = names.map { ($0, editDistance($0, word.lowercased())) }.sorted { $0.1 < $1.1 }
        if let best = scored.first, best.1 <= min(2, max(1, word.count / 3)) { return " (did you mean \"\(best.0)\"?)" }
        if word.count >= 3, let started = names.first(where: { $0.hasPrefix(word.lowercased()) }) {
            return " (did you mean \"\(started)\"?)"
        }
        return ""
    }

    /// The command the subcommand path names: ["storefront", "clock"] is ClockCommand.
    static func command(at path: [String]) -> ParsableCommand.Type? {
        var found: ParsableCommand.Type = Storefront.self
        for word in path.dropFirst() {
            guard let next = found.configuration.subcommands.first(where: { $0.isNamed(word) }) else { return nil }
            found = next
        }
        return found
    }

    /// The subcommand names the arguments start with: ["storefront", "clock", "advance"].
    static func commandPath(_ arguments: [String]) -> [String] {
        var path = ["storefront"]
        var level: [ParsableCommand.Type] = configuration.subcommands
        for word in arguments {
            guard let command = level.first(where: { $0.isNamed(word) }) else { break }
            path.append(command._commandName)
            level = command.configuration.subcommands
        }
        return path
    }
}

/// Runs a subcommand body against the store, reporting errors as `reportingFailures` does.
func perform(_ options: CommonOptions, recover: Bool = true, _ body: (Context) throws -> Void) throws {
    try reportingFailures {
        let context = try Context.open(options, recover: recover)
        try body(context)
        // N3: notifications the command caused go out after it is done; a receiver that is down,
        // slow or broken never fails the command (N5).
        _ = try? context.store.notifications.deliverDue()
    }
}

/// Turns every error into one line on standard error and its exit status.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as CommandFailure {
        printError("storefront: \(failure.message)")
        throw ExitCode(failure.status)
    } catch let error as StoreError {
        printError("storefront: \(error.description)")
        throw ExitCode(error.exitStatus)
    } catch let error as CatalogError {
        printError("storefront: \(error.description)")
        throw ExitCode(2)
    }
}

/// Prints `value` as JSON (`--json`, through the one `OutputEncoder`), or `text`.
func output<Value: Encodable>(_ context: Context, json value: @autoclosure () -> Value, text: @autoclosure () -> String)
{
    print(context.json ? OutputEncoder.encode(value()).rendered() : text())
}

extension Context {
    /// M3: the order id on the customer's receipt (Look Up Order ID finds the purchase by it); a
    /// restore or a comic the account already owned belongs to the order of the purchase itself.
    func orderID(_ transaction: StoreTransaction) -> String? {
        guard transaction.user != nil, transaction.state.deliversContent else { return nil }
        let ordered =
            transaction.state == .restored || transaction.kind == .nonConsumable
            ? transaction.originalID ?? transaction.id : transaction.id
        return SignedUnits.orderID(ordered)
    }

    func line(_ transaction: StoreTransaction, revokedAt: Date? = nil) -> String {
        let title = store.catalog.product(transaction.productID)?.title ?? transaction.productID
        var text = "\(transaction.id)  \(title)  \(transaction.states.map(\.rawValue).joined(separator: " → "))"
        if let revokedAt { text += " → revoked \(isoText(revokedAt))" }
        if let reason = transaction.reason { text += " (\(Wording.reason(reason)))" }
        if transaction.isRenewal { text += " (renewal)" }
        if let offer = transaction.offer { text += " (\(offer.type.name) \(offer.id))" }
        if let error = transaction.verificationError {
            // S5: unverified, and why, in Apple's name and in words.
            let name = error.split(separator: ".").last.map(String.init) ?? error
            text += " (unverified: \(name)\(Unverified(verificationError: error).map { " — \($0.reason)" } ?? ""))"
        }
        if let due = transaction.dueAt, transaction.state == .purchasing {
            text += " (\(Wording.due(approves: transaction.dueApproves == true, at: isoText(due))))"
        }
        return text
    }

    /// Prints a transaction the way `buy`, `approve`, `decline` and `resolve` do; a failed one
    /// also gets a line on standard error and exit status 1.
    func report(_ transaction: StoreTransaction) throws {
        // With its signed form, as `history` and `transaction` show it: an introductory offer is
        // only there (offerType 1), the transaction itself names no offer.
        let signed = self.json ? try store.signed.transaction(transaction) : nil
        output(
            self, json: TransactionOutput(transaction, signed: signed, in: self),
            text: line(transaction))
        if transaction.state == .failed {
            throw CommandFailure(
                message: Wording.purchaseFailed(transaction.productID, reason: transaction.reason), status: 1)
        }
    }
}

extension ParsableCommand {
    /// `word` is this command's name or one of its aliases (`storefront account signin`).
    static func isNamed(_ word: String) -> Bool { _commandName == word || configuration.aliases.contains(word) }
}

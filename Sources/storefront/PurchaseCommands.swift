// Subcommands that buy and settle purchases (Q1–Q4, A5): buy with its offers, the purchases
// waiting, the answers to them, and restore.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import TerminalUI

struct Buy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Buy a product; the queue runs until the transaction settles or waits.",
        discussion: "The outcome comes from --outcome, else the device's policy (`storefront policy`)."
    )
    @Argument(help: "The product: its id or its title (`storefront products` lists them).") var product: String
    @Option(
        name: .customLong("app-account-token"),
        help: ArgumentHelp(
            "The app's UUID for this customer, carried in the signed transaction (appAccountToken).", valueName: "uuid")
    )
    var appAccountToken: String?
    @Option(
        name: .customLong("billing"),
        help: ArgumentHelp(
            "How a one-year plan is paid: upfront, or monthly with a 12-month commitment (billingPlanType).",
            valueName: "upfront|monthly")
    )
    var billing: String?
    @OptionGroup var offer: OfferOptions
    @Option(
        name: .customLong("intro-offer-jws"),
        help: ArgumentHelp(
            "The developer's signed word on the introductory offer (introductoryOfferEligibility): a compact JWS whose allowIntroductoryOffer gives it or withholds it.",
            valueName: "jws"
        )
    )
    var introOfferJWS: String?
    @OptionGroup var common: CommonOptions

    func validate() throws {
        try offer.validate()
        if introOfferJWS != nil, offer.offerID != nil || offer.winBack != nil {
            throw ValidationError(
                "--intro-offer-jws is for a purchase on no other offer: give it without --offer and --win-back")
        }
        if let appAccountToken, UUID(uuidString: appAccountToken) == nil {
            throw ValidationError("--app-account-token takes a UUID, not \"\(appAccountToken)\"")
        }
        if let billing, !["upfront", "monthly"].contains(billing) {
            throw ValidationError("--billing is upfront or monthly, not \"\(billing)\"")
        }
    }

    func run() throws {
        try perform(common) { context in
            let product = try context.productID(product)
            let request = try offer.request(product: product, store: context.store)
            let token = appAccountToken.flatMap(UUID.init(uuidString:))
            let plan: BillingPlan? = billing == "monthly" ? .monthly : billing == "upfront" ? .billedUpfront : nil
            try context.report(
                try context.store.queue.buy(
                    product, offer: request, winBackOffer: offer.winBack, appAccountToken: token, billingPlan: plan,
                    introductoryOfferEligibility: introOfferJWS
                ))
        }
    }
}

/// A promotional offer on `buy` (O2): its id and a signature in either of Apple's forms, or a
/// subscription-offer private key to sign with here (for demos).
struct OfferOptions: ParsableArguments {
    @Option(name: .customLong("offer"), help: ArgumentHelp("Buy with this promotional offer.", valueName: "offer-id"))
    var offerID: String?
    @Option(
        name: .customLong("offer-key-id"), help: ArgumentHelp("The original signature's key id.", valueName: "key-id"))
    var keyID: String?
    @Option(name: .customLong("offer-nonce"), help: ArgumentHelp("The original signature's nonce.", valueName: "uuid"))
    var nonce: String?
    @Option(
        name: .customLong("offer-timestamp"),
        help: ArgumentHelp("The original signature's timestamp, in milliseconds since 1970.", valueName: "ms"))
    var timestamp: Int64?
    @Option(
        name: .customLong("offer-signature"),
        help: ArgumentHelp("The original signature (base64 DER ECDSA).", valueName: "base64")) var signature: String?
    @Option(
        name: .customLong("application-username"),
        help: ArgumentHelp("The original signature's application username.", valueName: "name"))
    var applicationUsername = ""
    @Option(
        name: .customLong("offer-jws"),
        help: ArgumentHelp("A promotional offer V2 signature (a compact JWS).", valueName: "jws")) var jws: String?
    @Option(
        name: .customLong("offer-key"),
        help: ArgumentHelp(
            "Sign here with this subscription-offer private key (PEM; with --offer-key-id).", valueName: "file"))
    var keyFile: String?
    @Option(
        name: .customLong("win-back"),
        help: ArgumentHelp(
            "Buy with this win-back offer (a lapsed subscriber who qualifies; no signature).", valueName: "offer-id"))
    var winBack: String?

    func validate() throws {
        let given =
            [keyID, nonce, timestamp.map(String.init), signature, jws, keyFile].contains { $0 != nil }
            || !applicationUsername.isEmpty
        if offerID == nil, given { throw ValidationError("the signature options go with --offer OFFER_ID") }
        if winBack != nil, offerID != nil { throw ValidationError("give --offer or --win-back, not both") }
        if jws != nil, signature != nil || keyFile != nil {
            throw ValidationError("give --offer-jws or --offer-signature (or --offer-key), not both")
        }
        if keyFile != nil, signature != nil { throw ValidationError("give --offer-key or --offer-signature, not both") }
    }

    /// The purchase option, or nil without --offer. Parameters left out reach the store empty, so
    /// that it answers as StoreKit does (missingOfferParameters).
    func request(product: String, store: Store) throws -> PromotionalOfferRequest? {
        guard let offerID else { return nil }
        if let jws { return PromotionalOfferRequest(offerID: offerID, signature: .jws(jws)) }
        if let keyFile {
            guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                throw CommandFailure(message: "\(keyFile): cannot be read", status: 2)
            }
            guard let keyID else {
                throw CommandFailure(
                    message: "--offer-key needs --offer-key-id (`storefront keys` lists them)", status: 2)
            }
            let signed = try store.offers.signPromotional(
                productID: product, offerID: offerID, privateKeyPEM: pem, keyID: keyID)
            return PromotionalOfferRequest(offerID: offerID, signature: signed)
        }
        guard keyID != nil || nonce != nil || timestamp != nil || signature != nil else {
            return PromotionalOfferRequest(offerID: offerID, signature: nil, applicationUsername: applicationUsername)
        }
        return PromotionalOfferRequest(
            offerID: offerID,
            signature: .original(
                keyID: keyID ?? "", nonce: nonce ?? "", timestamp: timestamp ?? 0, signature: signature ?? ""),
            applicationUsername: applicationUsername
        )
    }
}

struct Pending: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deferred (Ask to Buy) and interrupted transactions, and delayed ones.")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let pending = try context.store.queue.pending() + context.store.queue.delayed()
            struct Waiting: Encodable {
                var id, product, state: String
                var reason, dueAt: String?
            }
            let json = pending.map {
                Waiting(
                    id: $0.id, product: $0.productID, state: $0.state.rawValue, reason: $0.reason?.rawValue,
                    dueAt: context.dateText($0.dueAt))
            }
            let text = pending.isEmpty ? "nothing pending" : pending.map { context.line($0) }.joined(separator: "\n")
            output(context, json: json, text: text)
        }
    }
}

/// `--account`: the developer answers a customer's payment that waits on her device.
struct AnswerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "On a team, with the developer's token: answer this account's payment (the full transaction id), which waits on her device.",
            valueName: "name"))
    var account: String?

    /// Answers `id` of `account` at the App Store, and says so.
    func answer(_ id: String, approve: Bool, in context: Context) throws(StoreError) -> Bool {
        guard let account else { return false }
        try context.store.queue.answer(id, of: account, approve: approve)
        struct Answered: Encodable { var id, account, answer: String }
        let answer = approve ? "approved" : "declined"
        output(
            context, json: Answered(id: id, account: account, answer: answer),
            text: "\(id) of \(account): \(answer); her device settles it at its next start")
        return true
    }
}

struct Approve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Approve a deferred purchase (a parent saying yes to Ask to Buy).")
    @Argument(help: "The transaction id, or its first characters.") var id: String
    @OptionGroup var answering: AnswerOptions
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            if try answering.answer(id, approve: true, in: context) { return }
            try context.report(try context.store.queue.approve(id))
        }
    }
}

struct Decline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decline a deferred purchase (failed: declined) or an interrupted one (failed: cancelled).")
    @Argument(help: "The transaction id, or its first characters.") var id: String
    @OptionGroup var answering: AnswerOptions
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            if try answering.answer(id, approve: false, in: context) { return }
            let transaction = try context.store.queue.decline(id)
            // Declining is what was asked, so it exits 0; the state says failed.
            output(
                context, json: TransactionOutput(transaction, in: context),
                text: context.line(transaction))
        }
    }
}

struct Resolve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Complete an interrupted purchase (the user accepted what it asked).")
    @Argument(help: "The transaction id, or its first characters.") var id: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in try context.report(try context.store.queue.resolve(id)) }
    }
}

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore purchases (A5): owned comics and the expiry; not consumables.")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let result = try context.store.queue.restore()
            let expiry =
                result.expiry.map {
                    "; subscription expires \(SubscriptionMath.formatDay($0, calendar: context.calendar))"
                } ?? ""
            struct Restored: Encodable {
                var restored: [String]
                var expires: String?
            }
            output(
                context, json: Restored(restored: result.restored, expires: context.dateText(result.expiry)),
                text: "restored \(result.restored.count) comic(s)\(expiry)"
                    + (result.restored.isEmpty ? "" : ": " + result.restored.joined(separator: ", "))
            )
        }
    }
}

// Subcommands that browse, buy and settle purchases (L1).
import ArgumentParser
import Foundation
import StoreCore
import TerminalUI

struct Products: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The catalog, in order, with the action each row offers now.")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let rows = try context.store.entitlements.productRows()
            let catalog = context.store.catalog
            let json = JSON.array(
                rows.map { row in
                    let product = row.product
                    var fields: [(String, JSON)] = [
                        ("id", .string(product.id)), ("kind", .string(product.kind.rawValue)),
                        ("title", .string(product.title)),
                        ("description", .string(product.description)),
                        ("price", .string(PriceFormatter.plain(product.price))),
                        ("currency", .string(catalog.currencyCode)),
                        ("displayPrice", .string(catalog.priceFormatter.string(for: product.price))),
                        ("action", .string(row.action.rawValue)), ("pending", .optional(row.pending?.rawValue)),
                    ]
                    switch product.kind {
                    case .nonConsumable: fields.append(("image", .optional(product.image)))
                    case .consumable: fields.append(("quantity", .int(product.quantity)))
                    case .nonRenewingSubscription:
                        fields.append(("duration", .optional(product.duration?.description)))
                        fields.append(("durationSource", .string(product.durationSource ?? "catalog")))
                    case .autoRenewableSubscription:
                        if let terms = product.autoRenew { fields += planTermsJSON(terms) }
                    }
                    return JSON.object(fields)
                })
            let width = rows.map { TextWidth.of($0.product.title) }.max() ?? 0
            let text = rows.map { row in
                var pending = row.pending.map { "  [\(Wording.state($0))]" } ?? ""
                if let source = row.product.durationSource {
                    pending += row.product.duration.map { "  (\($0.phrase), \(source))" } ?? "  (duration \(source))"
                }
                let action = Wording.action(row.action, price: context.price(row.product))
                return TextWidth.pad(row.product.title, to: width) + "  \(action)\(pending)  \(row.product.id)"
            }.joined(separator: "\n")
            output(context, json: json, text: rows.isEmpty ? "\(Wording.noProducts) \(Wording.noProductsAdvice)" : text)
        }
    }
}

struct Account: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign up, sign in, sign out and say who is signed in (A1).",
        subcommands: [Signup.self, Login.self, Logout.self, Whoami.self, Sessions.self]
    )

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
                    let json = JSON.array(
                        sessions.map { session in
                            .object([
                                ("id", .string(session.id)), ("device", .string(session.device)),
                                ("since", context.formatDate(session.createdAt)),
                                ("revoked", context.formatDate(session.revokedAt)),
                            ])
                        })
                    let text = sessions.map { session in
                        "\(session.id)  \(session.device)  since \(context.isoText(session.createdAt))"
                            + (session.revokedAt.map { "  revoked \(context.isoText($0))" } ?? "")
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
                    output(context, json: .object([("revoked", .string(id))]), text: "revoked \(id)")
                }
            }
        }
    }

    static func show(_ context: Context) throws {
        let user = try context.store.accounts.currentUser()
        output(
            context, json: .object([("user", .optional(user))]),
            text: user.map { "signed in as \($0)" } ?? "not signed in (guest)")
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
                try Account.show(context)
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
            let json = JSON.array(
                pending.map { transaction in
                    .object([
                        ("id", .string(transaction.id)), ("product", .string(transaction.productID)),
                        ("state", .string(transaction.state.rawValue)),
                        ("reason", .optional(transaction.reason?.rawValue)),
                        ("dueAt", context.formatDate(transaction.dueAt)),
                    ])
                })
            let text = pending.isEmpty ? "nothing pending" : pending.map { context.line($0) }.joined(separator: "\n")
            output(context, json: json, text: text)
        }
    }
}

struct Approve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Approve a deferred purchase (a parent saying yes to Ask to Buy).")
    @Argument(help: "The transaction id, or its first characters.") var id: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in try context.report(try context.store.queue.approve(id)) }
    }
}

struct Decline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decline a deferred purchase (failed: declined) or an interrupted one (failed: cancelled).")
    @Argument(help: "The transaction id, or its first characters.") var id: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let transaction = try context.store.queue.decline(id)
            // Declining is what was asked, so it exits 0; the state says failed.
            output(context, json: context.json(transaction), text: context.line(transaction))
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
            output(
                context,
                json: .object([("restored", .strings(result.restored)), ("expires", context.formatDate(result.expiry))]
                ),
                text: "restored \(result.restored.count) comic(s)\(expiry)"
                    + (result.restored.isEmpty ? "" : ": " + result.restored.joined(separator: ", "))
            )
        }
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What the device knows now: subscription, owned comics, random views.")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let status = try context.store.entitlements.status()
            let json = JSON.object([
                ("user", .optional(status.user)), ("device", .string(status.device)),
                ("subscribed", .bool(status.isSubscribed)),
                ("expires", context.formatDate(status.expiry)), ("daysRemaining", .int(status.daysRemaining)),
                ("header", .string(status.header)), ("owned", .strings(status.owned)),
                ("unlocked", .strings(status.unlocked)),
                // The pack's views left, and whether a subscription makes them unlimited (the text's "unlimited").
                ("randomViewsRemaining", .int(status.randomViewsRemaining)),
                ("randomViewsUnlimited", .bool(status.isSubscribed)),
                ("lastRandomComic", .optional(status.lastRandomComic)),
                ("policy", .string(try context.store.queue.policy().description)),
                ("now", context.formatDate(status.now)),
                ("plans", .array(status.plans.filter(\.hasAccess).map { planJSON($0, context) })),
                ("entitlements", .strings(status.entitlements)),
            ])
            var text = """
                \(status.header)
                user: \(status.user ?? "guest")   device: \(status.device)
                owned: \(status.owned.isEmpty ? "none" : status.owned.joined(separator: ", "))
                random views left: \(status.isSubscribed ? "unlimited" : String(status.randomViewsRemaining))
                """
            for plan in status.plans where plan.hasAccess {
                text += "\nplan: " + plan.summary(calendar: context.calendar, catalog: context.store.catalog)
            }
            output(context, json: json, text: text)
        }
    }
}

struct Random: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show (use) one random comic (R7).")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let result = try context.store.randomComics.show()
            output(
                context,
                json: .object([
                    ("comic", .string(result.comic.id)), ("title", .string(result.comic.title)),
                    ("image", .optional(result.comic.image)),
                    ("randomViewsRemaining", .int(result.randomViewsRemaining)), ("header", .string(result.header)),
                ]),
                text: "\(result.comic.title) (\(result.comic.id))\n"
                    + (result.isSubscribed ? result.header : "random views left: \(result.randomViewsRemaining)")
            )
        }
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every transaction of this device's account (or guest) with its states and times.")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let history = try context.store.queue.history()
            let signed = context.json ? try context.store.signed.transactions(history) : [:]
            // Revoked as the signed form says (a refund not taken back, a family share taken away).
            let revoked =
                (try? context.store.entitlements.receipt()).map { ReceiptEntry.revocationDates(in: $0.entries) } ?? [:]
            output(
                context,
                json: .array(history.map { context.json($0, signed: signed[$0.id], revokedAt: revoked[$0.id]) }),
                text: history.isEmpty
                    ? "no transactions"
                    : history.map { transaction in
                        // M3: the order id a customer finds on their emailed receipt.
                        context.line(transaction, revokedAt: revoked[transaction.id])
                            + (context.orderID(transaction).map { "  order \($0)" } ?? "")
                    }.joined(separator: "\n")
            )
        }
    }
}

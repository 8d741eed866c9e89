// Subcommands that browse the store and what the device has (L1): products, status, the random
// viewer and the history.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import TerminalUI

struct Products: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The catalog, in order, with the action each row offers now.")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let rows = try context.store.entitlements.productRows()
            let catalog = context.store.catalog
            let json = rows.map { ProductOutput($0, catalog: catalog) }
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

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What the device knows now: subscription, owned comics, random views.")
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let status = try context.store.entitlements.status()
            let json = StatusOutput(status, policy: try context.store.queue.policy(), context)
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
                json: RandomOutput(
                    comic: result.comic.id, title: result.comic.title, image: result.comic.image,
                    randomViewsRemaining: result.randomViewsRemaining, header: result.header),
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
                json: history.map {
                    TransactionOutput($0, signed: signed[$0.id], revokedAt: revoked[$0.id], in: context)
                },
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

/// A row of `products`: the product, the action its row offers now, and what its kind adds.
private struct ProductOutput: Encodable {
    var id, kind, title, description, price, currency, displayPrice, action: String
    var pending: String?
    var image: Omitted<String?>
    var quantity: Omitted<Int>
    var duration: Omitted<String?>
    var durationSource: Omitted<String>
    /// An auto-renewable product's terms, among its own fields.
    var terms: Inline<PlanTermsOutput>

    init(_ row: ProductRow, catalog: Catalog) {
        let product = row.product
        id = product.id
        kind = product.kind.rawValue
        title = product.title
        description = product.description
        price = PriceFormatter.plain(product.price)
        currency = catalog.currencyCode
        displayPrice = catalog.priceFormatter.string(for: product.price)
        action = row.action.rawValue
        pending = row.pending?.rawValue
        image = Omitted(product.kind == .nonConsumable ? .some(product.image) : nil)
        quantity = Omitted(product.kind == .consumable ? product.quantity : nil)
        let nonRenewing = product.kind == .nonRenewingSubscription
        duration = Omitted(nonRenewing ? .some(product.duration?.description) : nil)
        durationSource = Omitted(nonRenewing ? product.durationSource ?? "catalog" : nil)
        let terms = product.kind == .autoRenewableSubscription ? product.autoRenew : nil
        self.terms = Inline(terms.map { PlanTermsOutput($0, price: product.price) })
    }
}

/// `status`: what the device knows now.
private struct StatusOutput: Encodable {
    var user: String?
    var device: String
    var subscribed: Bool
    var expires: String?
    var daysRemaining: Int
    var header: String
    var owned, unlocked: [String]
    /// The pack's views left, and whether a subscription makes them unlimited (the text's "unlimited").
    var randomViewsRemaining: Int
    var randomViewsUnlimited: Bool
    var lastRandomComic: String?
    var policy: String
    var now: String?
    var plans: [PlanOutput]
    var entitlements: [String]

    init(_ status: StoreStatus, policy: PurchaseOutcome, _ context: Context) {
        user = status.user
        device = status.device
        subscribed = status.isSubscribed
        expires = context.dateText(status.expiry)
        daysRemaining = status.daysRemaining
        header = status.header
        owned = status.owned
        unlocked = status.unlocked
        randomViewsRemaining = status.randomViewsRemaining
        randomViewsUnlimited = status.isSubscribed
        lastRandomComic = status.lastRandomComic
        self.policy = policy.description
        now = context.dateText(status.now)
        plans = status.plans.filter(\.hasAccess).map { PlanOutput($0, context) }
        entitlements = status.entitlements
    }
}

/// `random`: the comic shown.
private struct RandomOutput: Encodable {
    var comic, title: String
    var image: String?
    var randomViewsRemaining: Int
    var header: String
}

extension Context {
    /// The price as the screen shows it, in the account's storefront's currency and locale; per
    /// period for an auto-renewable plan ("$4.99/month").
    func price(_ product: Product) -> String {
        let price = store.catalog.priceFormatter.string(for: product.price)
        guard let period = product.autoRenew?.period else { return price }
        return price + "/" + period.unitPhrase
    }
}

// Subcommands that browse the store and what the device has (L1): products, status, the random
// viewer and the history.
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
                        if let terms = product.autoRenew { fields += planTermsJSON(terms, price: product.price) }
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

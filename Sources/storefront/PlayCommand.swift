// `storefront play` (Google Play beside the App Store): what the catalog sells on Play, in Play's
// own model. Each product's Play identity is its catalog's `play` entry, the rest derived from its
// App Store one (docs/google-play.md).
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Google Play beside the App Store: what the catalog sells there, in Play's model.",
        subcommands: [Products.self],
        defaultSubcommand: Products.self
    )

    struct Products: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The catalog's products on Google Play: one-time products, and subscriptions with their base plans and offers."
        )
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                let products: [PlayProduct]
                do { products = try context.store.catalog.playProducts() } catch {
                    printError("storefront: \(error)")
                    throw ExitCode(2)
                }
                output(
                    context, json: ["products": products.map(PlayProductOutput.init)],
                    text: products.map(\.lines).joined(separator: "\n"))
            }
        }
    }
}

/// A Play product as `play products --json` writes it, in Play's words.
private struct PlayProductOutput: Encodable {
    struct BasePlan: Encodable {
        var basePlanId, type, period, price: String
    }
    struct Offer: Encodable {
        struct Phase: Encodable {
            var price, period: String
            var recurrences: Int
        }
        var basePlanId, offerId, eligibility: String
        var phases: [Phase]
        var tags: [String]
        var appStoreOffer: String?
    }
    struct RegionalPrice: Encodable {
        var regionCode, currencyCode, price: String
    }
    var productId, type, appStoreProduct: String
    var consumable: Bool
    var regionalPrices: [RegionalPrice]
    var basePlans: [BasePlan]
    var offers: [Offer]

    init(_ play: PlayProduct) {
        productId = play.productId
        type = play.kind.rawValue
        appStoreProduct = play.product
        consumable = play.consumable
        regionalPrices = play.regionalPrices.map {
            RegionalPrice(regionCode: $0.regionCode, currencyCode: $0.currencyCode, price: "\($0.price)")
        }
        basePlans = play.basePlans.map {
            BasePlan(basePlanId: $0.basePlanId, type: $0.renewal.rawValue, period: "\($0.period)", price: "\($0.price)")
        }
        offers = play.offers.map { offer in
            Offer(
                basePlanId: offer.basePlanId, offerId: offer.offerId, eligibility: offer.eligibility.rawValue,
                phases: offer.phases.map {
                    Offer.Phase(price: "\($0.price)", period: "\($0.period)", recurrences: $0.recurrences)
                }, tags: offer.tags, appStoreOffer: offer.appleOffer)
        }
    }
}

extension PlayProduct {
    /// "night_shift  one-time", then a line per base plan and per offer.
    fileprivate var lines: String {
        var lines = [
            "\(productId)  \(kind == .oneTime ? (consumable ? "one-time, consumed" : "one-time") : "subscription")"
        ]
        let regions = regionalPrices.map { "\($0.regionCode) \($0.price) \($0.currencyCode)" }
        if regionalPrices.count > 1 { lines.append("  prices: " + regions.joined(separator: ", ")) }
        lines += basePlans.map { "  base plan \($0.basePlanId): \($0.renewal.rawValue), \($0.period), \($0.price)" }
        lines += offers.map { offer in
            let phases = offer.phases.map { "\($0.price) for \($0.recurrences) × \($0.period)" }.joined(separator: ", ")
            return "  offer \(offer.offerId) on \(offer.basePlanId): \(offer.eligibility.rawValue), \(phases)"
        }
        return lines.joined(separator: "\n")
    }
}

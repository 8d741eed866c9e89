// The catalog (C1): its products and settings, the errors and warnings its reader gives
// (CatalogLoader.swift), and finding a product by the name a person typed.
import Foundation

public struct Catalog: Sendable, Equatable {
    public var name: String
    public var currencyCode: String
    public var localeIdentifier: String
    /// The locale as the App Store sends a customer's ("en-US"): Retention Messaging's `userLocale`
    /// and the key of its default messages.
    public var userLocale: String { localeIdentifier.replacingOccurrences(of: "_", with: "-") }
    /// Days added after the months of every subscription purchase (R5; In App Rage gave 1).
    public var bonusDays: Int
    /// The outcome policy a device starts with (Q4).
    public var defaultPolicy: PurchaseOutcome
    /// StoreKit errors the catalog's settings turn on (a `.storekit` file's `_storeKitErrors`),
    /// used until the state folder sets its own (Q7).
    public var simulatedErrors = SimulatedErrors()
    /// The app's bundle id, when the catalog says (signed data carries it, S4).
    public var bundleID: String?
    /// The App Store storefront, by its three-letter country code (a `.storekit` file's `_storefront`).
    public var storefront = "USA"
    public var products: [Product]
    public var randomComics: [RandomComic]
    /// An accelerated clock a fresh state folder starts with (a `.storekit` file's `_timeRate`).
    public var clockRate: Double?
    /// How renewals are charged in a fresh state folder (a `.storekit` file's billing settings).
    public var billing: BillingSetting?
    /// Where the catalog came from, for people: "Storefront catalog", "Xcode StoreKit configuration 3.0".
    public var format = "Storefront catalog"
    /// The subscription-offer key a `.storekit` file carries (`subscriptionOffersKeyPair`): its
    /// signatures are accepted besides those of the state folder's own keys (O2).
    public var subscriptionOfferKey: APIKey?

    public init(
        name: String = "Catalog", currencyCode: String = "USD", localeIdentifier: String = "en_US",
        bonusDays: Int = 0, defaultPolicy: PurchaseOutcome = .approve, products: [Product],
        randomComics: [RandomComic] = []
    ) {
        self.name = name
        self.currencyCode = currencyCode
        self.localeIdentifier = localeIdentifier
        self.bonusDays = bonusDays
        self.defaultPolicy = defaultPolicy
        self.products = products
        self.randomComics = randomComics
    }

    public func product(_ id: String) -> Product? { products.first { $0.id == id } }

    public var comics: [Product] { products.filter { $0.kind == .nonConsumable } }

    /// What the random viewer cycles through: the catalog's own list, else the comics.
    public var randomPool: [RandomComic] {
        if !randomComics.isEmpty { return randomComics }
        return comics.map { RandomComic(id: $0.id, title: $0.title, image: $0.image) }
    }

    public var priceFormatter: PriceFormatter {
        PriceFormatter(currencyCode: currencyCode, localeIdentifier: localeIdentifier)
    }
}

/// A catalog that cannot be used. `description` is the one line the user sees.
public struct CatalogError: Error, Equatable, CustomStringConvertible, Sendable {
    public let file: String
    public let entry: String?
    public let message: String

    public var description: String {
        if let entry { return "\(file): \(entry): \(message)" }
        return "\(file): \(message)"
    }
}

/// Something worth saying about a catalog that still loads (an image not drawn yet, an unknown key).
public struct CatalogWarning: Equatable, CustomStringConvertible, Sendable {
    public let file: String
    public let entry: String?
    public let message: String

    public var description: String {
        if let entry { return "\(file): warning: \(entry): \(message)" }
        return "\(file): warning: \(message)"
    }
}

public struct LoadedCatalog: Sendable {
    public let catalog: Catalog
    public let warnings: [CatalogWarning]
    /// The folder that image paths are relative to.
    public let imageRoot: URL

    public init(catalog: Catalog, warnings: [CatalogWarning], imageRoot: URL) {
        self.catalog = catalog
        self.warnings = warnings
        self.imageRoot = imageRoot
    }
}

extension Catalog {
    /// The product a person named: its id, else its title in any case (as scenarios and the
    /// screen's users know it).
    public func product(named name: String) -> Product? {
        if let product = product(name) { return product }
        let lowered = name.lowercased()
        return products.first { $0.title.lowercased() == lowered }
    }

    /// The product named by id or title, or an error that suggests one only when it is close:
    /// the one title that what was typed is part of (from the start of a word: `6 months` suggests
    /// 6 Months of Comics), else the one id it ends, else the id or title fewest edits away, if
    /// that is a typo's worth (at most 3 edits, and a quarter of what was typed):
    /// `com.storefront.comic.nope` suggests nothing, `night shfit` suggests Night Shift.
    public func require(_ name: String) throws(StoreError) -> Product {
        if let product = product(named: name) { return product }
        let lowered = name.lowercased()
        // Part of one title, from the start of one of its words: `6 months`, `coffee`.
        let partOf = products.filter { product in
            let title = product.title.lowercased()
            return lowered.count >= 3
                && title.ranges(of: lowered).contains {
                    $0.lowerBound == title.startIndex || title[title.index(before: $0.lowerBound)] == " "
                }
        }
        if partOf.count == 1 { throw StoreError.unknownProduct(name, suggestion: partOf[0].title) }
        let endings = products.filter { $0.id.lowercased().hasSuffix(lowered) && lowered.count >= 4 }
        if endings.count == 1 { throw StoreError.unknownProduct(name, suggestion: endings[0].id) }
        let scored = products.map { product in
            (
                product,
                min(editDistance(product.id.lowercased(), lowered), editDistance(product.title.lowercased(), lowered))
            )
        }
        let nearest = scored.min { $0.1 < $1.1 }
        let close = nearest.flatMap { $0.1 <= min(3, max(1, lowered.count / 4)) ? $0.0 : nil }
        throw StoreError.unknownProduct(name, suggestion: close?.id)
    }
}

/// Levenshtein distance, for "did you mean" on a mistyped product id or subcommand.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let saved = row[j]
            row[j] = a[i - 1] == b[j - 1] ? previous : min(previous, row[j], row[j - 1]) + 1
            previous = saved
        }
    }
    return row[b.count]
}

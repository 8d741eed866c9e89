// The catalog (C1): its products and settings, and the errors and warnings its reader gives
// (CatalogLoader.swift, CatalogDocument.swift). Finding a product by name is CatalogSearch.swift.
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
    /// The App Store storefront, by its three-letter country code (a `.storekit` file's
    /// `_storefront`, a JSON catalog's `storefront`, else what its locale and currency name).
    public var storefront = "USA"
    /// How the storefront was chosen, as `catalog check` says it once.
    public var storefrontReason = "the default"
    /// Apple's numeric id of the storefront (`storefrontId` in signed data).
    public var storefrontID: String { Storefronts.appleID(storefront) }
    /// F3: where the catalog was read, once it is seen in a storefront (`seen(in:)`).
    var home: Home?
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

    package init(file: String, entry: String?, message: String) {
        self.file = file
        self.entry = entry
        self.message = message
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

    package init(file: String, entry: String?, message: String) {
        self.file = file
        self.entry = entry
        self.message = message
    }
}

public struct LoadedCatalog: Sendable {
    public let catalog: Catalog
    public let warnings: [CatalogWarning]
    /// The folder that image paths are relative to.
    public let imageRoot: URL
    /// A `.storekit` package's assets that no product names (C8), from the image root: listed by
    /// `catalog check`, never loaded.
    public let unusedAssets: [String]

    public init(catalog: Catalog, warnings: [CatalogWarning], imageRoot: URL, unusedAssets: [String] = []) {
        self.catalog = catalog
        self.warnings = warnings
        self.imageRoot = imageRoot
        self.unusedAssets = unusedAssets
    }
}

extension Catalog {
    /// Every picture the catalog names, with the entry that names it, as the catalog's warnings
    /// name entries (`products[3] "id"`): comics' pictures, products' own art (C8), random comics'.
    public var namedPictures: [(entry: String, path: String)] {
        var named: [(entry: String, path: String)] = []
        for (index, product) in products.enumerated() {
            for path in [product.image, product.promotionalImage].compactMap({ $0 }) {
                named.append(("products[\(index)] \"\(product.id)\"", path))
            }
        }
        for (index, comic) in randomComics.enumerated() {
            if let path = comic.image { named.append(("randomComics[\(index)] \"\(comic.id)\"", path)) }
        }
        return named
    }
}

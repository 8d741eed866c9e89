// F2 F3: a product's prices and availability in each storefront, and the catalog as an account in
// a storefront sees it. Values only: the catalog reader fills them in, the store asks.
//
// The shape is App Store Connect's: a price per storefront, each in that storefront's currency,
// and a list of the storefronts a product is available in. A product is sold in a storefront when
// the list (if any) names it and it has a price there: its own price for that storefront, else the
// catalog's price when the storefront sells in the catalog's currency (IRL and FRA share EUR). A
// storefront of another currency that the catalog gives no price for does not sell it: there is no
// exchange rate to guess with.
import Foundation

/// Where a product is sold beyond its catalog's storefront, and at what price.
public struct StorefrontPricing: Sendable, Equatable {
    /// Prices by storefront (alpha-3 code), each in that storefront's currency.
    public var prices: [String: Decimal] = [:]
    /// The storefronts it is available in; nil: every storefront it has a price in.
    public var availableIn: Set<String>?
    /// Its price in its catalog's own storefront, kept once the catalog is seen elsewhere (so
    /// that seeing it from there again starts from the catalog, never from another storefront).
    var homePrice: Decimal?
    var homeMonthlyPrice: Decimal?

    public init(prices: [String: Decimal] = [:], availableIn: Set<String>? = nil) {
        self.prices = prices
        self.availableIn = availableIn
    }
}

extension Product {
    /// Its price in `storefront` for a catalog priced in `currency`, or nil where it is not sold.
    public func price(in storefront: String, catalogCurrency currency: String) -> Decimal? {
        let code = storefront.uppercased()
        if let available = pricing.availableIn, !available.contains(code) { return nil }
        if let own = pricing.prices[code] { return own }
        return Storefronts.country(code)?.currency == currency.uppercased() ? pricing.homePrice ?? price : nil
    }
}

extension Catalog {
    /// The catalog as an account in `storefront` sees it (F3): that storefront's code, currency
    /// and locale, each product at its price there, and `soldHere` false for one not sold there
    /// (its catalog price kept, never shown as a price). Nil for a code that names no storefront.
    /// `storefront` equal to the catalog's own gives the catalog with its availability applied.
    public func seen(in storefront: String) -> Catalog? {
        let code = storefront.uppercased()
        guard let country = Storefronts.country(code) else { return nil }
        let home = self.home ?? Home(catalog: self)
        var seen = self
        seen.home = home
        (seen.storefront, seen.storefrontReason, seen.currencyCode, seen.localeIdentifier) =
            code == home.storefront
            ? (home.storefront, home.reason, home.currency, home.locale)
            : (code, "the account's storefront", country.currency, country.locale)
        let sameCurrency = seen.currencyCode.uppercased() == home.currency.uppercased()
        seen.products = products.map { product in
            var shown = product
            let homePrice = product.pricing.homePrice ?? product.price
            shown.pricing.homePrice = homePrice
            shown.price = homePrice
            shown.autoRenew?.monthlyCommitmentPrice =
                product.pricing.homeMonthlyPrice ?? product.autoRenew?.monthlyCommitmentPrice
            shown.pricing.homeMonthlyPrice = shown.autoRenew?.monthlyCommitmentPrice
            guard let price = shown.price(in: code, catalogCurrency: home.currency) else {
                shown.soldHere = false
                return shown
            }
            shown.soldHere = true
            shown.price = price
            // A monthly commitment's price is the catalog's currency's: another currency offers
            // no monthly plan rather than a price no one set.
            if !sameCurrency { shown.autoRenew?.monthlyCommitmentPrice = nil }
            return shown
        }
        return seen
    }

    /// The storefronts the catalog names: its own first, then every one a product has a price or
    /// availability in (the transaction manager's `S` steps through them).
    public var storefrontChoices: [String] {
        var named = Set<String>()
        for product in products {
            named.formUnion(product.pricing.prices.keys)
            named.formUnion(product.pricing.availableIn ?? [])
        }
        named.remove(homeStorefront)
        return [homeStorefront] + named.sorted()
    }

    /// Whether this is the catalog in its own storefront (not as another storefront sees it).
    public var isHome: Bool { home.map { $0.storefront == storefront } ?? true }

    /// The storefront the catalog was read in.
    public var homeStorefront: String { home?.storefront ?? storefront }

    /// The storefront a catalog was read in, with its currency and locale.
    struct Home: Sendable, Equatable {
        let storefront: String
        let reason: String
        let currency: String
        let locale: String

        init(catalog: Catalog) {
            storefront = catalog.storefront
            reason = catalog.storefrontReason
            currency = catalog.currencyCode
            locale = catalog.localeIdentifier
        }
    }
}

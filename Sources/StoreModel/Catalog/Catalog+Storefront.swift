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
        return Storefronts.country(code)?.currency == currency.uppercased() ? price : nil
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
        var seen = self
        if code != self.storefront {
            seen.storefront = code
            seen.storefrontReason = "the account's storefront"
            seen.currencyCode = country.currency
            seen.localeIdentifier = country.locale
        }
        let sameCurrency = seen.currencyCode == currencyCode.uppercased()
        seen.products = products.map { product in
            var shown = product
            guard let price = product.price(in: code, catalogCurrency: currencyCode) else {
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
}

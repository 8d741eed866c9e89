// What a catalog sells on Google Play, beside what it sells on the App Store: Play's own model, as
// the Play Developer API describes it (androidpublisher v3: OneTimeProduct, Subscription, BasePlan,
// SubscriptionOffer). A product's Play identity is the catalog's `play` entry where it has one, and
// is derived from its App Store one where the catalog is silent:
// - a comic or a consumable is a one-time product (Play leaves consuming to the app);
// - an auto-renewable plan is a subscription with one auto-renewing base plan of its period;
// - a non-renewing subscription is a subscription with one prepaid base plan of its duration (one
//   with no known duration, a one-time product);
// - an introductory offer is an offer for new customers, promotional and win-back offers are
//   developer-determined offers tagged with their kind.
import Foundation

/// A product as Google Play sells it.
public struct PlayProduct: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case oneTime, subscription }

    public var productId: String
    public var kind: Kind
    /// The catalog's product it stands for (its App Store id).
    public var product: String
    /// One-time products the app consumes (the App Store's consumables).
    public var consumable: Bool
    public var basePlans: [PlayBasePlan]
    public var offers: [PlayOffer]
    /// Its prices by Play billing region: the one-time product's, or its base plan's.
    public var regionalPrices: [PlayRegionalPrice] = []
}

/// A price in one Play billing region (ISO 3166-1 alpha-2), in that region's currency.
public struct PlayRegionalPrice: Sendable, Equatable {
    public var regionCode: String
    public var currencyCode: String
    public var price: Decimal
}

/// A subscription's base plan: how it renews, how long a period is, and its price.
public struct PlayBasePlan: Sendable, Equatable {
    public enum Renewal: String, Sendable, Equatable { case autoRenewing, prepaid }

    public var basePlanId: String
    public var renewal: Renewal
    public var period: SubscriptionPeriod
    public var price: Decimal
}

/// An offer on a base plan: its phases, who may have it, and its tags.
public struct PlayOffer: Sendable, Equatable {
    public enum Eligibility: String, Sendable, Equatable {
        /// Play's "new customer acquisition": never had this subscription.
        case newCustomers
        /// Play's "developer determined": the app decides, and names the offer when it buys.
        case developerDetermined
    }

    /// A phase before the base plan's own price: free for a while, or at a discount for a number
    /// of periods (Play's recurring count), or one payment for a longer time.
    public struct Phase: Sendable, Equatable {
        public var price: Decimal
        public var period: SubscriptionPeriod
        public var recurrences: Int
    }

    public var offerId: String
    public var basePlanId: String
    public var eligibility: Eligibility
    public var phases: [Phase]
    public var tags: [String]
    /// The App Store offer it stands for (nil: the introductory offer).
    public var appleOffer: String?
}

/// What a catalog entry says of a product on Play (its `play` key); what it leaves out is derived.
public struct PlayListing: Sendable, Equatable {
    public var sold = true
    public var productId: String?
    public var basePlanId: String?
    /// Play offer ids by App Store offer id ("intro" for the introductory offer).
    public var offerIds: [String: String] = [:]

    public init(
        sold: Bool = true, productId: String? = nil, basePlanId: String? = nil, offerIds: [String: String] = [:]
    ) {
        self.sold = sold
        self.productId = productId
        self.basePlanId = basePlanId
        self.offerIds = offerIds
    }

    /// The key `offerIds` gives the introductory offer.
    public static let introductoryKey = "intro"
}

/// A product the catalog sells on Play whose Play identity cannot be, named with the reason.
public struct PlayCatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    public var product: String
    public var message: String

    public var description: String { "product \"\(product)\": \(message)" }
}

extension Catalog {
    /// Every product the catalog sells on Play, in catalog order; the first one whose identity is
    /// not Play's shape, or is another's, is refused by name.
    public func playProducts() throws(PlayCatalogError) -> [PlayProduct] {
        var listed: [PlayProduct] = []
        var owners: [String: String] = [:]
        for product in products where product.play.sold {
            var play = try PlayProduct.derived(from: product)
            play.regionalPrices = regionalPrices(of: product)
            if let other = owners[play.productId] {
                throw PlayCatalogError(
                    product: product.id,
                    message:
                        "its Play product id \"\(play.productId)\" is also \"\(other)\"'s: give one a \"play\": {\"productId\": …} of its own"
                )
            }
            owners[play.productId] = product.id
            listed.append(play)
        }
        return listed
    }
}

extension Catalog {
    /// `product`'s prices in every storefront the catalog names where it is sold, as Play's billing
    /// regions: the storefront's country (its locale's region) and currency. There is no exchange
    /// rate to guess with, as on the App Store (F2).
    func regionalPrices(of product: Product) -> [PlayRegionalPrice] {
        let currency = home?.currency ?? currencyCode
        return storefrontChoices.compactMap { storefront in
            guard let country = Storefronts.country(storefront),
                let region = country.locale.split(separator: "_").last.map(String.init), region.count == 2,
                let price = product.price(in: storefront, catalogCurrency: currency)
            else { return nil }
            return PlayRegionalPrice(regionCode: region, currencyCode: country.currency, price: price)
        }
    }
}

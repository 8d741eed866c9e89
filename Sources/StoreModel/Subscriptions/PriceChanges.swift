// Price changes of auto-renewable subscriptions (O6): the developer sets a new price of one
// billing plan; new purchases and renewals on that plan pay it. An increase reaches each
// subscriber who renews on that billing plan as a plan line (PRICE_INCREASE); where consent is
// required the plan renews at the new price only after the subscriber agrees, and expires at its
// next renewal otherwise (EXPIRED, PRICE_INCREASE). For a monthly plan with a 12-month commitment
// the renewal is the commitment's: its months keep their price, as a year billed up front does.
import Foundation

/// The latest price set for one billing plan of one product, and what it replaced.
public struct PriceChange: Sendable, Equatable, Codable {
    public var productID: String
    /// The monthly plan's price, or nil for the price billed up front (changes stored before
    /// billing plans had prices of their own are of that price).
    public var billingPlan: BillingPlan?
    public var price: Decimal
    /// The price before this change (the catalog's, or an earlier change's).
    public var previous: Decimal
    public var consentRequired: Bool
    /// When it took effect (store time); it names the change on the plan lines it wrote.
    public var at: Date

    public init(
        productID: String, billingPlan: BillingPlan = .billedUpfront, price: Decimal, previous: Decimal,
        consentRequired: Bool, at: Date
    ) {
        self.productID = productID
        self.billingPlan = billingPlan == .monthly ? .monthly : nil
        self.price = price
        self.previous = previous
        self.consentRequired = consentRequired
        self.at = at
    }

    public var isIncrease: Bool { price > previous }
    public var plan: BillingPlan { billingPlan ?? .billedUpfront }
    public var key: Key { Key(productID: productID, plan: plan) }

    /// What a change replaces: the last one of the same billing plan of the same product.
    public struct Key: Hashable, Sendable {
        public var productID: String
        public var plan: BillingPlan
    }
}

extension [PriceChange] {
    /// The stored changes with `change` in place of the one of its product and billing plan.
    public func replacing(with change: PriceChange) -> [PriceChange] {
        filter { $0.key != change.key } + [change]
    }
}

/// A price increase a plan was told of, and the subscriber's answer.
public struct PendingPriceIncrease: Sendable, Equatable, Codable {
    public var price: Decimal
    public var consentRequired: Bool
    /// True: agreed (or no consent needed); false: declined; nil: not answered yet.
    public var answer: Bool?

    public init(price: Decimal, consentRequired: Bool, answer: Bool?) {
        self.price = price
        self.consentRequired = consentRequired
        self.answer = answer
    }

    /// The plan renews at the new price; otherwise it expires at the next renewal.
    public var renews: Bool { !consentRequired || answer == true }
}

extension Product {
    /// The same product at other prices: billed up front, and monthly with a 12-month commitment
    /// (for a plan that offers it).
    public func priced(_ newPrice: Decimal, monthly: Decimal? = nil) -> Product {
        var changed = self
        changed.price = newPrice
        if let monthly, autoRenew?.monthlyCommitmentPrice != nil { changed.autoRenew?.monthlyCommitmentPrice = monthly }
        return changed
    }
}

extension Catalog {
    /// The catalog at the prices `changes` set: the price billed up front, and the monthly plan's.
    public func priced(by changes: [PriceChange]) -> Catalog {
        // The developer sets a price in the catalog's own storefront and currency (F3): the
        // catalog as another storefront sees it keeps that storefront's prices.
        guard !changes.isEmpty, isHome else { return self }
        var catalog = self
        let prices = Dictionary(changes.map { ($0.key, $0.price) }) { _, last in last }
        catalog.products = products.map { product in
            let upfront = prices[.init(productID: product.id, plan: .billedUpfront)]
            let monthly = prices[.init(productID: product.id, plan: .monthly)]
            guard upfront != nil || monthly != nil else { return product }
            return product.priced(upfront ?? product.price, monthly: monthly)
        }
        return catalog
    }

}

// Price changes of auto-renewable subscriptions (O6): the developer sets a new price; new
// purchases and renewals pay it. An increase reaches each subscriber of the product as a plan
// line (PRICE_INCREASE); where consent is required the plan renews at the new price only after
// the subscriber agrees, and expires at its next renewal otherwise (EXPIRED, PRICE_INCREASE).
import Foundation

/// The latest price set for one product, and what it replaced.
public struct PriceChange: Sendable, Equatable, Codable {
    public var productID: String
    public var price: Decimal
    /// The price before this change (the catalog's, or an earlier change's).
    public var previous: Decimal
    public var consentRequired: Bool
    /// When it took effect (store time); it names the change on the plan lines it wrote.
    public var at: Date

    public init(productID: String, price: Decimal, previous: Decimal, consentRequired: Bool, at: Date) {
        self.productID = productID
        self.price = price
        self.previous = previous
        self.consentRequired = consentRequired
        self.at = at
    }

    public var isIncrease: Bool { price > previous }
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
    /// The same product at another price.
    public func priced(_ newPrice: Decimal) -> Product {
        var changed = Product(
            id: id, kind: kind, title: title, description: description, price: newPrice, image: image,
            quantity: quantity,
            duration: duration, autoRenew: autoRenew
        )
        changed.durationSource = durationSource
        changed.isFamilyShareable = isFamilyShareable
        return changed
    }
}

extension Catalog {
    /// The catalog at the prices `changes` set.
    public func priced(by changes: [PriceChange]) -> Catalog {
        guard !changes.isEmpty else { return self }
        var catalog = self
        let prices = Dictionary(changes.map { ($0.productID, $0.price) }) { _, last in last }
        catalog.products = products.map { product in prices[product.id].map { product.priced($0) } ?? product }
        return catalog
    }

    /// The catalog at the prices the account server says, for a catalog that sells plans (no
    /// read for one that does not).
    package func priced(by server: any PriceBook) throws(StoreError) -> Catalog {
        guard products.contains(where: { $0.autoRenew != nil }) else { return self }
        return priced(by: try server.priceChanges())
    }
}

// Products as the catalog describes them (C2, C3).
import Foundation

public enum ProductKind: String, Sendable, Codable, CaseIterable {
    case nonConsumable
    case consumable
    case nonRenewingSubscription
    case autoRenewableSubscription
}

public struct Product: Sendable, Equatable, Identifiable {
    public let id: String
    public let kind: ProductKind
    public let title: String
    public let description: String
    /// Decimal, never binary floating point (C3).
    public internal(set) var price: Decimal
    /// Path relative to the assets folder; comics only.
    public let image: String?
    /// Random-comic views a consumable adds (R4).
    public let quantity: Int
    /// How long a non-renewing subscription lasts (R5): an ISO 8601 period of days, weeks, months
    /// or years; nil while nobody has said (a `.storekit` file has no field for it).
    public let duration: SubscriptionPeriod?
    /// Calendar months the duration adds (years as twelve, so that month ends clamp).
    public var months: Int { duration?.duration().months ?? 0 }
    /// Days the duration adds (weeks as seven): exact, no clamping.
    public var days: Int { duration?.duration().days ?? 0 }
    /// True when buying it extends the subscription: a non-renewing one with a known duration.
    public var hasDuration: Bool { duration != nil }
    /// Period, group, rank, offer and entitlements of an auto-renewable subscription.
    public internal(set) var autoRenew: AutoRenewTerms?
    /// Where a non-renewing subscription's duration came from when the catalog format has no field
    /// for it (a `.storekit` file): "--duration", "side file", "inferred from …"; nil when the
    /// catalog states it.
    public var durationSource: String?
    /// O5: Family Sharing shares it with the purchaser's family (a `.storekit` file's `familyShareable`).
    public var isFamilyShareable = false
    /// C8: the product's own art, a path like `image`'s, shown in its detail view whether or not it
    /// is owned: a `.storekit` package's `Assets/<promotionalImageID>.png` or `.jpg`, or a JSON
    /// catalog's `promotionalImage`.
    public var promotionalImage: String?
    /// F2: its prices and availability in other storefronts (a JSON catalog's `prices` and
    /// `availableIn`).
    public var pricing = StorefrontPricing()
    /// F2: whether it is sold in the storefront its catalog is seen in; a purchase of one that is
    /// not is refused as StoreKit refuses it (storeProductNotAvailable).
    public internal(set) var soldHere = true
    /// Its identity on Google Play (the catalog's `play` entry; what it leaves out is derived).
    public var play = PlayListing()

    public init(
        id: String, kind: ProductKind, title: String, description: String, price: Decimal,
        image: String? = nil, quantity: Int = 0, months: Int = 0, duration: SubscriptionPeriod? = nil,
        autoRenew: AutoRenewTerms? = nil
    ) {
        self.id = id
        self.kind = kind
        self.title = title
        self.description = description
        self.price = price
        self.image = image
        self.quantity = quantity
        self.duration = duration ?? (months > 0 ? SubscriptionPeriod(months, .month) : nil)
        self.autoRenew = autoRenew
    }

    /// Either kind of subscription: both need an account (A1).
    public var isSubscription: Bool { kind == .nonRenewingSubscription || kind == .autoRenewableSubscription }
}

/// A picture the random viewer can show (R7).
public struct RandomComic: Sendable, Equatable, Identifiable {
    public let id: String
    public let title: String
    public let image: String?

    public init(id: String, title: String, image: String?) {
        self.id = id
        self.title = title
        self.image = image
    }
}

/// Formats prices for the catalog's currency and locale (C3).
public struct PriceFormatter: Sendable {
    public let currencyCode: String
    public let localeIdentifier: String

    public init(currencyCode: String, localeIdentifier: String) {
        self.currencyCode = currencyCode
        self.localeIdentifier = localeIdentifier
    }

    public func string(for price: Decimal) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = Locale(identifier: localeIdentifier)
        formatter.currencyCode = currencyCode
        let text = formatter.string(from: price as NSDecimalNumber) ?? "\(price) \(currencyCode)"
        // A terminal lays text out left to right and counts direction marks differently from one
        // program to the next: the marks an Arabic or Hebrew locale adds are left out.
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { !Self.directionMarks.contains($0.value) }))
    }

    static let directionMarks: Set<UInt32> = [
        0x200E, 0x200F, 0x061C, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]

    /// The price as a plain decimal string for JSON and the receipt: "0.99", "4900.00", never
    /// "0.98999999" (Decimal's own digits, with at least two after the point). No formatter: the
    /// receipt writes one per line.
    public static func plain(_ price: Decimal) -> String {
        var text = price.description
        guard let dot = text.firstIndex(of: ".") else { return text + ".00" }
        let fraction = text.distance(from: dot, to: text.endIndex) - 1
        if fraction < 2 { text += String(repeating: "0", count: 2 - fraction) }
        return text
    }
}

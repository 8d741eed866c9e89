// F3: an account moves to another storefront. Apple lets a customer change her country or region
// only once her subscriptions have ended: "Any open subscriptions will prevent you from being able
// to change your country", and one must be left to expire first (Apple Support, "If you can't
// change your iTunes Store country or region", HT204447). A plan that has not ended, cancelled or
// not, keeps her where she is, so a renewal never crosses storefronts. Values only: the device
// and the team server both ask.
import Foundation

/// Why an account cannot move to a storefront now.
public enum StorefrontRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The code names none of Apple's storefronts.
    case unknown(String)
    /// A plan of hers has not ended yet: the product, and when its period ends.
    case subscriptionRunning(productID: String, until: Date)

    public var description: String {
        switch self {
        case .unknown(let code):
            "\"\(code)\" names no storefront: use an alpha-3 country code Apple sells in (FRA, GBR, JPN, USA…)"
        case .subscriptionRunning(let productID, let until):
            "\(productID) has not ended: Apple changes an account's country or region only once its subscriptions end; cancel it and wait for its period's end (\(ISO8601DateFormatter().string(from: until)))"
        }
    }
}

/// What the app answers when the account's storefront changes while a payment waits: StoreKit 1's
/// `paymentQueue(_:shouldContinue:in:)`, whose answer is `true` when the app does not implement it.
/// Cancelled, the payment fails with storeProductNotAvailable; continued, it settles in the new
/// storefront, at its price there, or fails the same way where the product is not sold.
public enum StorefrontChangeChoice: String, Sendable, Codable, CaseIterable {
    case `continue`
    case cancel
}

public enum StorefrontChange {
    /// Nil when the account may move to `code` now; else why not. `plans` are the account's own.
    public static func refusal(to code: String, plans: [PlanState], now: Date) -> StorefrontRefusal? {
        guard Storefronts.country(code) != nil else { return .unknown(code) }
        let running = plans.filter { $0.phase(at: now) != .expired }.sorted { $0.productID < $1.productID }
        if let plan = running.first {
            let until = max(plan.expiresDate, plan.graceUntil ?? plan.expiresDate)
            return .subscriptionRunning(productID: plan.productID, until: until)
        }
        return nil
    }
}

// The words the screen and the command line share for the same facts: what a product row offers,
// what a transaction is doing, and why it failed. One spelling each, so that a label on the screen
// and in `storefront products` never disagree.
import Foundation

public enum Wording {
    /// An empty catalog (a new `.storekit` file): the screen's message and `products`' line.
    public static let noProducts = "No products yet."
    /// Under a failed product list (a simulated Load Products error, Q7).
    public static let retrying =
        "Trying again every second; clear it with E in the transaction manager or `storefront errors clear`."
    public static let noProductsAdvice =
        "This catalog has none; add some in Xcode's StoreKit editor or the catalog file."

    /// What a row offers, after its price: "Buy", "Subscribe", "✓ Subscribed". Nil where the label
    /// stands without a price.
    public static func verb(_ action: ProductAction) -> String {
        switch action {
        case .buy: "Buy"
        case .owned: "✓"
        case .subscribe: "Subscribe"
        case .renew: "Renew"
        case .signInRequired: "Sign in to subscribe"
        case .subscribed: "✓ Subscribed"
        case .resubscribe: "Resubscribe"
        case .scheduled: "Starts at renewal"
        case .upgrade: "Upgrade"
        case .downgrade: "Downgrade"
        case .crossgrade: "Switch"
        case .notSold: "Not sold in this storefront"
        }
    }

    /// Whether the label is shown after the price ("$0.99 Buy") or alone ("✓ Subscribed").
    public static func showsPrice(_ action: ProductAction) -> Bool {
        switch action {
        case .owned, .subscribed, .scheduled, .signInRequired, .notSold: false
        case .buy, .subscribe, .renew, .resubscribe, .upgrade, .downgrade, .crossgrade: true
        }
    }

    /// A row's action: "$0.99 Buy", "✓ Subscribed", or what its transaction in flight is doing.
    public static func action(_ action: ProductAction, price: String, pending: TransactionState? = nil) -> String {
        if let pending, let word = inFlight(pending) { return word }
        return showsPrice(action) ? "\(price) \(verb(action))" : verb(action)
    }

    /// A transaction still in flight, as a row or a pending list says it.
    public static func inFlight(_ state: TransactionState) -> String? {
        switch state {
        case .deferred: "Waiting for approval"
        case .interrupted: "Needs action"
        case .purchasing: "Purchasing…"
        case .purchased, .failed, .restored: nil
        }
    }

    /// A transaction's state for people: "Waiting for approval", "purchased".
    public static func state(_ state: TransactionState) -> String { inFlight(state) ?? state.rawValue }

    /// One step of a transaction as a log shows it, in Q1's words: "deferred", "failed: the
    /// payment was declined".
    public static func step(_ state: TransactionState, reason: FailureReason?) -> String {
        guard let reason else { return state.rawValue }
        return "\(state.rawValue): \(reason.explanation)"
    }

    /// Why a purchase failed: "declined: the request to buy was declined".
    public static func reason(_ reason: FailureReason?) -> String {
        guard let reason else { return "unknown: the store did not say why" }
        return "\(reason.rawValue): \(reason.explanation)"
    }

    /// A failed purchase, as the command line, the screen's banner and scenarios say it.
    public static func purchaseFailed(_ product: String, reason: FailureReason?) -> String {
        "purchase of \(product) failed (\(self.reason(reason)))"
    }

    /// A delayed outcome: "approves at 12:00:30".
    public static func due(approves: Bool, at time: String) -> String {
        "\(approves ? "approves" : "declines") at \(time)"
    }
}

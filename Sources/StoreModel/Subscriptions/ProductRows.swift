// What a reader sees of the store at a moment: a product's row and its action, the header's
// status, and the receipt as stored and as recomputed (A6).
import Foundation

public enum ProductAction: String, Sendable, Codable {
    case buy, owned, subscribe, renew, signInRequired
    /// Auto-renewable: the plan one has (auto-renew on), the plan one has with auto-renew off or a
    /// change pending, the plan a downgrade switches to, and moves within the group.
    case subscribed, resubscribe, scheduled, upgrade, downgrade, crossgrade
    /// F2: not sold in the storefront the catalog is seen in (nothing to buy there).
    case notSold
}

public struct ProductRow: Sendable, Equatable {
    public var product: Product
    public var action: ProductAction
    /// A transaction of this product still in flight (purchasing, deferred, interrupted).
    public var pending: TransactionState?
    public var pendingID: String?

    public init(product: Product, action: ProductAction, pending: TransactionState? = nil, pendingID: String? = nil) {
        self.product = product
        self.action = action
        self.pending = pending
        self.pendingID = pendingID
    }
}

public struct StoreStatus: Sendable, Equatable {
    public var user: String?
    public var device: String
    public var now: Date
    /// The non-renewing subscription's expiry (R5), and its whole days left.
    public var expiry: Date?
    /// Any active subscription gives access: the pass, or an auto-renewable plan (R6).
    public var isSubscribed: Bool
    /// The non-renewing pass is active: every comic, unlimited random views (R2, R7), Renew (R3).
    public var hasPass = false
    public var daysRemaining: Int
    /// Exactly the R6 text, and whether it speaks of an active subscription (its colour).
    public var header: String
    public var headerIsActive = false
    /// Comics bought (R1), in the order they arrived.
    public var owned: [String]
    /// Comics that can be viewed now: owned, or all of them while subscribed (R2).
    public var unlocked: [String]
    public var randomViewsRemaining: Int
    public var lastRandomComic: String?
    /// The account's auto-renewable plans, one per group.
    public var plans: [PlanStatus] = []
    /// What the active plans unlock, as the catalog names it.
    public var entitlements: [String] = []

    public init(
        user: String?, device: String, now: Date, expiry: Date?, isSubscribed: Bool, daysRemaining: Int, header: String,
        owned: [String], unlocked: [String], randomViewsRemaining: Int, lastRandomComic: String?,
        plans: [PlanStatus] = [],
        entitlements: [String] = []
    ) {
        self.user = user
        self.device = device
        self.now = now
        self.expiry = expiry
        self.isSubscribed = isSubscribed
        self.hasPass = isSubscribed
        self.daysRemaining = daysRemaining
        self.header = header
        self.headerIsActive = isSubscribed
        self.owned = owned
        self.unlocked = unlocked
        self.randomViewsRemaining = randomViewsRemaining
        self.lastRandomComic = lastRandomComic
        self.plans = plans
        self.entitlements = entitlements
    }
}

/// What the account server holds for an account, read at one moment.
public struct ReceiptState: Sendable, Equatable, Codable {
    public var entries: [ReceiptEntry]
    public var storedExpiry: Date?
    public var plans: [String: PlanState]
    public var planLines: [ReceiptEntry]

    public init(entries: [ReceiptEntry], storedExpiry: Date?, plans: [String: PlanState], planLines: [ReceiptEntry]) {
        self.entries = entries
        self.storedExpiry = storedExpiry
        self.plans = plans
        self.planLines = planLines
    }
}

public struct ReceiptReport: Sendable, Equatable {
    public var account: String
    public var entries: [ReceiptEntry]
    public var storedExpiry: Date?
    public var recomputedExpiry: Date?
    public var deviceExpiry: Date?
    /// Auto-renewable plans as stored and as the receipt's plan lines give them.
    public var storedPlans: [String: PlanState] = [:]
    public var recomputedPlans: [String: PlanState] = [:]

    /// A6 holds.
    public var isConsistent: Bool { storedExpiry == recomputedExpiry && storedPlans == recomputedPlans }

    package init(
        account: String, entries: [ReceiptEntry], storedExpiry: Date? = nil, recomputedExpiry: Date? = nil,
        deviceExpiry: Date? = nil, storedPlans: [String: PlanState] = [:], recomputedPlans: [String: PlanState] = [:]
    ) {
        self.account = account
        self.entries = entries
        self.storedExpiry = storedExpiry
        self.recomputedExpiry = recomputedExpiry
        self.deviceExpiry = deviceExpiry
        self.storedPlans = storedPlans
        self.recomputedPlans = recomputedPlans
    }
}

// What the signed-in account is entitled to on this device (R1–R4, R6, R7): the status the header
// and the command line show, the action each product row offers, and the receipt that proves it (A6).
import Foundation

public final class Entitlements: SessionRole {
    let session: DeviceSession
    private let plans: Plans
    /// O5: plans shared by the family's organizer.
    weak var family: FamilySharing?

    init(session: DeviceSession, plans: Plans) {
        self.session = session
        self.plans = plans
    }

    public func status() throws(StoreError) -> StoreStatus {
        let user = try currentUser()
        let profile = try device.profile(user ?? "")
        let now = now()
        let passActive = SubscriptionMath.isActive(expiry: profile.expiry, now: now)
        let comics = catalog.comics.map(\.id)
        // O5: a family member has the organizer's shared plans too.
        let plans =
            try user.map { account throws(StoreError) in
                try self.plans.planStatuses(account: account) + (try family?.sharedPlans(with: account) ?? [])
            } ?? []
        let entitlements = Array(Set(plans.flatMap(\.unlocks))).sorted()
        let allComics = passActive || entitlements.contains(AutoRenewTerms.allComics)
        // R6: "subscribed" is any active subscription that gives access. The header speaks for
        // the non-renewing pass; in a catalog that sells no pass, for the plan that gives access
        // longest.
        let plan = plans.filter(\.hasAccess).max { $0.accessUntil < $1.accessUntil }
        let sellsPass = catalog.products.contains { $0.kind == .nonRenewingSubscription }
        let headerExpiry = passActive || sellsPass ? profile.expiry : plan?.accessUntil
        var status = StoreStatus(
            user: user, device: session.deviceName, now: now, expiry: profile.expiry,
            isSubscribed: passActive || plan != nil,
            daysRemaining: SubscriptionMath.daysRemaining(expiry: profile.expiry, now: now, calendar: calendar),
            header: SubscriptionMath.header(expiry: headerExpiry, now: now, calendar: calendar),
            owned: profile.owned, unlocked: allComics ? comics : comics.filter(profile.owned.contains),
            randomViewsRemaining: profile.randomViews, lastRandomComic: profile.lastRandom, plans: plans,
            entitlements: entitlements
        )
        status.hasPass = passActive
        status.headerIsActive = SubscriptionMath.isActive(expiry: headerExpiry, now: now)
        return status
    }

    /// The catalog in order, each with the action its row offers now (R1–R4).
    public func productRows() throws(StoreError) -> [ProductRow] {
        try failIfSimulated(.loadProducts)
        let status = try status()
        let inFlight = try device.transactions(.inFlight(user: status.user ?? ""))
        // O6: plans at the prices the developer set (a catalog without plans asks nothing more).
        return try catalog.priced(by: priceBook).products.map { product in
            let action: ProductAction
            switch product.kind {
            case .nonConsumable:
                action = status.unlocked.contains(product.id) ? .owned : .buy
            case .consumable:
                action = .buy
            case .nonRenewingSubscription:
                action = status.user == nil ? .signInRequired : status.hasPass ? .renew : .subscribe
            case .autoRenewableSubscription:
                action =
                    status.user == nil
                    ? .signInRequired : Self.planAction(product, plans: status.plans, catalog: catalog)
            }
            let pending = inFlight.last { $0.productID == product.id }
            return ProductRow(product: product, action: action, pending: pending?.state, pendingID: pending?.id)
        }
    }

    // MARK: The receipt (A6)

    public func receipt() throws(StoreError) -> ReceiptReport {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        try plans.settle(account: user)
        // One read: another process (a second device, `storefront serve`) may be writing.
        let state = try ledger.receiptState(account: user)
        return ReceiptReport(
            account: user, entries: state.entries, storedExpiry: state.storedExpiry,
            recomputedExpiry: SubscriptionMath.recomputeExpiry(from: state.entries, calendar: calendar),
            deviceExpiry: try device.profile(user).expiry, storedPlans: state.plans,
            recomputedPlans: PlanState.replay(state.planLines)
        )
    }

    /// What an auto-renewable row offers, given the plan its group has.
    static func planAction(_ product: Product, plans: [PlanStatus], catalog: Catalog) -> ProductAction {
        guard let terms = product.autoRenew,
            let plan = plans.first(where: { $0.group == terms.group && ($0.hasAccess || $0.phase == .billingRetry) })
        else { return .subscribe }
        if plan.productID == product.id {
            return plan.autoRenew && plan.nextProductID == nil && plan.phase != .billingRetry
                ? .subscribed : .resubscribe
        }
        if plan.nextProductID == product.id { return .scheduled }
        guard let current = catalog.product(plan.productID)?.autoRenew else { return .upgrade }
        if terms.rank < current.rank { return .upgrade }
        if terms.rank > current.rank { return .downgrade }
        return .crossgrade
    }
}

public enum ProductAction: String, Sendable, Codable {
    case buy, owned, subscribe, renew, signInRequired
    /// Auto-renewable: the plan one has (auto-renew on), the plan one has with auto-renew off or a
    /// change pending, the plan a downgrade switches to, and moves within the group.
    case subscribed, resubscribe, scheduled, upgrade, downgrade, crossgrade
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
}

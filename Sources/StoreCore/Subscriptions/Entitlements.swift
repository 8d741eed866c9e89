// What the signed-in account is entitled to on this device (R1–R4, R6, R7): the status the header
// and the command line show, the action each product row offers, and the receipt that proves it (A6).
import Foundation
import StoreModel

public final class Entitlements: SessionRole {
    let session: DeviceSession
    private let plans: Plans
    /// O5: plans shared by the family's organizer.
    let family: FamilySharing

    init(session: DeviceSession, plans: Plans, family: FamilySharing) {
        self.session = session
        self.plans = plans
        self.family = family
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
                try self.plans.planStatuses(account: account) + (try family.sharedPlans(with: account))
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
        return try session.catalog.priced(by: priceBook).products.map { product in
            var action: ProductAction
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
            // F2: what is not sold here offers nothing to buy; what one has stays shown as had.
            if !product.soldHere, ![.owned, .subscribed, .scheduled].contains(action) { action = .notSold }
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

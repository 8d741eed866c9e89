// Auto-renewable subscriptions through the store: plans advance as the clock passes their period
// ends (whenever the store acts, and in `recover()`), and people act on them by product. The rules
// themselves are `AutoRenewal`'s; this role applies them to the account server's plans.
import Foundation
import StoreModel

public final class Plans: SessionRole {
    let session: DeviceSession
    /// Auto-renewable periods as the App Store sandbox times them, at this many store seconds per
    /// real second; nil follows the clock (sandbox periods under `clock rate sandbox` only).
    public var sandboxRateOverride: Double?

    init(session: DeviceSession) { self.session = session }

    /// The renewal rules as the state folder is set now: billing, grace, and the sandbox's periods
    /// under `clock rate sandbox` (calendar periods at every other rate).
    /// The plan rules, with `account`'s products at their prices in its storefront (F3); nil: the
    /// catalog's own storefront.
    func autoRenewal(account: String? = nil) throws(StoreError) -> AutoRenewal {
        let clockSetting = try sharedSettings.clockSetting()
        let rate = sandboxRateOverride ?? clockSetting.sandboxTableRate
        // O6: products at the prices the developer set since the catalog was written.
        let changes = try priceBook.priceChanges()
        let sold = try account.map { account throws(StoreError) in try storefront(of: account) }
        let priced = session.catalog(in: sold ?? session.homeCatalog.storefront).priced(by: changes)
        var rules = AutoRenewal(
            calendar: calendar, sandboxRate: rate, billing: try sharedSettings.billingSetting(),
            product: { priced.product($0) }
        )
        rules.priceChanges = Dictionary(changes.map { ($0.key, $0) }) { _, last in last }
        return rules
    }

    // MARK: Price changes (O6)

    /// Sets a new price for a billing plan of an auto-renewable subscription (the price billed up
    /// front, or the monthly plan's): new purchases and renewals on it pay it; an increase is told
    /// to every subscriber who renews on that billing plan (and needs their consent when
    /// `consentRequired`). Returns the change and how many plans were told.
    public func setPrice(
        _ price: Decimal, of productID: String, billingPlan: BillingPlan = .billedUpfront, consentRequired: Bool
    ) throws(StoreError) -> (change: PriceChange, told: Int) {
        let product = try catalog.require(productID)
        guard product.autoRenew != nil else {
            throw StoreError.planRefused(.priceOfNonPlan(productID: product.id, kind: product.kind))
        }
        guard price >= 0 else { throw StoreError.planRefused(.negativePrice) }
        let current = try autoRenewal().product(productID) ?? product
        let previous: Decimal
        switch billingPlan {
        case .billedUpfront: previous = current.price
        case .monthly:
            guard let monthly = current.autoRenew?.monthlyCommitmentPrice else {
                throw StoreError.planRefused(.noMonthlyCommitment(productID: product.id))
            }
            previous = monthly
        }
        let change = PriceChange(
            productID: productID, billingPlan: billingPlan, price: price, previous: previous,
            consentRequired: consentRequired, at: now())
        try settleAll()
        try priceBook.setPriceChange(change)
        try crashPoint(.priceChanged)
        var told = 0
        for account in try planBook.accountsWithPlans() {
            told += try settle(account: account).filter { $0.event == .priceIncrease && $0.until == change.at }.count
        }
        return (change, told)
    }

    /// The prices set since the catalog was written.
    public func priceChanges() throws(StoreError) -> [PriceChange] { try priceBook.priceChanges() }

    /// O6: the signed-in subscriber agrees to (or declines) the price increase of the plan of
    /// `productID`'s group, as StoreKit's price consent sheet lets them.
    public func answerPriceIncrease(of productID: String, accept: Bool) throws(StoreError) -> PlanStatus {
        try act(.answerPriceIncrease(accept: accept), on: productID)
    }

    func lineContext(account: String, device: String? = nil) -> AutoRenewal.LineContext {
        AutoRenewal.LineContext(
            account: account, device: device ?? session.deviceName,
            makeID: { [session] in session.makeTransactionID() })
    }

    /// Writes every renewal, billing failure and expiry the clock has passed for `account`. On a
    /// team, the server writes them (W9): the device only sees that something is due, and asks.
    @discardableResult
    public func settle(account: String) throws(StoreError) -> [ReceiptEntry] {
        // Read first: a screen tick with no plan, or nothing due, writes nothing (and an account
        // without plans reads nothing more).
        let stored = try planBook.plans(account: account)
        guard !stored.isEmpty else { return [] }
        let rules = try autoRenewal()
        let now = now()
        let context = lineContext(account: account)
        func due(_ plans: [String: PlanState], by rules: AutoRenewal) -> [ReceiptEntry] {
            plans.keys.sorted().flatMap { rules.advance(plans[$0]!, to: now, context: context) }
        }
        guard !due(stored, by: rules).isEmpty else {
            try noteTimedNotifications(account: account, plans: stored, now: now)
            return []
        }
        if let team = keeper.team { return try team.settlePlans(account: account) }
        // What is due is a matter of dates; what it costs, of the account's storefront.
        let sold = try autoRenewal(account: account)
        let lines = try writePlans(account: account, attempt: .settle) { plans, _ in due(plans, by: sold) }
        if !lines.isEmpty { try crashPoint(.renewalsRecorded) }
        try noteTimedNotifications(account: account, plans: try planBook.plans(account: account), now: now)
        return lines
    }

    /// N1: what the clock's passing means without a line (a cancelled plan's end, a grace period
    /// running out), told once each.
    private func noteTimedNotifications(account: String, plans: [String: PlanState], now: Date) throws(StoreError) {
        var fresh: [ServerNotification] = []
        for notification in NotificationRules.timed(plans, account: account, now: now)
        where !(try outbox.hasNotification(key: notification.key)) {
            fresh.append(notification)
        }
        try outbox.enqueue(fresh)
    }

    /// `ServerDatabase.updatePlans` with its errors as the store reports them.
    @discardableResult
    func writePlans(
        account: String, attempt: PlanAttempt,
        _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
    ) throws(StoreError) -> [ReceiptEntry] {
        // F3: every line keeps the storefront the account buys in (none in the catalog's own). It
        // cannot change while a plan runs, so a plan's periods all keep the one they began in.
        let code = try storefront(of: account)
        let away = code == session.homeCatalog.storefront ? nil : code
        do {
            return try withoutActuallyEscaping(body) { body in
                try planBook.updatePlans(account: account) { plans, receipt in
                    try body(plans, receipt).map { line in
                        var line = line
                        if line.storefront == nil { line.storefront = away }
                        return line
                    }
                }
            }
        } catch let refusal as AutoRenewal.Refusal {
            throw StoreError.planRefused(.ruleRefused(refusal, attempt: attempt))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(path: session.server.location, reason: "\(error)")
        }
    }

    /// The storefront `account` buys in now, as the App Store reads it to write its plan lines.
    func storefront(of account: String) throws(StoreError) -> String {
        try session.storefront(of: account, fresh: true)
    }

    /// Settles every account's plans under the current settings, before a setting changes.
    public func settleAll() throws(StoreError) {
        for account in try planBook.accountsWithPlans() { try settle(account: account) }
    }

    /// The signed-in account's plans, one per subscription group it ever subscribed in.
    public func subscriptions() throws(StoreError) -> [PlanStatus] {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        // Q7: reading plans is Subscription Status (`Product.SubscriptionInfo.status`).
        try failIfSimulated(.subscriptionStatus)
        try settle(account: user)
        return try planStatuses(account: user)
    }

    func planStatuses(account: String) throws(StoreError) -> [PlanStatus] {
        let plans = try planBook.plans(account: account)
        let now = now()
        return plans.keys.sorted().map { PlanStatus(plans[$0]!, catalog: catalog, now: now) }
    }

    /// Starts, upgrades or schedules a change of plan for a purchase whose payment was taken at `at`
    /// (`Checkout.settle`, where the records are kept). `recorded`: the transaction is on the
    /// receipt already (recovery after a crash, a retry after a lost answer), so it adds nothing.
    func startPlan(_ ask: PurchaseAsk, product: Product, at: Date, recorded: Bool) throws(StoreError) {
        guard let group = product.autoRenew?.group else { return }
        let rules = try autoRenewal(account: ask.account)
        let context = lineContext(account: ask.account, device: ask.device)
        try writePlans(account: ask.account, attempt: .subscribe) { plans, _ in
            var state = plans[group]
            // Periods that ended before the purchase renew (or fail) first, each at its date.
            let settled = state.map { rules.advance($0, to: at, context: context) } ?? []
            for line in settled { state = PlanState.apply(state, line) }
            if recorded { return settled }
            let offer = ask.offer.flatMap { product.autoRenew?.offer($0.id, type: $0.type) }
            // At the price set now (O6), if the developer changed it.
            let priced = rules.product(product.id) ?? product
            let bought = rules.subscribe(
                priced, state: state, at: at, transactionID: ask.transactionID, context: context, offer: offer,
                billingPlan: ask.billingPlan, introductoryOffer: ask.introductoryOffer
            )
            // M3: the purchase carries the app's account token.
            return settled
                + bought.map { line in
                    var line = line
                    if line.transactionID == ask.transactionID { line.appAccountToken = ask.appAccountToken }
                    return line
                }
        }
    }

    /// Refuses a new purchase of the plan one already has (with auto-renew on).
    /// Buying the plan one has and renews as it is refuses; choosing another billing plan for it
    /// (M4) is a change, not a refusal.
    func checkNotSubscribed(_ product: Product, account: String, billingPlan: BillingPlan? = nil) throws(StoreError) {
        guard let group = product.autoRenew?.group else { return }
        try settle(account: account)
        guard let state = try planBook.plans(account: account)[group], state.productID == product.id,
            state.hasAccess(at: now()), state.willRenew, state.nextProductID == nil,
            billingPlan.map({ $0 == state.renewingBillingPlan }) ?? true
        else { return }
        throw StoreError.alreadySubscribed(productID: product.id)
    }

    // MARK: Actions on a plan, by any product of its group

    /// Cancels, turns back on, expires or renews now the plan of `productID`'s group.
    public func perform(_ action: PlanAction, on productID: String) throws(StoreError) -> PlanStatus {
        // Q7: cancelling and turning renewal back on is what the Manage Subscriptions sheet does;
        // expiring and renewing now are the test session's own controls.
        if action == .cancel || action == .renewOn { try failIfSimulated(.manageSubscriptionsSheet) }
        return try act(.perform(action), on: productID)
    }

    /// The account's plan of `productID`'s subscription group; nil when it has none there (or the
    /// product is not auto-renewable).
    public func plan(of productID: String) throws(StoreError) -> PlanStatus? {
        guard let group = catalog.product(productID)?.autoRenew?.group else { return nil }
        return try subscriptions().first { $0.group == group }
    }

    /// Refunds what pays for the current period of the plan of `productID`'s group.
    public func refundCurrentPeriod(of productID: String) throws(StoreError) -> PlanStatus {
        _ = try catalog.require(productID)
        guard let plan = try plan(of: productID) else {
            throw StoreError.planRefused(.noPlanToRefund(productID: productID))
        }
        return try refund(plan.transactionID)
    }

    /// Refunds a plan purchase or renewal by its receipt id (or a unique prefix of 4+ characters).
    public func refund(_ id: String) throws(StoreError) -> PlanStatus {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        // Q7: a refund is asked for through the Refund Request sheet.
        try failIfSimulated(.refundRequestSheet)
        return try withDeviceLock { () throws(StoreError) -> PlanStatus in
            try settle(account: user)
            let lines = try planBook.planLines(account: user)
            guard let line = try ReceiptEntry.named(id, in: lines) else {
                throw StoreError.unknownPlanTransaction(id, account: user)
            }
            let rules = try autoRenewal(account: user)
            let now = now()
            let group = line.group ?? ""
            try writePlans(account: user, attempt: .refund(transactionID: line.transactionID)) { plans, receipt in
                try rules.refund(
                    line, state: plans[group], receipt: try receipt(), at: now, context: lineContext(account: user))
            }
            guard let state = try planBook.plans(account: user)[group] else { throw StoreError.planRefused(.noPlan) }
            return PlanStatus(state, catalog: catalog, now: now)
        }
    }

    /// The signed-in account's action on the plan of `productID`'s group: applied here, or by the
    /// team's server (W9).
    private func act(_ action: PlanAsk.Action, on productID: String) throws(StoreError) -> PlanStatus {
        let product = try plan(ofProduct: productID).product
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        let ask = PlanAsk(account: user, productID: product.id, device: session.deviceName, action: action)
        return try withDeviceLock { () throws(StoreError) -> PlanStatus in
            let state: PlanState
            if let team = keeper.team { state = try team.actOnPlan(ask) } else { state = try apply(ask) }
            return PlanStatus(state, catalog: catalog, now: now())
        }
    }
}

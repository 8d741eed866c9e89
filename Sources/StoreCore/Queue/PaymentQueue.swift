// The mock payment queue (Q1–Q5): adding payments, the outcome policy, decisions on pending
// ones, delivery and finishing, restore, the device's transactions, and recovery of what a crash
// left behind.
//
// Durability order for a purchase by an account: the receipt entry on the server (keyed by the
// transaction id, so writing it twice is harmless), then the device's `purchased` state, then
// delivery and `finished` in one device transaction. Any crash leaves a state that `recover()`
// completes: delivery is idempotent per transaction (Q3).
import Foundation

public final class PaymentQueue: SessionRole {
    let session: DeviceSession
    private let plans: Plans
    private let offers: Offers
    /// O7: a refund request this device left waiting for its policy (a crash) is answered at start.
    weak var refunds: Refunds?
    /// O5: a family's shares are put right at start and after the organizer buys.
    weak var family: FamilySharing?
    /// Overrides the device's policy for purchases made through this queue (`--outcome`).
    public var outcomeOverride: PurchaseOutcome?

    init(session: DeviceSession, plans: Plans, offers: Offers) {
        self.session = session
        self.plans = plans
        self.offers = offers
    }

    // MARK: Observers (Q2)

    /// `handler` sees every state change from now on, in order, including those other processes
    /// make on this device (delivered when this store next acts or `publishEvents()` is called).
    public func observe(_ handler: @escaping (TransactionEvent) -> Void) { session.observe(handler) }

    /// Hands observers the events they have not seen yet.
    public func publishEvents() throws(StoreError) { try session.publishEvents() }

    /// The device's last `limit` state changes, oldest first: what a log shows of the past.
    public func recentEvents(limit: Int) throws(StoreError) -> [TransactionEvent] {
        try device.recentEvents(limit: limit)
    }

    // MARK: Policy (Q4)

    public func policy() throws(StoreError) -> PurchaseOutcome {
        try device.policy() ?? catalog.defaultPolicy
    }

    public func setPolicy(_ policy: PurchaseOutcome) throws(StoreError) {
        try device.setSetting(.policy, policy)
    }

    // MARK: Transactions

    /// Every transaction of the current profile on this device, oldest first.
    public func history() throws(StoreError) -> [StoreTransaction] {
        try device.transactions(.profile(try session.profileKey))
    }

    /// Deferred and interrupted transactions of the current profile.
    public func pending() throws(StoreError) -> [StoreTransaction] {
        try device.transactions(.waiting(user: try session.profileKey))
    }

    /// Purchases waiting for a delayed outcome.
    public func delayed() throws(StoreError) -> [StoreTransaction] {
        try device.transactions(.delayed(user: try session.profileKey))
    }

    /// Finds a transaction by its id or a unique prefix of it.
    public func transaction(_ id: String) throws(StoreError) -> StoreTransaction {
        if let exact = try device.transaction(id: id) { return exact }
        let matches = id.count >= 4 ? try device.transactionIDs(matching: id) : []
        if matches.count == 1, let found = try device.transaction(id: matches[0]) { return found }
        if matches.count > 1 { throw StoreError.ambiguousTransaction(id, matches: matches) }
        throw StoreError.unknownTransaction(id)
    }

    // MARK: Payments

    /// Adds a payment for `productID` and runs the queue as far as the outcome allows.
    /// `introductoryOfferEligibility` is StoreKit's `.introductoryOfferEligibility(compactJWS:)`.
    @discardableResult
    public func buy(
        _ productID: String, outcome: PurchaseOutcome? = nil, offer: PromotionalOfferRequest? = nil,
        winBackOffer: String? = nil,
        appAccountToken: UUID? = nil, billingPlan: BillingPlan? = nil, introductoryOfferEligibility: String? = nil
    ) throws(StoreError) -> StoreTransaction {
        let product = try catalog.require(productID)
        // Monthly with a 12-month commitment: only a one-year plan that offers it. An offer is
        // configured on one billing plan (as App Store Connect configures it) and used with it.
        let monthly = billingPlan == .monthly
        if monthly, product.autoRenew?.monthlyCommitmentPrice == nil {
            throw StoreError.planRefused(.noMonthlyCommitment(productID: product.id))
        }
        if !monthly, product.autoRenew?.soldUpfront == false {
            throw StoreError.planRefused(.notSoldUpfront(productID: product.id))
        }
        let named = offer.map { ($0.offerID, OfferType.promotional) } ?? winBackOffer.map { ($0, .winBack) }
        if let (id, type) = named, let configured = product.autoRenew?.offer(id, type: type),
            configured.billingPlan != (billingPlan ?? .billedUpfront)
        {
            throw StoreError.planRefused(.offerOnAnotherPlan(offerID: id, plan: configured.billingPlan))
        }
        return try purchase(
            product, outcome: outcome, appAccountToken: appAccountToken, billingPlan: billingPlan,
            introductoryOfferEligibility: introductoryOfferEligibility
        ) { user throws(StoreError) in
            // O4: a win-back offer is the App Store's to grant.
            if let winBackOffer { return try offers.redeemWinBack(winBackOffer, product: product, account: user) }
            // O2: an offer is checked before any payment, and its nonce taken.
            return try offer.map { request throws(StoreError) in
                try offers.redeemPromotional(request, product: product, account: user)
            }
        }
    }

    /// O3: redeems an offer code, as the offer code redemption sheet does: a purchase of the
    /// code's product on its offer, once per one-time code.
    @discardableResult
    public func redeem(code: String, outcome: PurchaseOutcome? = nil) throws(StoreError) -> StoreTransaction {
        let (found, product) = try offers.lookUp(code: code)
        // A code of the monthly plan's offer buys the monthly plan.
        let plan = product.autoRenew?.offer(found.offerID, type: .code)?.billingPlan
        return try purchase(product, outcome: outcome, billingPlan: plan == .monthly ? .monthly : nil) {
            user throws(StoreError) in
            try offers.redeem(found, product: product, account: user)
        }
    }

    /// A purchase of `product`; `redeem` checks and takes the offer it is made with, if any, and
    /// the introductory offer's eligibility JWS is checked and its nonce taken, under the device
    /// lock and before any payment.
    private func purchase(
        _ product: Product, outcome: PurchaseOutcome?, appAccountToken: UUID? = nil, billingPlan: BillingPlan? = nil,
        introductoryOfferEligibility: String? = nil, redeem: (_ user: String?) throws(StoreError) -> OfferRedemption?
    ) throws(StoreError) -> StoreTransaction {
        // Q7: a simulated Purchase error fails the purchase as StoreKit 2's purchase() throws:
        // before any transaction exists. The errors are read once for the whole purchase (one
        // call to a remote account server, not two).
        let errors = try session.simulatedErrors()
        try errors.failIfSet(.purchase)
        return try withDeviceLock { () throws(StoreError) -> StoreTransaction in
            let user = try currentUser()
            if product.isSubscription, user == nil { throw StoreError.signInRequired(productID: product.id) }
            if product.kind == .nonRenewingSubscription, !product.hasDuration {
                throw StoreError.unknownDuration(productID: product.id)
            }
            if product.kind == .nonConsumable, try device.profile(user ?? "").owned.contains(product.id) {
                throw StoreError.alreadyOwned(productID: product.id)
            }
            let redemption = try redeem(user)
            if product.kind == .autoRenewableSubscription, let user, redemption == nil {
                try plans.checkNotSubscribed(product, account: user, billingPlan: billingPlan)
            }
            // After the checks a purchase can fail by, so that a refused one leaves the JWS unused.
            let introductoryOffer = try introductoryOfferEligibility.map { token throws(StoreError) in
                try offers.introductoryOfferEligibility(token, product: product, account: user)
            }
            let chosen = outcome ?? outcomeOverride
            let outcome = if let chosen { chosen } else { try policy() }
            let now = now()
            var transaction = StoreTransaction(
                id: session.makeTransactionID(), user: user, productID: product.id, kind: product.kind,
                quantity: product.quantity, months: product.months, days: product.days,
                bonusDays: product.kind == .nonRenewingSubscription ? catalog.bonusDays : 0, state: .purchasing,
                reason: nil,
                createdAt: now, purchaseDate: nil, dueAt: nil, dueApproves: nil, isFinished: false,
                originalID: nil, steps: []
            )
            transaction.verificationError = errors[.verification]?.description
            transaction.offer = redemption
            transaction.appAccountToken = appAccountToken?.uuidString.lowercased()
            transaction.billingPlan = billingPlan
            transaction.introductoryOffer = introductoryOffer
            if case .delayed(let after, let approve) = outcome {
                transaction.dueAt = after.added(to: now, calendar: calendar).wholeSeconds
                transaction.dueApproves = approve
            }
            let added = transaction
            try device.insert(added)
            try crashPoint(.purchaseRecorded)
            switch outcome {
            case .approve:
                try settlePurchased(transaction.id, at: now)
            case .defer:
                try device.setState(transaction.id, .deferred, at: now)
                try crashPoint(.purchaseWaiting)
            case .interrupt:
                try device.setState(transaction.id, .interrupted, at: now)
                try crashPoint(.purchaseWaiting)
            case .fail(let reason):
                try device.setState(transaction.id, .failed, reason: reason, at: now, finished: true)
            case .delayed:
                // Stays `purchasing`; `recover()` settles it once the clock passes its due time.
                try settleDueTransactions()
            }
            return try self.transaction(transaction.id)
        }
    }

    /// Completes whatever an earlier run left undone, and fires delayed outcomes that are due.
    /// Run at every start (Q3) and on every tick of the screen (Q5).
    @discardableResult
    public func recover() throws(StoreError) -> RecoveryReport {
        try withDeviceLock { () throws(StoreError) -> RecoveryReport in
            var report = RecoveryReport()
            // A purchase the server recorded but whose device state was not written yet.
            let undecided = try device.transactions(.open)
            for transaction in undecided where transaction.user != nil {
                if try ledger.hasReceiptEntry(transactionID: transaction.id) {
                    try markPurchased(transaction.id, at: transaction.dueAt ?? now())
                    report.reconciled.append(transaction.id)
                }
            }
            // Under the device lock no other process is mid-purchase, so a `purchasing` one with
            // no due time was cut off before the store answered: no payment was taken.
            let orphans = try device.transactions(.orphaned)
            for orphan in orphans {
                try device.setState(orphan.id, .failed, reason: .network, at: now(), finished: true)
                report.abandoned.append(orphan.id)
            }
            report.settled = try settleDueTransactions()
            report.redelivered = try deliverUnfinished()
            if let user = try currentUser() {
                report.renewals = try plans.settle(account: user).map(\.transactionID)
                try family?.reconcileFamilyIfReachable(of: user)
                report.received = try receiveRenewals(account: user)
                try refunds?.applyPolicy()
            }
            return report
        }
    }

    /// Settles delayed purchases whose due time the clock has passed, each at its due time.
    @discardableResult
    func settleDueTransactions() throws(StoreError) -> [String] {
        let due = try device.transactions(.due(by: now()))
        for transaction in due {
            let at = transaction.dueAt ?? now()
            if transaction.dueApproves == true {
                try settlePurchased(transaction.id, at: at)
            } else {
                try device.setState(transaction.id, .failed, reason: .declined, at: at, finished: true)
            }
        }
        return due.map(\.id)
    }

    /// Q6: every renewal on the account's receipt reaches this device once, as a transaction of
    /// its own (the renewal line's id, the first purchase's original id), purchased, then
    /// delivered and finished. A crash in between leaves it unfinished: the next start finishes it.
    private func receiveRenewals(account: String) throws(StoreError) -> [String] {
        // Q6: only the plan lines recorded since this device last looked (lines are only added);
        // a device that has never looked reads them all.
        let cursor = DeviceSetting.planLinesSeen(account)
        let seen = try device.setting(cursor) ?? 0
        let lines = try planBook.planLines(account: account, from: seen)
        guard !lines.isEmpty else { return [] }
        let renewals = lines.filter { $0.event == .renewal || $0.event == .familyShare }
        let known = try device.known(renewals.map(\.transactionID))
        let verification = try session.simulatedErrors()[.verification]?.description
        var arriving: [StoreTransaction] = []
        for line in renewals where !known.contains(line.transactionID) {
            var transaction = StoreTransaction(
                id: line.transactionID, user: account, productID: line.productID, kind: line.kind,
                quantity: 0, months: 0, bonusDays: 0, state: .purchased, reason: nil, createdAt: line.purchaseDate,
                purchaseDate: line.purchaseDate, dueAt: nil, dueApproves: nil, isFinished: false,
                originalID: line.reference, steps: []
            )
            transaction.verificationError = verification
            transaction.arrival = line.event == .familyShare ? .familyShare : .renewal
            arriving.append(transaction)
        }
        let received = try device.receive(arriving)
        if !received.isEmpty {
            try session.publishEvents()
            try crashPoint(.renewalsReceived)
            for id in received { try deliver(id) }
        }
        // O7: a refunded comic is taken back on this device; a reversed refund gives it back.
        // O5: so is a comic whose family share was revoked (the share itself arrived above, as a
        // transaction). After the arrivals, in the order recorded.
        for line in lines where line.kind == .nonConsumable && line.isRevocation && line.event != .familyShare {
            try device.setOwned(
                line.productID, user: account, transactionID: line.reference ?? "", owned: line.event == .refundReversed
            )
        }
        // Moved on only once what it read is on the device: a crash before reads the lines again,
        // and those already received are known.
        try device.setSetting(cursor, seen + lines.count)
        return received
    }

    private func deliverUnfinished() throws(StoreError) -> [String] {
        let unfinished = try device.transactions(.undelivered)
        for transaction in unfinished { try deliver(transaction.id) }
        return unfinished.map(\.id)
    }

    /// Payment taken: record it on the receipt, mark it purchased, then deliver and finish.
    func settlePurchased(_ id: String, at date: Date) throws(StoreError) {
        let transaction = try self.transaction(id)
        do throws(StoreError) {
            if let user = transaction.user, transaction.kind == .autoRenewableSubscription {
                try plans.startPlan(transaction, account: user, at: date)
            } else if let user = transaction.user {
                let entry = ReceiptEntry(
                    transactionID: transaction.id, account: user, productID: transaction.productID,
                    kind: transaction.kind, quantity: transaction.quantity, months: transaction.months,
                    days: transaction.days,
                    bonusDays: transaction.bonusDays, purchaseDate: date, device: session.deviceName,
                    appAccountToken: transaction.appAccountToken
                )
                try ledger.record(entry, calendar: calendar)
            }
        } catch {
            // A team's server that does not sell the product (started with another catalog)
            // recorded nothing: no payment was taken, and the purchase fails as StoreKit's does
            // for a product the store does not have, instead of waiting for recovery.
            if case .notSoldByServer = error {
                try device.setState(id, .failed, reason: .productUnavailable, at: date, finished: true)
            }
            throw error
        }
        // W10: a comic the account already owned (bought on another device, even in a race) is not
        // charged again: nothing new is on the receipt, and this transaction is delivered with that
        // purchase as its original, as StoreKit does.
        var original: String?
        if let user = transaction.user, transaction.kind == .nonConsumable,
            let owner = try ledger.ownedProducts(account: user).first(where: { $0.productID == transaction.productID })?
                .transactionID,
            owner != transaction.id
        {
            original = owner
        }
        if transaction.user != nil { try crashPoint(.paymentRecorded) }
        // O5: a family-shareable purchase of an organizer reaches the family.
        if let user = transaction.user, catalog.product(transaction.productID)?.isFamilyShareable == true {
            try family?.reconcileFamilyIfReachable(of: user)
        }
        try markPurchased(id, at: date, originalID: original)
        try session.publishEvents()
        try crashPoint(.purchaseMarked)
        try deliver(id)
        try crashPoint(.purchaseDelivered)
    }

    private func markPurchased(_ id: String, at date: Date, originalID: String? = nil) throws(StoreError) {
        try device.setState(id, .purchased, at: date, purchaseDate: date, originalID: originalID)
    }

    /// Delivers a purchased or restored transaction's content and finishes it, exactly once (Q3).
    func deliver(_ id: String) throws(StoreError) {
        guard let transaction = try device.transaction(id: id), !transaction.isFinished,
            transaction.state.deliversContent
        else { return }
        // A4: the device takes the later of its own and the server's expiry.
        let serverExpiry =
            transaction.kind == .nonRenewingSubscription && transaction.user != nil
            ? try ledger.storedExpiry(account: transaction.user ?? "") : nil
        try device.deliver(id, serverExpiry: serverExpiry)
    }
}

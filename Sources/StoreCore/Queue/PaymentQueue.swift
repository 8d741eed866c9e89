// The mock payment queue (Q1–Q5): adding payments, the outcome policy, decisions on pending
// ones, delivery and finishing, restore, the device's transactions, and recovery of what a crash
// left behind.
//
// Durability order for a purchase by an account: the receipt entry on the server (keyed by the
// transaction id, so writing it twice is harmless), then the device's `purchased` state, then
// delivery and `finished` in one device transaction. Any crash leaves a state that `recover()`
// completes: delivery is idempotent per transaction (Q3).
import Foundation
import StoreModel

public final class PaymentQueue: SessionRole {
    let session: DeviceSession
    private let plans: Plans
    private let offers: Offers
    let checkout: Checkout
    /// O7: a refund request this device left waiting for its policy (a crash) is answered at start.
    let refunds: Refunds
    /// O5: a family's shares are put right at start and after the organizer buys.
    let family: FamilySharing
    /// Overrides the device's policy for purchases made through this queue (`--outcome`).
    public var outcomeOverride: PurchaseOutcome?
    /// F3: the app's answer, for payments added through this queue, if the account's storefront
    /// changes before they settle (`--on-storefront-change`).
    public var onStorefrontChange: StorefrontChangeChoice = .continue

    init(
        session: DeviceSession, plans: Plans, offers: Offers, checkout: Checkout, refunds: Refunds,
        family: FamilySharing
    ) {
        self.session = session
        self.plans = plans
        self.offers = offers
        self.checkout = checkout
        self.refunds = refunds
        self.family = family
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

    /// The outcome the next purchases get: this device's own policy, or on a team the one the
    /// developer set for every customer (the server decides, W9).
    public func policy() throws(StoreError) -> PurchaseOutcome {
        if keeper.team != nil { return try session.server.paymentPolicy() ?? catalog.defaultPolicy }
        return try device.policy() ?? catalog.defaultPolicy
    }

    /// On a team only the developer sets it, for every customer's payments.
    public func setPolicy(_ policy: PurchaseOutcome) throws(StoreError) {
        if let team = keeper.team {
            guard team.isDeveloper else {
                throw StoreError.developerOnly(server: team.location, action: "set the payment outcome policy")
            }
            try session.server.setPaymentPolicy(policy)
            return
        }
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
        // As the account sees it: its storefront's price and availability (F3).
        let product = try session.catalog.require(productID)
        // Said before anything is asked; the App Store holds the purchase to the same rules.
        let named =
            offer.map { OfferRedemption(type: .promotional, id: $0.offerID) }
            ?? winBackOffer.map { OfferRedemption(type: .winBack, id: $0) }
        try Checkout.checkPlan(product, billingPlan: billingPlan, offer: named, storefront: session.catalog.storefront)
        return try purchase(
            product, outcome: outcome, appAccountToken: appAccountToken, billingPlan: billingPlan,
            offers: OfferAsk(
                productID: product.id, promotional: offer, winBackOfferID: winBackOffer,
                introductoryOfferEligibility: introductoryOfferEligibility))
    }

    /// O3: redeems an offer code, as the offer code redemption sheet does: a purchase of the
    /// code's product on its offer, once per one-time code.
    @discardableResult
    public func redeem(code: String, outcome: PurchaseOutcome? = nil) throws(StoreError) -> StoreTransaction {
        let (found, product) = try offers.lookUp(code: code)
        try Checkout.checkSold(
            session.catalog.product(product.id) ?? product, in: session.catalog.storefront)
        // A code of the monthly plan's offer buys the monthly plan.
        let plan = product.autoRenew?.offer(found.offerID, type: .code)?.billingPlan
        return try purchase(
            product, outcome: outcome, billingPlan: plan == .monthly ? .monthly : nil,
            offers: OfferAsk(productID: product.id, code: found.code))
    }

    /// A purchase of `product` with the offers `offers` names: the App Store grants them (checks
    /// them and takes their uses) under the device lock and before any payment, for the
    /// transaction made for the purchase.
    private func purchase(
        _ product: Product, outcome: PurchaseOutcome?, appAccountToken: UUID? = nil, billingPlan: BillingPlan? = nil,
        offers ask: OfferAsk
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
            let id = session.makeTransactionID()
            var grant = OfferGrant()
            if ask.asksAnything {
                guard let user else { throw StoreError.signInRequired(productID: product.id) }
                if !ask.namesOffer, product.kind == .autoRenewableSubscription {
                    try plans.checkNotSubscribed(product, account: user, billingPlan: billingPlan)
                }
                var ask = ask
                ask.transactionID = id
                ask.account = user
                grant = try checkout.grant(ask)
            } else if product.kind == .autoRenewableSubscription, let user {
                try plans.checkNotSubscribed(product, account: user, billingPlan: billingPlan)
            }
            let chosen = try chosenOutcome(outcome ?? outcomeOverride)
            let now = now()
            var transaction = StoreTransaction(
                id: id, user: user, productID: product.id, kind: product.kind,
                quantity: product.quantity, months: product.months, days: product.days,
                bonusDays: product.kind == .nonRenewingSubscription ? catalog.bonusDays : 0, state: .purchasing,
                reason: nil,
                createdAt: now, purchaseDate: nil, dueAt: nil, dueApproves: nil, isFinished: false,
                originalID: nil, steps: []
            )
            transaction.verificationError = errors[.verification]?.description
            transaction.offer = grant.offer
            transaction.appAccountToken = appAccountToken?.uuidString.lowercased()
            transaction.billingPlan = billingPlan
            transaction.introductoryOffer = grant.introductoryOffer
            if user != nil {
                transaction.storefront = session.catalog.storefront
                transaction.onStorefrontChange = onStorefrontChange == .cancel ? .cancel : nil
            }
            let added = transaction
            try device.insert(added)
            try crashPoint(.purchaseRecorded)
            // A team's server that does not sell the product (started with another catalog)
            // decides nothing: the purchase fails as StoreKit's does for a product the store does
            // not have, and says so.
            let decision: PaymentDecision
            do throws(StoreError) {
                decision = try decide(added, chosen: chosen, at: now)
            } catch {
                if case .notSoldByServer = error {
                    try device.setState(id, .failed, reason: .productUnavailable, at: now, finished: true)
                }
                throw error
            }
            switch decision.outcome {
            case .approve:
                try settlePurchased(transaction.id, at: now, settled: decision.settled)
            case .defer:
                try device.setState(transaction.id, .deferred, at: now)
                try crashPoint(.purchaseWaiting)
            case .interrupt:
                try device.setState(transaction.id, .interrupted, at: now)
                try crashPoint(.purchaseWaiting)
            case .fail(let reason):
                try device.setState(transaction.id, .failed, reason: reason, at: now, finished: true)
            case .delayed(let after, let approve):
                // Stays `purchasing` until the App Store's due time; `recover()` settles it then.
                let due = decision.dueAt ?? after.added(to: now, calendar: calendar).wholeSeconds
                try device.setDue(transaction.id, at: due, approves: approve)
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
                report.settled += try receiveAnswers(account: user)
                report.renewals = try plans.settle(account: user).map(\.transactionID)
                try family.reconcileFamilyIfReachable(of: user)
                report.received = try receiveRenewals(account: user)
                try refunds.applyPolicy()
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
                do {
                    try settlePurchased(transaction.id, at: at)
                } catch {
                    // The App Store kept no approval for it (a delay decided where no decision was
                    // kept, or one the App Store's clock has not reached by a minute): it took no
                    // payment, and the purchase fails as StoreKit's does for an error it cannot
                    // name, instead of stopping every later start.
                    guard case .refusedByServer = error else { throw error }
                    try device.setState(transaction.id, .failed, reason: .unknown, at: at, finished: true)
                }
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

    /// Payment taken: the App Store records it (here, or the team's server), then the device marks
    /// it purchased, delivers and finishes.
    func settlePurchased(_ id: String, at date: Date, settled: Bool = false) throws(StoreError) {
        let transaction = try self.transaction(id)
        if let user = transaction.user, !settled {
            guard try settleWithAppStore(transaction, account: user, at: date) else { return }
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
            try family.reconcileFamilyIfReachable(of: user)
        }
        try markPurchased(id, at: date, originalID: original)
        try session.publishEvents()
        try crashPoint(.purchaseMarked)
        try deliver(id)
        try crashPoint(.purchaseDelivered)
    }

    /// What the App Store settles for an account's transaction, as its device asks it.
    func purchaseAsk(_ transaction: StoreTransaction, at date: Date) -> PurchaseAsk {
        PurchaseAsk(
            transactionID: transaction.id, account: transaction.user ?? "", productID: transaction.productID,
            device: session.deviceName, at: date, appAccountToken: transaction.appAccountToken,
            billingPlan: transaction.billingPlan, offer: transaction.offer,
            introductoryOffer: transaction.introductoryOffer)
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

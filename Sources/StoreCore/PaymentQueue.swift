// The mock payment queue (Q1–Q5): adding payments, the outcome policy, decisions on pending
// ones, delivery and finishing, and recovery of what a crash left behind.
//
// Durability order for a purchase by an account: the receipt entry on the server (keyed by the
// transaction id, so writing it twice is harmless), then the device's `purchased` state, then
// delivery and `finished` in one device transaction. Any crash leaves a state that `recover()`
// completes: delivery is idempotent per transaction (Q3).
import Foundation

extension Store {
    /// Adds a payment for `productID` and runs the queue as far as the outcome allows.
    @discardableResult
    public func buy(_ productID: String, outcome: PurchaseOutcome? = nil) throws(StoreError) -> StoreTransaction {
        let product = try product(productID)
        return try withDeviceLock { () throws(StoreError) -> StoreTransaction in
            let user = try currentUser()
            if product.isSubscription, user == nil { throw StoreError.signInRequired(productID: product.id) }
            if product.kind == .nonRenewingSubscription, product.months <= 0 { throw StoreError.unknownDuration(productID: product.id) }
            if product.kind == .nonConsumable, try device.profile(user ?? "").owned.contains(product.id) {
                throw StoreError.alreadyOwned(productID: product.id)
            }
            if product.kind == .autoRenewableSubscription, let user { try checkNotSubscribed(product, account: user) }
            let chosen = outcome ?? outcomeOverride
            let outcome = if let chosen { chosen } else { try policy() }
            let now = now()
            var transaction = StoreTransaction(
                id: makeTransactionID(), user: user, productID: product.id, kind: product.kind,
                quantity: product.quantity, months: product.months,
                bonusDays: product.kind == .nonRenewingSubscription ? catalog.bonusDays : 0, state: .purchasing, reason: nil,
                createdAt: now, purchaseDate: nil, dueAt: nil, dueApproves: nil, isFinished: false,
                originalID: nil, steps: []
            )
            if case .delayed(let after, let approve) = outcome {
                transaction.dueAt = after.added(to: now, calendar: calendar).wholeSeconds
                transaction.dueApproves = approve
            }
            let added = transaction
            try device.insert(added)
            try crashPoints(.purchaseRecorded)
            switch outcome {
            case .approve:
                try settlePurchased(transaction.id, at: now)
            case .defer:
                try setState(transaction.id, .deferred, at: now)
                try crashPoints(.purchaseWaiting)
            case .interrupt:
                try setState(transaction.id, .interrupted, at: now)
                try crashPoints(.purchaseWaiting)
            case .fail(let reason):
                try setState(transaction.id, .failed, reason: reason, at: now, finished: true)
            case .delayed:
                // Stays `purchasing`; `recover()` settles it once the clock passes its due time.
                try settleDueTransactions()
            }
            return try self.transaction(transaction.id)
        }
    }

    /// Ask to Buy approved (also settles an interrupted or delayed purchase as approved).
    @discardableResult
    public func approve(_ id: String) throws(StoreError) -> StoreTransaction {
        try withDeviceLock { () throws(StoreError) -> StoreTransaction in
            let transaction = try undecided(id)
            try settlePurchased(transaction.id, at: now())
            return try self.transaction(transaction.id)
        }
    }

    /// Ask to Buy declined → `failed(declined)`; an interrupted purchase → `failed(cancelled)`.
    @discardableResult
    public func decline(_ id: String) throws(StoreError) -> StoreTransaction {
        try withDeviceLock { () throws(StoreError) -> StoreTransaction in
            let transaction = try undecided(id)
            let reason: FailureReason = transaction.state == .interrupted ? .cancelled : .declined
            try setState(transaction.id, .failed, reason: reason, at: now(), finished: true)
            return try self.transaction(transaction.id)
        }
    }

    /// The user did what an interrupted purchase asked (accepted the terms): it completes.
    @discardableResult
    public func resolve(_ id: String) throws(StoreError) -> StoreTransaction {
        try withDeviceLock { () throws(StoreError) -> StoreTransaction in
            let transaction = try self.transaction(id)
            guard transaction.state == .interrupted else {
                throw StoreError.cannotResolve(id: transaction.id, state: transaction.state)
            }
            try settlePurchased(transaction.id, at: now())
            return try self.transaction(transaction.id)
        }
    }

    /// A transaction that is still waiting for a decision: deferred, interrupted or delayed.
    private func undecided(_ id: String) throws(StoreError) -> StoreTransaction {
        let transaction = try self.transaction(id)
        let waiting = transaction.state.isPending || (transaction.state == .purchasing && transaction.dueAt != nil)
        guard waiting else { throw StoreError.notPending(id: transaction.id, state: transaction.state) }
        return transaction
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
                if try server.hasReceiptEntry(transactionID: transaction.id) {
                    try markPurchased(transaction.id, at: transaction.dueAt ?? now())
                    report.reconciled.append(transaction.id)
                }
            }
            // Under the device lock no other process is mid-purchase, so a `purchasing` one with
            // no due time was cut off before the store answered: no payment was taken.
            let orphans = try device.transactions(.orphaned)
            for orphan in orphans {
                try setState(orphan.id, .failed, reason: .network, at: now(), finished: true)
                report.abandoned.append(orphan.id)
            }
            report.settled = try settleDueTransactions()
            report.redelivered = try deliverUnfinished()
            if let user = try currentUser() { report.renewals = try settlePlans(account: user).map(\.transactionID) }
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
                try setState(transaction.id, .failed, reason: .declined, at: at, finished: true)
            }
        }
        return due.map(\.id)
    }

    private func deliverUnfinished() throws(StoreError) -> [String] {
        let unfinished = try device.transactions(.undelivered)
        for transaction in unfinished { try deliver(transaction.id) }
        return unfinished.map(\.id)
    }

    /// Payment taken: record it on the receipt, mark it purchased, then deliver and finish.
    private func settlePurchased(_ id: String, at date: Date) throws(StoreError) {
        let transaction = try self.transaction(id)
        if let user = transaction.user, transaction.kind == .autoRenewableSubscription {
            try startPlan(transaction, account: user, at: date)
        } else if let user = transaction.user {
            let entry = ReceiptEntry(
                transactionID: transaction.id, account: user, productID: transaction.productID,
                kind: transaction.kind, quantity: transaction.quantity, months: transaction.months,
                bonusDays: transaction.bonusDays, purchaseDate: date, device: deviceName
            )
            try server.record(entry, calendar: calendar)
        }
        if transaction.user != nil { try crashPoints(.paymentRecorded) }
        try markPurchased(id, at: date)
        try publishEvents()
        try crashPoints(.purchaseMarked)
        try deliver(id)
        try crashPoints(.purchaseDelivered)
    }

    private func markPurchased(_ id: String, at date: Date) throws(StoreError) {
        try device.setState(id, .purchased, at: date, purchaseDate: date)
    }

    private func setState(
        _ id: String, _ state: TransactionState, reason: FailureReason? = nil, at date: Date, finished: Bool? = nil
    ) throws(StoreError) {
        try device.setState(id, state, reason: reason, at: date, finished: finished)
    }

    /// Delivers a purchased or restored transaction's content and finishes it, exactly once (Q3).
    func deliver(_ id: String) throws(StoreError) {
        guard let transaction = try device.transaction(id: id), !transaction.isFinished, transaction.state.deliversContent else { return }
        // A4: the device takes the later of its own and the server's expiry.
        let serverExpiry = transaction.kind == .nonRenewingSubscription && transaction.user != nil
            ? try server.storedExpiry(account: transaction.user ?? "") : nil
        try device.deliver(id, serverExpiry: serverExpiry)
    }

    // MARK: Restore (A5)

    /// Re-delivers every owned comic as a `restored` transaction and takes the later of the
    /// device's and the server's expiry. Consumables are not restored.
    @discardableResult
    public func restore() throws(StoreError) -> RestoreResult {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        return try withDeviceLock { () throws(StoreError) -> RestoreResult in
            let owned = try server.ownedProducts(account: user)
            let now = now()
            var restoredIDs: [String] = []
            for item in owned {
                let restored = StoreTransaction(
                    id: makeTransactionID(), user: user, productID: item.productID, kind: .nonConsumable, quantity: 0,
                    months: 0, bonusDays: 0, state: .restored, reason: nil, createdAt: now, purchaseDate: now,
                    dueAt: nil, dueApproves: nil, isFinished: false, originalID: item.transactionID, steps: []
                )
                try device.insert(restored)
                try crashPoints(.restoreRecorded)
                try deliver(restored.id)
                try crashPoints(.restoreDelivered)
                restoredIDs.append(restored.id)
            }
            let expiry = try device.raiseExpiry(user: user, to: try server.storedExpiry(account: user))
            return RestoreResult(restored: owned.map(\.productID), transactionIDs: restoredIDs, expiry: expiry)
        }
    }

    // MARK: Random comics (R7)

    /// Shows one random comic: free while subscribed, else it uses one view. Never the same comic
    /// twice in a row when there are two or more; the last one shown is kept on the device.
    public func showRandomComic() throws(StoreError) -> RandomComicResult {
        let pool = catalog.randomPool
        guard !pool.isEmpty else { throw StoreError.noRandomComics }
        let user = try profileKey
        let packID = catalog.products.first { $0.kind == .consumable }?.id
        return try withDeviceLock { () throws(StoreError) -> RandomComicResult in
            let comic = try device.showRandom(user: user, now: now(), pool: pool, packID: packID, choose: chooseRandom)
            let status = try status()
            return RandomComicResult(
                comic: comic, randomViewsRemaining: status.randomViewsRemaining, isSubscribed: status.isSubscribed,
                header: status.header
            )
        }
    }
}

public struct RecoveryReport: Sendable, Equatable {
    /// Found on the server's receipt and marked purchased on the device.
    public var reconciled: [String] = []
    /// Cut off before the store answered; failed(network), nothing charged.
    public var abandoned: [String] = []
    /// Delayed outcomes that fired.
    public var settled: [String] = []
    /// Purchased or restored but not finished: delivered now.
    public var redelivered: [String] = []
    /// Auto-renewable plan lines the clock's passing wrote (renewals, billing failures, expiries).
    public var renewals: [String] = []

    public var isEmpty: Bool {
        reconciled.isEmpty && abandoned.isEmpty && settled.isEmpty && redelivered.isEmpty && renewals.isEmpty
    }
}

public struct RestoreResult: Sendable, Equatable {
    public var restored: [String]
    public var transactionIDs: [String]
    public var expiry: Date?
}

public struct RandomComicResult: Sendable, Equatable {
    public var comic: RandomComic
    public var randomViewsRemaining: Int
    public var isSubscribed: Bool
    public var header: String
}

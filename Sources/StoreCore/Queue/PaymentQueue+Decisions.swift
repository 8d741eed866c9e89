// The decision on a purchase's payment (Q4, W9), and the answers to one that waits: Ask to Buy
// approved or declined, an interrupted purchase resolved.
import Foundation
import StoreModel

extension PaymentQueue {
    /// The outcome a purchase names (`--outcome`, a scenario's step): on a team only the
    /// developer may name one, refused before anything is written.
    func chosenOutcome(_ chosen: PurchaseOutcome?) throws(StoreError) -> PurchaseOutcome? {
        if chosen != nil, let team = keeper.team, !team.isDeveloper {
            throw StoreError.developerOnly(server: team.location, action: "choose a payment's outcome")
        }
        return chosen
    }

    /// The outcome of a purchase's payment, once its transaction is on the device. An account's is
    /// the App Store's to decide and keep (`Checkout.decide`), which settles an approved one in
    /// the same call. A purchase made signed out reaches no App Store: this device's policy
    /// decides it.
    func decide(_ transaction: StoreTransaction, chosen: PurchaseOutcome?, at date: Date) throws(StoreError)
        -> PaymentDecision
    {
        var outcome = chosen
        if outcome == nil, keeper.team == nil || transaction.user == nil {
            outcome = try device.policy() ?? catalog.defaultPolicy
        }
        guard transaction.user != nil else { return PaymentDecision(outcome: outcome ?? catalog.defaultPolicy) }
        return try checkout.decide(PaymentAsk(purchase: purchaseAsk(transaction, at: date), outcome: outcome))
    }

    /// Ask to Buy approved (also settles an interrupted or delayed purchase as approved).
    @discardableResult
    public func approve(_ id: String) throws(StoreError) -> StoreTransaction {
        try withDeviceLock { () throws(StoreError) -> StoreTransaction in
            let transaction = try undecided(id)
            try answer(transaction, .approve)
            try settlePurchased(transaction.id, at: now())
            return try self.transaction(transaction.id)
        }
    }

    /// Ask to Buy declined → `failed(declined)`; an interrupted purchase → `failed(cancelled)`.
    @discardableResult
    public func decline(_ id: String) throws(StoreError) -> StoreTransaction {
        try withDeviceLock { () throws(StoreError) -> StoreTransaction in
            let transaction = try undecided(id)
            try answer(transaction, .decline)
            try device.setState(transaction.id, .failed, reason: transaction.declineReason, at: now(), finished: true)
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
            try answer(transaction, .resolve)
            try settlePurchased(transaction.id, at: now())
            return try self.transaction(transaction.id)
        }
    }

    /// A parent's answer to a payment that waits on another device (the developer's to a
    /// customer's Ask to Buy, on a team), by its full transaction id and account: that device
    /// settles it, or fails it, at its next start or tick (`receiveAnswers`).
    public func answer(_ id: String, of account: String, approve: Bool) throws(StoreError) {
        try answer(PaymentAnswer(transactionID: id, account: account, answer: approve ? .approve : .decline))
    }

    /// On a team, the answers given elsewhere to this account's payments that wait here: an
    /// approved one is settled, a declined one fails. Nothing is read while nothing waits.
    func receiveAnswers(account: String) throws(StoreError) -> [String] {
        guard keeper.team != nil else { return [] }
        var answered: [String] = []
        for transaction in try device.transactions(.waiting(user: try session.profileKey)) {
            if try session.server.holds(.paid, of: transaction.id, account: account) {
                try settlePurchased(transaction.id, at: now())
            } else if try session.server.holds(.answered, of: transaction.id, account: account) {
                try device.setState(
                    transaction.id, .failed, reason: transaction.declineReason, at: now(), finished: true)
            } else {
                continue
            }
            answered.append(transaction.id)
        }
        return answered
    }

    /// The App Store keeps the answer to an account's payment before the device acts on it: on a
    /// team, the server refuses what the caller may not answer. A purchase made signed out is this
    /// device's alone.
    private func answer(_ transaction: StoreTransaction, _ answer: PaymentAnswer.Answer) throws(StoreError) {
        guard let user = transaction.user else { return }
        try self.answer(PaymentAnswer(transactionID: transaction.id, account: user, answer: answer))
    }

    /// Where the records are kept, this device's user is her own parent (Xcode's transaction
    /// manager); on a team the server decides who may answer.
    private func answer(_ answer: PaymentAnswer) throws(StoreError) {
        try checkout.answer(answer, asParent: keeper.team == nil)
    }

    /// A transaction that is still waiting for a decision: deferred, interrupted or delayed.
    func undecided(_ id: String) throws(StoreError) -> StoreTransaction {
        let transaction = try self.transaction(id)
        let waiting = transaction.state.isPending || (transaction.state == .purchasing && transaction.dueAt != nil)
        guard waiting else { throw StoreError.notPending(id: transaction.id, state: transaction.state) }
        return transaction
    }
}

// Decisions on purchases that wait: Ask to Buy approved or declined, an interrupted purchase
// resolved.
import Foundation

extension PaymentQueue {
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
            try device.setState(transaction.id, .failed, reason: reason, at: now(), finished: true)
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
    func undecided(_ id: String) throws(StoreError) -> StoreTransaction {
        let transaction = try self.transaction(id)
        let waiting = transaction.state.isPending || (transaction.state == .purchasing && transaction.dueAt != nil)
        guard waiting else { throw StoreError.notPending(id: transaction.id, state: transaction.state) }
        return transaction
    }
}

// Restore (A5): the account's non-consumables come back to this device as `restored`
// transactions, the later expiry wins, and consumables stay where they were bought.
import Foundation
import StoreModel

extension PaymentQueue {
    // MARK: Restore (A5)

    /// Re-delivers every owned comic as a `restored` transaction and takes the later of the
    /// device's and the server's expiry. Consumables are not restored.
    @discardableResult
    public func restore() throws(StoreError) -> RestoreResult {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        // Q7: restore is App Store Sync (`AppStore.sync()`).
        try failIfSimulated(.appStoreSync)
        return try withDeviceLock { () throws(StoreError) -> RestoreResult in
            let owned = try ledger.ownedProducts(account: user)
            let now = now()
            var restoredIDs: [String] = []
            for item in owned {
                let restored = StoreTransaction(
                    id: session.makeTransactionID(), user: user, productID: item.productID, kind: .nonConsumable,
                    quantity: 0,
                    months: 0, bonusDays: 0, state: .restored, reason: nil, createdAt: now, purchaseDate: now,
                    dueAt: nil, dueApproves: nil, isFinished: false, originalID: item.transactionID, steps: []
                )
                try device.insert(restored)
                try crashPoint(.restoreRecorded)
                try deliver(restored.id)
                try crashPoint(.restoreDelivered)
                restoredIDs.append(restored.id)
            }
            let expiry = try device.raiseExpiry(user: user, to: try ledger.storedExpiry(account: user))
            return RestoreResult(restored: owned.map(\.productID), transactionIDs: restoredIDs, expiry: expiry)
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
    /// Renewals (of this or another device's settling) delivered to this device as transactions (Q6).
    public var received: [String] = []

    public var isEmpty: Bool {
        reconciled.isEmpty && abandoned.isEmpty && settled.isEmpty && redelivered.isEmpty && renewals.isEmpty
            && received.isEmpty
    }
}

public struct RestoreResult: Sendable, Equatable {
    public var restored: [String]
    public var transactionIDs: [String]
    public var expiry: Date?
}

// The App Store's part of settling a payment, as the device asks it (W9), and what a payment that
// waited meets when the account's storefront changed meanwhile (F3).
import Foundation
import StoreModel

extension PaymentQueue {
    /// Asks the App Store to record the payment (here, or the team's server). False when the
    /// payment failed with nothing paid: the account moved while it waited and the app said not to
    /// continue (StoreKit 1's `paymentQueue(_:shouldContinue:in:)`), or the new storefront does not
    /// sell the product; either is StoreKit's storeProductNotAvailable, and no one can retry it.
    func settleWithAppStore(_ transaction: StoreTransaction, account: String, at date: Date) throws(StoreError)
        -> Bool
    {
        func unavailable() throws(StoreError) {
            try device.setState(transaction.id, .failed, reason: .productUnavailable, at: date, finished: true)
        }
        if let then = transaction.storefront, transaction.onStorefrontChange == .cancel,
            try session.storefront(of: account, fresh: true) != then
        {
            try unavailable()
            return false
        }
        do throws(StoreError) {
            try checkout.settle(purchaseAsk(transaction, at: date))
            return true
        } catch {
            switch error {
            case .notSoldInStorefront:
                try unavailable()
                return false
            case .notSoldByServer:
                // A team's server that does not sell the product (started with another catalog)
                // recorded nothing: no payment was taken, and the purchase fails as StoreKit's
                // does for a product the store does not have, instead of waiting for recovery.
                try unavailable()
                throw error
            default: throw error
            }
        }
    }
}

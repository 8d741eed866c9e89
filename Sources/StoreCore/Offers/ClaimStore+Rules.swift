// What the claims store answers for a payment's kept steps and an offer's limit.
import Foundation
import StoreModel

extension ClaimStore {
    /// Whether the App Store kept `step` of the payment for `transactionID`.
    func holds(_ step: PaymentStep, of transactionID: String, account: String) throws(StoreError) -> Bool {
        try claims(ClaimKey.payment(transactionID: transactionID, step: step, account: account).text) > 0
    }
}

extension ClaimKey {
    /// How many accounts may take a use, by the server's own offer codes.
    package func limit(in store: some ClaimStore) throws(StoreError) -> Int {
        switch self {
        case .offerNonce, .winBack, .granted, .payment:
            return 1
        case .offerCode(let code):
            guard let known = try store.offerCode(code) else { throw .unknownOfferCode(code) }
            return known.limit
        }
    }
}

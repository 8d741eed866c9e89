// A transaction as `--json` writes it: `buy`, `approve`, `history`, `pending`, `transaction`.
import Foundation
import StoreCore
import StoreModel

struct TransactionOutput: Encodable {
    struct Step: Encodable {
        var state: String
        var reason: String?
        var at: String?
    }

    var id: String
    var product: String
    var state: String
    var states: [String]
    var reason: String?
    var purchaseDate: String?
    var finished: Bool
    var createdAt: String?
    var dueAt: String?
    var user: String?
    var originalID: String?
    var transactionReason: String
    var offerType: Int?
    var offerIdentifier: String?
    var verified: Bool
    var verificationError: String?
    var steps: [Step]
    var revoked: Omitted<Bool>
    var revocationDate: Omitted<String>
    var orderId: Omitted<String>
    /// With its signed form: the app account token it carries (its purchase's, or Set App Account
    /// Token's, M3), the JWS, and why it would not verify.
    var appAccountToken: Omitted<String?>
    var signedTransaction: Omitted<String>
    var unverifiedBecause: Omitted<String?>

    init(_ transaction: StoreTransaction, signed: SignedItem? = nil, revokedAt: Date? = nil, in context: Context) {
        id = transaction.id
        product = transaction.productID
        state = transaction.state.rawValue
        states = transaction.states.map(\.rawValue)
        reason = transaction.reason?.rawValue
        purchaseDate = context.dateText(transaction.purchaseDate)
        finished = transaction.isFinished
        createdAt = context.dateText(transaction.createdAt)
        dueAt = context.dateText(transaction.dueAt)
        user = transaction.user
        originalID = transaction.originalID
        transactionReason = transaction.isRenewal ? "RENEWAL" : "PURCHASE"
        // A renewal on an offer's later period carries the offer of its signed transaction.
        offerType = transaction.offer?.type.rawValue ?? signed?.payload["offerType"] as? Int
        offerIdentifier = transaction.offer?.id ?? signed?.payload["offerIdentifier"] as? String
        verified = transaction.verificationError == nil
        verificationError = transaction.verificationError
        steps = transaction.steps.map {
            Step(state: $0.state.rawValue, reason: $0.reason?.rawValue, at: context.dateText($0.at))
        }
        revoked = Omitted(revokedAt.map { _ in true })
        revocationDate = Omitted(context.dateText(revokedAt))
        orderId = Omitted(context.orderID(transaction))
        appAccountToken = Omitted(signed.map { $0.payload["appAccountToken"] as? String })
        signedTransaction = Omitted(signed?.jws)
        unverifiedBecause = Omitted(signed.map { $0.unverified?.reason })
    }
}

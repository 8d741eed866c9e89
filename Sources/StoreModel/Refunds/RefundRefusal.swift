// Why a refund, or a refund request, could not be made or answered (O7), as data; `description`
// words it once.
import Foundation

public enum RefundRefusal: Codable, Equatable, Sendable, CustomStringConvertible {
    /// A member asked to refund what the family's organizer shares.
    case sharedByOrganizer(transactionID: String)
    case nonRenewing(transactionID: String)
    case refundedAlready(transactionID: String)
    case requestWaiting(transactionID: String)
    /// The request was written and did not reach the receipt.
    case requestNotRecorded(transactionID: String)
    case noRequest(id: String)
    case requestAnswered(transactionID: String, state: RefundRequest.State)
    case notOnReceipt(transactionID: String, account: String)
    case notRefunded(id: String)
    /// A scenario's refund step for an account with no purchase of the product.
    case nothingToRefund(account: String, product: String)

    public var description: String {
        switch self {
        case .sharedByOrganizer(let id): "\(id) is shared by the family's organizer: only they can ask for its refund"
        case .nonRenewing(let id):
            "\(id) is a non-renewing subscription: Storefront refunds comics, packs and plan periods"
        case .refundedAlready(let id): "\(id) is refunded already"
        case .requestWaiting(let id): "a refund request of \(id) is waiting for an answer already"
        case .requestNotRecorded(let id): "the refund request of \(id) did not reach the receipt"
        case .noRequest(let id): "no refund request of \(id) (`storefront refund-request list` shows them)"
        case .requestAnswered(let id, let state): "the request of \(id) is \(state.rawValue) already"
        case .notOnReceipt(let id, let account): "the purchase \(id) is not on \(account)'s receipt"
        case .notRefunded(let id): "\(id) is not a refunded purchase"
        case .nothingToRefund(let account, let product): "\(account) has no purchase of \(product) to refund"
        }
    }
}

// The durability steps of every kind of purchase, by name. Between two steps the state on disk is
// one that `recover()` completes (docs/decisions/0004, the four durable steps); a test stops the
// process at each step in turn (`STOREFRONT_FAULT=crash-at:NAME`) and checks the state the next
// command leaves, so the proof does not depend on where a random kill happens to land.

/// A point just after a durable write, where a crash leaves work for recovery.
public enum CrashPoint: String, CaseIterable, Sendable {
    /// The device has the new transaction as `purchasing`; the server knows nothing yet.
    case purchaseRecorded = "purchase-recorded"
    /// A purchase waits for a decision (`deferred` or `interrupted`) on the device.
    case purchaseWaiting = "purchase-waiting"
    /// The payment is on the account's receipt (or its plan lines); the device still says `purchasing`.
    case paymentRecorded = "payment-recorded"
    /// The device says `purchased`; the content is not delivered and the transaction not finished.
    case purchaseMarked = "purchase-marked"
    /// Delivered and finished: the purchase is complete.
    case purchaseDelivered = "purchase-delivered"
    /// Restore wrote a `restored` transaction; its content is not delivered yet.
    case restoreRecorded = "restore-recorded"
    /// Restore delivered one transaction; others may follow.
    case restoreDelivered = "restore-delivered"
    /// Renewals, billing failures or expiries the clock passed are on the receipt.
    case renewalsRecorded = "renewals-recorded"
    /// Renewals are written on the device as purchased transactions, not yet finished (Q6).
    case renewalsReceived = "renewals-received"
    /// A notification is signed and about to be POSTed; nothing of the attempt is stored (N4).
    case notificationSigned = "notification-signed"
    /// The receiver answered 200; the delivery is not recorded yet (N4: sent again, a duplicate).
    case notificationPosted = "notification-posted"
    /// O6: a new price is stored; no subscriber has been told of it yet.
    case priceChanged = "price-changed"
    /// O7: a refund request is on the receipt; the device's refund policy has not answered it.
    case refundRequested = "refund-requested"
    /// O5: the family changed; its members' shares are not brought in line yet.
    case familyChanged = "family-changed"

    /// What the step leaves on disk, for `storefront --list-crash-points`.
    public var summary: String {
        switch self {
        case .purchaseRecorded: "the device has the transaction as purchasing; nothing charged yet"
        case .purchaseWaiting: "a deferred or interrupted purchase is waiting on the device"
        case .paymentRecorded: "the payment is on the account's receipt; the device still says purchasing"
        case .purchaseMarked: "the device says purchased; content not delivered, transaction not finished"
        case .purchaseDelivered: "content delivered and the transaction finished"
        case .restoreRecorded: "a restored transaction is written; its content not delivered"
        case .restoreDelivered: "one restored transaction delivered and finished"
        case .renewalsRecorded: "renewals the clock passed are on the receipt"
        case .renewalsReceived: "the device has the account's new renewals as purchased transactions; not finished"
        case .notificationSigned: "a notification is signed, not yet POSTed, nothing of the attempt stored"
        case .notificationPosted: "the webhook answered 200; the delivery is not recorded yet"
        case .priceChanged:
            "a new price is stored; its subscribers are told by the next command that settles their plans"
        case .refundRequested: "a refund request is on the receipt; the refund policy answers it at the next start"
        case .familyChanged: "the family changed; each member's shares are put right at their next start"
        }
    }
}

/// Called at every crash point the store passes. The default does nothing; the command line's
/// `STOREFRONT_FAULT=crash-at:NAME` kills the process at the named one.
public struct CrashPoints: Sendable {
    public var reach: @Sendable (CrashPoint) -> Void

    public init(reach: @escaping @Sendable (CrashPoint) -> Void) { self.reach = reach }

    public static let none = CrashPoints { _ in }
}

// Transactions of the mock payment queue (Q1) and the events observers see (Q2).
import Foundation

public enum TransactionState: String, Sendable, Codable, CaseIterable {
    case purchasing
    case purchased
    case failed
    /// Ask to Buy: waits for a parent's approval (Q4).
    case deferred
    /// Needs the user to act (accept new terms) before it completes or fails (Q4).
    case interrupted
    case restored

    /// Still waiting for a decision: listed by `pending`.
    public var isPending: Bool { self == .deferred || self == .interrupted }
    /// Content is delivered in these states (Q3).
    public var deliversContent: Bool { self == .purchased || self == .restored }
}

/// One state a transaction went through, with when.
public struct TransactionStep: Sendable, Equatable, Codable {
    public var state: TransactionState
    public var reason: FailureReason?
    public var at: Date

    public init(state: TransactionState, reason: FailureReason? = nil, at: Date) {
        self.state = state
        self.reason = reason
        self.at = at
    }
}

/// Transaction ids as Apple gives them: 16 decimal digits (S3), here a 2 and 15 random digits, so
/// that the first few digits still tell transactions apart (ids may be shortened to a prefix).
public enum TransactionID {
    public static func make(_ random: UInt64) -> String {
        let digits = String(random % 1_000_000_000_000_000)
        return "2" + String(repeating: "0", count: 15 - digits.count) + digits
    }

    /// Whether `text` has the shape of Apple's transaction ids: 1 to 20 ASCII digits (W18). Nothing
    /// else is recorded or signed as one: not letters, a path, full-width digits or 10 KB.
    public static func isAppleShaped(_ text: some StringProtocol) -> Bool {
        (1...20).contains(text.utf8.count)
            && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

public struct StoreTransaction: Sendable, Equatable, Identifiable {
    public var id: String
    /// The signed-in account, or nil for a guest.
    public var user: String?
    public var productID: String
    public var kind: ProductKind
    public var quantity: Int
    /// What a non-renewing subscription adds (R5): calendar months, then days (weeks as seven),
    /// then the catalog's bonus days.
    public var months: Int
    public var days: Int = 0
    public var bonusDays: Int
    public var state: TransactionState
    public var reason: FailureReason?
    public var createdAt: Date
    /// When it became `purchased` or `restored`.
    public var purchaseDate: Date?
    /// A delayed outcome: when it fires, and whether it approves.
    public var dueAt: Date?
    public var dueApproves: Bool?
    public var isFinished: Bool
    /// For a `restored` transaction: the purchase it restores.
    public var originalID: String?
    public var steps: [TransactionStep]
    /// Why StoreKit would hand this transaction to the app unverified (a simulated Verification
    /// error, Q7): "VerificationResult.VerificationError.invalidSignature"; nil when verified.
    public var verificationError: String? = nil
    /// The promotional, code or win-back offer it was bought with (O2–O4).
    public var offer: OfferRedemption? = nil
    /// The app's UUID for the customer, given with the purchase (M3).
    public var appAccountToken: String? = nil
    /// How a transaction this device did not buy arrived: a renewal of a plan, or a family share.
    public var arrival: TransactionArrival? = nil
    /// The billing plan the purchase named (`buy --billing`): monthly with a 12-month commitment,
    /// or up front (which switches a plan that renews monthly); nil when it named none.
    public var billingPlan: BillingPlan? = nil
    /// The developer's signed word on the introductory offer (`buy --intro-offer-jws`): true gives
    /// it even to a customer who had it, false withholds it; nil leaves it to the App Store's rule
    /// (once per group).
    public var introductoryOffer: Bool? = nil
    /// F3: the account's storefront when the payment was added, and whether the app lets it
    /// continue if that changes before the payment settles (`StorefrontChangeChoice`).
    public var storefront: String? = nil
    public var onStorefrontChange: StorefrontChangeChoice? = nil

    public var states: [TransactionState] { steps.map(\.state) }

    /// A renewal of an auto-renewable plan, delivered to the device as StoreKit does (Q6): it
    /// carries the plan's original purchase as `originalID`.
    public var isRenewal: Bool { kind == .autoRenewableSubscription && state != .restored && originalID != nil }

    /// Why it fails when its wait is answered no: an interrupted purchase was cancelled, an Ask to
    /// Buy request declined.
    package var declineReason: FailureReason { state == .interrupted ? .cancelled : .declined }

    package init(
        id: String, user: String? = nil, productID: String, kind: ProductKind, quantity: Int, months: Int,
        days: Int = 0, bonusDays: Int, state: TransactionState, reason: FailureReason? = nil, createdAt: Date,
        purchaseDate: Date? = nil, dueAt: Date? = nil, dueApproves: Bool? = nil, isFinished: Bool,
        originalID: String? = nil, steps: [TransactionStep], verificationError: String? = nil,
        offer: OfferRedemption? = nil, appAccountToken: String? = nil, arrival: TransactionArrival? = nil,
        billingPlan: BillingPlan? = nil, introductoryOffer: Bool? = nil
    ) {
        self.id = id
        self.user = user
        self.productID = productID
        self.kind = kind
        self.quantity = quantity
        self.months = months
        self.days = days
        self.bonusDays = bonusDays
        self.state = state
        self.reason = reason
        self.createdAt = createdAt
        self.purchaseDate = purchaseDate
        self.dueAt = dueAt
        self.dueApproves = dueApproves
        self.isFinished = isFinished
        self.originalID = originalID
        self.steps = steps
        self.verificationError = verificationError
        self.offer = offer
        self.appAccountToken = appAccountToken
        self.arrival = arrival
        self.billingPlan = billingPlan
        self.introductoryOffer = introductoryOffer
    }
}

/// A transaction that reached this device without a purchase here (Q6, O5).
public enum TransactionArrival: String, Sendable, Equatable, Codable {
    case renewal
    case familyShare = "family-share"

    /// As the transaction manager's log says it.
    public var words: String { self == .renewal ? "renewal" : "family share" }
}

/// What an observer is told: one state change of one transaction, in order (Q2).
public struct TransactionEvent: Sendable, Equatable {
    /// Increasing across the device, so that a reader can ask for what came after.
    public var sequence: Int64
    public var transactionID: String
    public var productID: String
    public var state: TransactionState
    public var reason: FailureReason?
    public var at: Date
    /// How the transaction arrived, when this device did not buy it (the log labels it).
    public var arrival: TransactionArrival? = nil

    package init(
        sequence: Int64, transactionID: String, productID: String, state: TransactionState,
        reason: FailureReason? = nil, at: Date, arrival: TransactionArrival? = nil
    ) {
        self.sequence = sequence
        self.transactionID = transactionID
        self.productID = productID
        self.state = state
        self.reason = reason
        self.at = at
        self.arrival = arrival
    }
}

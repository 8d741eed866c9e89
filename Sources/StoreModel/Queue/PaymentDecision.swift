// A payment's simulated outcome, as the App Store decides it (W9, Q4): asked for when a purchase
// is made, kept against its transaction, and answered later when it waits (Ask to Buy, an
// interrupted purchase). Only a payment the App Store approved, whose delay it saw pass, or whose
// wait it saw answered is settled.
import Foundation

/// What a device asks when a purchase is made, once its transaction is on the device: the outcome
/// of its payment, and (approved) the purchase settled in the same call. `outcome` is the one a
/// test chose (`--outcome`, a scenario, or the embedded store's own policy); on a team only the
/// developer may choose, and a customer's payment follows the policy the developer set.
public struct PaymentAsk: Sendable, Equatable, Codable {
    public var purchase: PurchaseAsk
    public var outcome: PurchaseOutcome?

    public init(purchase: PurchaseAsk, outcome: PurchaseOutcome? = nil) {
        self.purchase = purchase
        self.outcome = outcome
    }
}

/// The App Store's decision on a payment: its outcome, whether the purchase is settled already (an
/// approved one is, in the same call), and for a delayed one when it falls due by the App Store's
/// clock.
public struct PaymentDecision: Sendable, Equatable, Codable {
    public var outcome: PurchaseOutcome
    public var settled: Bool
    public var dueAt: Date?

    public init(outcome: PurchaseOutcome, settled: Bool = false, dueAt: Date? = nil) {
        self.outcome = outcome
        self.settled = settled
        self.dueAt = dueAt
    }
}

/// What deciding a payment reads: the line already recorded for its transaction, whether the claim
/// that keeps a decision is taken, and the developer's payment policy.
public struct PaymentDecisionInputs: Sendable {
    public var recorded: ReceiptEntry?
    public var decided: Bool
    public var policy: PurchaseOutcome?

    public init(recorded: ReceiptEntry?, decided: Bool, policy: PurchaseOutcome?) {
        self.recorded = recorded
        self.decided = decided
        self.policy = policy
    }
}

/// An answer to a payment that waits: Ask to Buy approved or declined (a parent's answer: the
/// developer's on a team), an interrupted purchase resolved or cancelled (the buyer's own).
public struct PaymentAnswer: Sendable, Equatable, Codable {
    public enum Answer: String, Sendable, Codable {
        case approve, decline, resolve
    }

    public var transactionID: String
    public var account: String
    public var answer: Answer

    public init(transactionID: String, account: String, answer: Answer) {
        self.transactionID = transactionID
        self.account = account
        self.answer = answer
    }
}

/// What the App Store keeps of a payment, one claim each, against its transaction.
package enum PaymentStep: Sendable, Equatable {
    /// Decided once: a transaction's payment gets one outcome.
    case decided
    /// Approved: the purchase may be settled.
    case paid
    /// Approved once the App Store's clock passes this time (whole seconds since 1970).
    case due(Int)
    /// Waiting for Ask to Buy, an interrupted purchase, a delay.
    case asked, interrupted, delayed
    /// Answered once.
    case answered
    /// What the decision covers (`PurchaseAsk.terms`): a settlement must name the same.
    case terms(String)

    package var text: String {
        switch self {
        case .decided: "decided"
        case .paid: "paid"
        case .due(let seconds): "due-\(seconds)"
        case .asked: "asked"
        case .interrupted: "interrupted"
        case .delayed: "delayed"
        case .answered: "answered"
        case .terms(let terms): "terms-\(terms)"
        }
    }

    package init?(_ text: String) {
        switch text {
        case "decided": self = .decided
        case "paid": self = .paid
        case "asked": self = .asked
        case "interrupted": self = .interrupted
        case "delayed": self = .delayed
        case "answered": self = .answered
        default:
            if text.hasPrefix("terms-"), text.count > 6 {
                self = .terms(String(text.dropFirst(6)))
                return
            }
            guard text.hasPrefix("due-"), let seconds = Int(text.dropFirst(4)) else { return nil }
            self = .due(seconds)
        }
    }
}

extension PurchaseOutcome: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

// What a refund request is and where it stands (O7), read from the receipt's lines: the values
// the refund role (StoreCore's Refunds) and every reader of a receipt share.
import Foundation

/// Why the customer asks (the refund request sheet's choices; Apple's consumptionRequestReason).
public enum RefundReason: String, Sendable, CaseIterable, Codable {
    case unintended = "UNINTENDED_PURCHASE"
    case fulfillment = "FULFILLMENT_ISSUE"
    case unsatisfied = "UNSATISFIED_WITH_PURCHASE"
    case legal = "LEGAL"
    case other = "OTHER"

    /// The command line's word for it.
    public var argument: String {
        switch self {
        case .unintended: "unintended"
        case .fulfillment: "not-received"
        case .unsatisfied: "not-as-expected"
        case .legal: "legal"
        case .other: "other"
        }
    }

    public init?(argument: String) {
        guard
            let found = Self.allCases.first(where: {
                $0.argument == argument.lowercased() || $0.rawValue == argument.uppercased()
            })
        else { return nil }
        self = found
    }
}

/// How this device's store answers refund requests: at once, or when the developer's side says.
public enum RefundPolicy: String, Sendable, CaseIterable {
    case manual, approve, decline
}

/// One refund request and where it stands, from the receipt.
public struct RefundRequest: Sendable, Equatable {
    public enum State: String, Sendable, Codable { case pending, approved, declined, reversed }

    /// The purchase (or plan period) it is about.
    public var transactionID: String
    public var requestID: String
    public var account: String
    public var productID: String
    public var kind: ProductKind
    public var reason: RefundReason
    public var requestedAt: Date
    public var state: State
    public var decidedAt: Date?
    /// The developer's consumption information (the JSON sent), for a consumable.
    public var consumptionInfo: String?

    /// The refund line of an approved request.
    public var refundID: String?

    /// The request of `transactionID` that matters now: the one waiting, else the latest.
    public static func current(of transactionID: String, in requests: [RefundRequest]) -> RefundRequest? {
        let mine = requests.filter { $0.transactionID == transactionID || $0.requestID == transactionID }
        return mine.first { $0.state == .pending } ?? mine.last
    }

    /// Every request of `receipt` (an account's), oldest first, each with its answer: answers
    /// name their request, a reversal its refund, consumption information its request (by
    /// `reference`), so lines of one second read back in any order give the same answer.
    public static func all(in receipt: [ReceiptEntry]) -> [RefundRequest] {
        var requests: [RefundRequest] = receipt.filter { $0.event == .refundRequest }
            .sorted { ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID) }
            .compactMap { line in
                line.reference.map { reference in
                    var reason = RefundReason.other
                    if case .refundReason(let given) = line.meaning { reason = RefundReason(rawValue: given) ?? .other }
                    return RefundRequest(
                        transactionID: reference, requestID: line.transactionID, account: line.account,
                        productID: line.productID,
                        kind: line.kind, reason: reason, requestedAt: line.purchaseDate,
                        state: .pending, decidedAt: nil, consumptionInfo: nil
                    )
                }
            }
        let reversed = Set(receipt.compactMap(\.refundReversed))
        for line in receipt {
            if case .consumptionInfo(let json) = line.meaning,
                let index = requests.firstIndex(where: { $0.requestID == line.reference })
            {
                requests[index].consumptionInfo = json
            }
            guard let answered = line.answeredRequest,
                let index = requests.firstIndex(where: { $0.requestID == answered })
            else { continue }
            switch line.event {
            case .refund:
                requests[index].state = reversed.contains(line.transactionID) ? .reversed : .approved
                requests[index].decidedAt = line.purchaseDate
                requests[index].refundID = line.transactionID
            case .refundDeclined:
                (requests[index].state, requests[index].decidedAt) = (.declined, line.purchaseDate)
            default: break
            }
        }
        return requests
    }
}

/// A customer's refund request as the App Store takes it (W9): the purchase (or plan period) by
/// its full id, and why. Where the records are kept `Refunds.file` checks and records it; a team
/// device asks its server, and never writes the request line itself.
public struct RefundAsk: Sendable, Equatable, Codable {
    public var account: String
    public var transactionID: String
    public var reason: RefundReason
    /// The device that asked, named on the line.
    public var device: String

    public init(account: String, transactionID: String, reason: RefundReason, device: String) {
        self.account = account
        self.transactionID = transactionID
        self.reason = reason
        self.device = device
    }
}

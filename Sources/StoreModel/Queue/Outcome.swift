// What the mock store answers to the next purchases (Q4).
import Foundation

/// Why a transaction failed, in the words a tester reads.
public enum FailureReason: String, Sendable, CaseIterable, Codable {
    case cancelled
    case paymentInvalid = "payment-invalid"
    case notAllowed = "not-allowed"
    case productUnavailable = "product-unavailable"
    case network
    case unknown
    /// An Ask-to-Buy request that the parent declined.
    case declined

    public var explanation: String {
        switch self {
        case .cancelled: "the user cancelled the payment"
        case .paymentInvalid: "the payment method is not valid"
        case .notAllowed: "this account is not allowed to make payments"
        case .productUnavailable: "the product is not available in this storefront"
        case .network: "a network error interrupted the purchase"
        case .unknown: "the store reported an unknown error"
        case .declined: "the request to buy was declined"
        }
    }

    /// The reasons a policy may choose (`declined` comes only from a decision on a deferred one).
    public static var policyReasons: [FailureReason] { allCases.filter { $0 != .declined } }
}

public enum PurchaseOutcome: Sendable, Equatable, CustomStringConvertible {
    case approve
    case `defer`
    case fail(FailureReason)
    /// Stays `purchasing` until the clock passes `after`, then approves or declines.
    case delayed(after: StoreDuration, approve: Bool)
    /// Waits as `interrupted` until the user resolves it (or declines).
    case interrupt

    public var description: String {
        switch self {
        case .approve: "approve"
        case .defer: "defer"
        case .fail(let reason): "fail=\(reason.rawValue)"
        case .delayed(let after, let approve): "delay=\(after):\(approve ? "approve" : "decline")"
        case .interrupt: "interrupt"
        }
    }

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public init(parsing text: String) throws(ParseError) {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch value {
        case "approve": self = .approve
        case "defer", "ask-to-buy": self = .defer
        case "interrupt": self = .interrupt
        default:
            if value.hasPrefix("fail=") {
                let name = String(value.dropFirst(5))
                guard let reason = FailureReason(rawValue: name), reason != .declined else {
                    let names = FailureReason.policyReasons.map(\.rawValue).joined(separator: ", ")
                    throw ParseError(description: "unknown failure reason \"\(name)\" (expected one of \(names))")
                }
                self = .fail(reason)
            } else if value.hasPrefix("delay=") {
                let parts = value.dropFirst(6).split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, parts[1] == "approve" || parts[1] == "decline" else {
                    throw ParseError(description: "\"\(text)\" should look like delay=30s:approve or delay=2m:decline")
                }
                let duration: StoreDuration
                do {
                    duration = try StoreDuration(parsing: String(parts[0]))
                } catch {
                    throw ParseError(description: error.description)
                }
                self = .delayed(after: duration, approve: parts[1] == "approve")
            } else {
                throw ParseError(
                    description:
                        "unknown outcome \"\(text)\" (expected approve, defer, fail=REASON, delay=DURATION:approve|decline or interrupt)"
                )
            }
        }
    }
}

// App Store Server Notifications V2 (N1–N7): what the store tells the developer's server about each
// event it simulates. A notification is written in the same database transaction as the receipt
// line it reports (N2), keyed by that event so that it exists once; it is signed and POSTed after
// the commit, and retried on Apple's schedule until a 200 or the schedule runs out (N3, N4).
import Foundation

public struct ServerNotification: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case pending, delivered, failed
    }

    /// Kept across retries and resends (N4).
    public var uuid: String
    /// The event it reports ("line:ID", "expired:ID", "test:UUID"): one notification per event.
    public var key: String
    public var account: String
    public var type: String
    public var subtype: String?
    /// The receipt line (transaction) it is about; nil for TEST.
    public var transactionID: String?
    public var group: String?
    /// When the event happened, on the store clock.
    public var createdAt: Date
    public var state: State
    public var attempts: [DeliveryAttempt]
    /// When the next attempt is due, on the store clock; nil once delivered or failed.
    public var nextAttemptAt: Date?
    /// The JWS `signedPayload`, made at the first attempt and sent unchanged after.
    public var signedPayload: String?
    /// A mass extension's summary (RENEWAL_EXTENSION, SUMMARY): `data.summary`, as JSON.
    public var summary: String?

    public init(
        key: String, account: String, type: String, subtype: String? = nil, transactionID: String? = nil,
        group: String? = nil,
        createdAt: Date, uuid: String = UUID().uuidString.lowercased()
    ) {
        self.uuid = uuid
        self.key = key
        self.account = account
        self.type = type
        self.subtype = subtype
        self.transactionID = transactionID
        self.group = group
        self.createdAt = createdAt
        state = .pending
        attempts = []
        nextAttemptAt = createdAt
        signedPayload = nil
    }

    /// "DID_RENEW", "SUBSCRIBED (INITIAL_BUY)".
    public var title: String { subtype.map { "\(type) (\($0))" } ?? type }
}

/// One POST: when (store clock), and the HTTP status or why there was none.
public struct DeliveryAttempt: Sendable, Equatable, Codable {
    public var at: Date
    public var status: Int?
    /// Why no status came, in words for people.
    public var error: String?
    /// Why no status came, as a kind; nil on attempts recorded before the kind was kept.
    public var problem: HTTPProblem?

    public init(at: Date, status: Int? = nil, error: String? = nil) {
        self.at = at
        self.status = status
        self.error = error
    }

    /// An attempt that got no answer, for `problem`.
    public init(at: Date, problem: HTTPProblem) {
        self.at = at
        self.error = problem.description
        self.problem = problem
    }

    public var succeeded: Bool { status == 200 }
}

/// Where notifications go: App Store Connect's "production server URL".
public struct Webhook: Sendable, Equatable, Codable {
    public var url: String
    /// The sandbox's single attempt instead of production's retries.
    public var once: Bool

    public init(url: String, once: Bool = false) {
        self.url = url
        self.once = once
    }

    /// What a customer's device is shown of the developer's webhook (W9): where notifications go
    /// (scheme, host and port), not its path or query, which may carry the developer's secret.
    /// Customers' devices never post to it: a team server delivers its own notifications.
    public var shownToCustomers: Webhook {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.host else {
            return Webhook(url: "(set)", once: once)
        }
        let hidden =
            !(parts.path.isEmpty || parts.path == "/") || parts.query != nil || parts.fragment != nil
            || parts.user != nil
        return Webhook(url: "\(scheme)://\(host)\(parts.port.map { ":\($0)" } ?? "")\(hidden ? "/…" : "")", once: once)
    }

    /// `text` as a webhook's URL: HOST:PORT/PATH with no scheme is http://, as `--server`'s
    /// HOST:PORT is; nil unless it is then an http:// or https:// URL with a host.
    public static func url(from text: String) -> String? {
        if text.contains("://") { return isValid(text) ? text : nil }
        let full = "http://" + text
        // "https//host/path" is a scheme mistyped, not a host named https.
        guard isValid(full), let host = URL(string: full)?.host?.lowercased(), host != "http", host != "https" else {
            return nil
        }
        return full
    }

    /// An http:// or https:// URL with a host (W13: https through the program's TLS client,
    /// trusting the system's roots and STOREFRONT_CA_FILE).
    public static func isValid(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return false }
        return true
    }
}

/// Which notification each receipt line means (N1), and Apple's retry schedule (N3).
public enum NotificationRules {
    /// Production retries 1, 12, 24, 48 and 72 hours after the first attempt.
    public static let retryHours = [1, 12, 24, 48, 72]

    /// The notification a line reports: its type and subtype, from the plan before and after it
    /// and the line that came just before it in the same write. Nil for lines that report nothing
    /// of their own (a credit belongs to its upgrade, a billing recovery to the renewal after it).
    public static func forLine(
        _ line: ReceiptEntry, before: PlanState?, after: PlanState?, previous: ReceiptEntry?
    ) -> (type: String, subtype: String?)? {
        switch line.event {
        // O7: a consumable's refund request asks the developer for consumption information first.
        case .refundRequest: return line.kind == .consumable ? ("CONSUMPTION_REQUEST", nil) : nil
        case .refundDeclined: return ("REFUND_DECLINED", nil)
        case .refundReversed: return ("REFUND_REVERSED", nil)
        case .consumptionInfo, .familyShare: return nil
        // O5: a family member's access to a shared purchase ends.
        case .familyRevoke: return ("REVOKE", nil)
        default: break
        }
        guard line.kind == .autoRenewableSubscription else {
            return line.event == .purchase ? ("ONE_TIME_CHARGE", nil) : line.event == .refund ? ("REFUND", nil) : nil
        }
        // O3: a redeemed offer code is OFFER_REDEEMED, with the subtype the purchase would have had
        // (none when the code is for the plan one has, from its next renewal).
        let redeemed = line.offerType == .code && (line.event == .purchase || line.event == .change)
        switch line.event {
        case .purchase:
            guard let before, before.endedAt == nil, before.hasAccess(at: line.purchaseDate) else {
                return (redeemed ? "OFFER_REDEEMED" : "SUBSCRIBED", before == nil ? "INITIAL_BUY" : "RESUBSCRIBE")
            }
            return (redeemed ? "OFFER_REDEEMED" : "DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        case .change:
            return (
                redeemed ? "OFFER_REDEEMED" : "DID_CHANGE_RENEWAL_PREF", after?.nextProductID != nil ? "DOWNGRADE" : nil
            )
        case .renewal:
            return ("DID_RENEW", previous?.event == .billingRecovered ? "BILLING_RECOVERY" : nil)
        case .cancel: return ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")
        case .renewOn: return ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED")
        case .billingFailure: return ("DID_FAIL_TO_RENEW", line.until != nil ? "GRACE_PERIOD" : nil)
        case .expire:
            return ("EXPIRED", line.planEnd?.expiredSubtype ?? "VOLUNTARY")
        case .refund: return ("REFUND", nil)
        case .extend: return ("RENEWAL_EXTENDED", nil)
        // O6: PENDING until the subscriber agrees; ACCEPTED when they do, or when no consent is needed.
        case .priceIncrease: return ("PRICE_INCREASE", line.meaning == .consentRequired ? "PENDING" : "ACCEPTED")
        case .priceConsent: return line.meaning == .declined ? nil : ("PRICE_INCREASE", "ACCEPTED")
        case .refundRequest, .refundDeclined, .refundReversed, .consumptionInfo, .familyShare, .familyRevoke: return nil
        case .credit, .billingRecovered: return nil
        }
    }

    /// Notifications the clock's passing means without a line of its own: a cancelled plan
    /// reaching the end of its period (EXPIRED, VOLUNTARY) and a grace period running out while
    /// billing still fails (GRACE_PERIOD_EXPIRED).
    public static func timed(_ plans: [String: PlanState], account: String, now: Date) -> [ServerNotification] {
        var found: [ServerNotification] = []
        for group in plans.keys.sorted() {
            let state = plans[group]!
            guard state.endedAt == nil else { continue }
            if state.billingFailedAt == nil, !state.autoRenew, state.expiresDate <= now {
                found.append(
                    ServerNotification(
                        key: "expired:\(state.transactionID)", account: account, type: "EXPIRED", subtype: "VOLUNTARY",
                        transactionID: state.transactionID, group: group, createdAt: state.expiresDate
                    ))
            }
            if state.billingFailedAt != nil, let grace = state.graceUntil, grace <= now {
                found.append(
                    ServerNotification(
                        key: "grace-expired:\(state.transactionID):\(Int(grace.timeIntervalSince1970))",
                        account: account,
                        type: "GRACE_PERIOD_EXPIRED", transactionID: state.transactionID, group: group, createdAt: grace
                    ))
            }
        }
        return found
    }

    /// When the attempt after `attempts` failed ones is due, or nil when there is none left.
    public static func nextAttempt(after attempts: [DeliveryAttempt], once: Bool) -> Date? {
        guard let first = attempts.first, !once, attempts.count <= retryHours.count else { return nil }
        return first.at.addingTimeInterval(TimeInterval(retryHours[attempts.count - 1] * 3600))
    }
}

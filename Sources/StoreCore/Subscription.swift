// Subscription arithmetic: extending (R5), what the header says (R6), and the expiry recomputed
// from the receipt alone (A6). Every date operation goes through the Calendar the caller gives.
import Foundation

public enum SubscriptionMath {
    /// R5: expiry = (later of `purchaseDate` and the current expiry) + months + bonus days.
    /// Renewing early keeps what was left; after a lapse a new period starts at the purchase.
    public static func extend(
        expiry current: Date?, purchaseDate: Date, months: Int, bonusDays: Int, calendar: Calendar
    ) -> Date {
        let start = max(current ?? purchaseDate, purchaseDate)
        // Months first, then the bonus days: 30 Jan + 1 month + 1 day is 1 Mar, not 28 Feb.
        let afterMonths = StoreDuration(months: months).added(to: start, calendar: calendar)
        return StoreDuration(days: bonusDays).added(to: afterMonths, calendar: calendar)
    }

    /// R6: active while now < expiry, to the second.
    public static func isActive(expiry: Date?, now: Date) -> Bool {
        guard let expiry else { return false }
        return now < expiry
    }

    /// Whole days left (R6); 0 when less than a day is left or not subscribed.
    public static func daysRemaining(expiry: Date?, now: Date) -> Int {
        guard let expiry, now < expiry else { return 0 }
        return Int(expiry.timeIntervalSince(now) / 86_400)
    }

    /// The header text of R6, exactly: `Subscribed! Expires: dd/MM/yyyy (N Days)` or `Not Subscribed`.
    /// One day left reads `(1 Day)`; under a day reads `(less than 1 Day: 5h 12m left)`.
    public static func header(expiry: Date?, now: Date, calendar: Calendar) -> String {
        guard let expiry, isActive(expiry: expiry, now: now) else { return "Not Subscribed" }
        let days = daysRemaining(expiry: expiry, now: now)
        let left: String
        switch days {
        case 0:
            let seconds = Int(expiry.timeIntervalSince(now))
            let hours = seconds / 3600, minutes = (seconds % 3600) / 60
            let rest = hours > 0 ? "\(hours)h \(minutes)m" : minutes > 0 ? "\(minutes)m" : "\(seconds)s"
            left = "less than 1 Day: \(rest) left"
        case 1: left = "1 Day"
        default: left = "\(days) Days"
        }
        return "Subscribed! Expires: \(formatDay(expiry, calendar: calendar)) (\(left))"
    }

    /// dd/MM/yyyy in the calendar's time zone.
    public static func formatDay(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.day, .month, .year], from: date)
        return String(format: "%02d/%02d/%04d", parts.day ?? 0, parts.month ?? 0, parts.year ?? 0)
    }

    /// A6: the effective expiry from the receipt alone. Sort by purchase time (then id, so that
    /// equal times give one answer); a purchase before the running expiry extends it, one after a
    /// lapse starts a new period at its purchase time.
    public static func recomputeExpiry(from receipt: [ReceiptEntry], calendar: Calendar) -> Date? {
        let subscriptions = receipt
            .filter { $0.months > 0 }
            .sorted { ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID) }
        var expiry: Date?
        for entry in subscriptions {
            expiry = extend(
                expiry: expiry, purchaseDate: entry.purchaseDate, months: entry.months,
                bonusDays: entry.bonusDays, calendar: calendar
            )
        }
        return expiry
    }
}

/// One line of an account's receipt: what was bought, when, and the terms it was bought on (the
/// months and bonus days are kept so that a later catalog change cannot rewrite the past).
public struct ReceiptEntry: Sendable, Equatable, Codable {
    public var transactionID: String
    public var account: String
    public var productID: String
    public var kind: ProductKind
    public var quantity: Int
    public var months: Int
    public var bonusDays: Int
    public var purchaseDate: Date
    public var device: String

    public init(
        transactionID: String, account: String, productID: String, kind: ProductKind, quantity: Int = 0,
        months: Int = 0, bonusDays: Int = 0, purchaseDate: Date, device: String
    ) {
        self.transactionID = transactionID
        self.account = account
        self.productID = productID
        self.kind = kind
        self.quantity = quantity
        self.months = months
        self.bonusDays = bonusDays
        self.purchaseDate = purchaseDate
        self.device = device
    }
}

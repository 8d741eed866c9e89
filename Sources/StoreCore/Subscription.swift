// Subscription arithmetic: extending (R5), what the header says (R6), and the expiry recomputed
// from the receipt alone (A6). Every date operation goes through the Calendar the caller gives.
import Foundation

public enum SubscriptionMath {
    /// R5: expiry = (later of `purchaseDate` and the current expiry) + months + days + bonus days.
    /// Renewing early keeps what was left; after a lapse a new period starts at the purchase.
    /// Months (and years, as twelve) clamp at month ends; days and weeks add exactly.
    public static func extend(
        expiry current: Date?, purchaseDate: Date, months: Int, days: Int = 0, bonusDays: Int, calendar: Calendar
    ) -> Date {
        let start = max(current ?? purchaseDate, purchaseDate)
        if let offset = FixedOffsetArithmetic.offset(of: calendar) {
            return FixedOffsetArithmetic.adding(months: months, days: days + bonusDays, to: start, offset: offset)
        }
        // Months first, then the days: 30 Jan + 1 month + 1 day is 1 Mar, not 28 Feb.
        let afterMonths = StoreDuration(months: months).added(to: start, calendar: calendar)
        return StoreDuration(days: days + bonusDays).added(to: afterMonths, calendar: calendar)
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

    public static let notSubscribed = "Not Subscribed"

    /// The header text of R6, exactly: `Subscribed! Expires: dd/MM/yyyy (N Days)` or `Not Subscribed`.
    /// One day left reads `(1 Day)`; under a day reads `(less than 1 Day: 5h 12m left)`.
    public static func header(expiry: Date?, now: Date, calendar: Calendar) -> String {
        guard let expiry, isActive(expiry: expiry, now: now) else { return notSubscribed }
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
        let ordered = { (a: ReceiptEntry, b: ReceiptEntry) in (a.purchaseDate, a.transactionID) < (b.purchaseDate, b.transactionID) }
        // The server hands the receipt over in order already: check that in one pass, and sort
        // (a copy) only when it is not.
        var previous = -1
        var isOrdered = true
        for index in receipt.indices where receipt[index].extendsExpiry {
            if previous >= 0, ordered(receipt[index], receipt[previous]) {
                isOrdered = false
                break
            }
            previous = index
        }
        if isOrdered { return chain(receipt, calendar: calendar) }
        return chain(receipt.filter(\.extendsExpiry).sorted(by: ordered), calendar: calendar)
    }

    /// R5 applied along an ordered receipt.
    private static func chain(_ entries: [ReceiptEntry], calendar: Calendar) -> Date? {
        var expiry: Date?
        // The calendar is asked once whether its offset is fixed, not once per entry.
        let offset = FixedOffsetArithmetic.offset(of: calendar)
        for entry in entries where entry.extendsExpiry {
            if let offset {
                let start = max(expiry ?? entry.purchaseDate, entry.purchaseDate)
                expiry = FixedOffsetArithmetic.adding(months: entry.months, days: entry.days + entry.bonusDays, to: start, offset: offset)
            } else {
                expiry = extend(
                    expiry: expiry, purchaseDate: entry.purchaseDate, months: entry.months, days: entry.days,
                    bonusDays: entry.bonusDays, calendar: calendar
                )
            }
        }
        return expiry
    }
}

/// One line of an account's receipt: what was bought, when, and the terms it was bought on (the
/// months and bonus days are kept so that a later catalog change cannot rewrite the past). An
/// auto-renewable subscription adds lines for everything that changes its state (renewals,
/// cancellations, refunds, billing failures), so that its state is a fold over the receipt.
public struct ReceiptEntry: Sendable, Equatable, Codable {
    public var transactionID: String
    public var account: String
    public var productID: String
    public var kind: ProductKind
    public var quantity: Int
    public var months: Int
    /// Days (weeks as seven) a non-renewing subscription adds after its months.
    public var days: Int
    public var bonusDays: Int
    public var purchaseDate: Date
    public var device: String
    /// What the line records; `purchase` for everything but auto-renewable subscriptions.
    public var event: ReceiptEvent
    /// The subscription group of an auto-renewable line.
    public var group: String?
    /// The end of the period a purchase or renewal pays for.
    public var expiresDate: Date?
    /// The mode of the offer this period was sold on, if any.
    public var offer: IntroductoryOffer.Mode?
    /// Which kind of offer (nil with an `offer`: the introductory one, as lines recorded before
    /// offer types say), and a promotional, code or win-back offer's identifier.
    public var offerType: OfferType?
    public var offerID: String?
    /// What was charged (negative for a prorated credit); nil where the line charges nothing.
    public var price: Decimal?
    /// The transaction a line is about: the original purchase of a renewal, the refunded one.
    public var reference: String?
    /// Grace period end of a billing failure.
    public var until: Date?
    /// Why: an expiry's cause, a note for people.
    public var note: String?

    public init(
        transactionID: String, account: String, productID: String, kind: ProductKind, quantity: Int = 0,
        months: Int = 0, days: Int = 0, bonusDays: Int = 0, purchaseDate: Date, device: String, event: ReceiptEvent = .purchase,
        group: String? = nil, expiresDate: Date? = nil, offer: IntroductoryOffer.Mode? = nil, offerType: OfferType? = nil,
        offerID: String? = nil, price: Decimal? = nil, reference: String? = nil, until: Date? = nil, note: String? = nil
    ) {
        self.offerType = offerType
        self.offerID = offerID
        self.transactionID = transactionID
        self.account = account
        self.productID = productID
        self.kind = kind
        self.quantity = quantity
        self.months = months
        self.days = days
        self.bonusDays = bonusDays
        self.purchaseDate = purchaseDate
        self.device = device
        self.event = event
        self.group = group
        self.expiresDate = expiresDate
        self.offer = offer
        self.price = price
        self.reference = reference
        self.until = until
        self.note = note
    }

    /// The kind of offer the line was sold on: nil without one.
    public var soldOn: OfferType? { offer == nil ? nil : offerType ?? .introductory }

    /// The note of a plan line a purchase wrote when it changed the plan without starting a period
    /// (a downgrade for the next renewal, auto-renew back on): the purchase's transaction all the same.
    public static let byPurchase = "by a purchase"

    /// A line that is a transaction the App Store would list: a purchase, a renewal, or a purchase
    /// that changed the plan for later.
    public var isTransaction: Bool { event == .purchase || event == .renewal || event == .familyShare || note == Self.byPurchase }

    /// A line that extends the non-renewing expiry (R5): one with months or days.
    public var extendsExpiry: Bool { months > 0 || days > 0 }
}

/// The kinds of receipt line.
public enum ReceiptEvent: String, Sendable, Codable, CaseIterable {
    /// A purchase; for an auto-renewable subscription, the start of a plan (or an upgrade).
    case purchase
    /// A period renewed.
    case renewal
    /// A prorated refund of what was left of a period when an upgrade replaced it.
    case credit
    /// Auto-renew turned off / back on.
    case cancel
    case renewOn = "renew-on"
    /// A transaction refunded: its access ends at once.
    case refund
    /// The plan ended now (by hand, after billing retry gave up, at the sandbox's renewal limit).
    case expire
    /// A renewal could not be charged: billing retry, with access kept until `until` (grace).
    case billingFailure = "billing-failure"
    /// Billing works again; a renewal follows.
    case billingRecovered = "billing-recovered"
    /// The plan switches to `productID` at the next renewal (a downgrade).
    case change
    /// The developer moved the renewal date (the App Store Server API's extensions, V3): the
    /// period now ends at `expiresDate`, and the next run of periods counts from there.
    case extend
    /// O6: the developer raised the price of the plan's product (`price`; `note` "consent
    /// required" when the subscriber must agree; `until` names the change by its time).
    case priceIncrease = "price-increase"
    /// O6: the subscriber agreed to the price increase (`note` "declined": refused it).
    case priceConsent = "price-consent"
    /// O7: the customer asked for a refund of `reference` (`note`: the reason).
    case refundRequest = "refund-request"
    /// O7: the refund request of `reference` was declined.
    case refundDeclined = "refund-declined"
    /// O7: the refund of `reference` was taken back: the purchase counts again.
    case refundReversed = "refund-reversed"
    /// O7: the developer's consumption information for `reference` (`note`: the JSON sent).
    case consumptionInfo = "consumption-info"
    /// O5: a family member's own transaction for the organizer's purchase `reference` (a comic,
    /// or the purchase that started a plan); `note` names the organizer.
    case familyShare = "family-share"
    /// O5: the family share `reference` taken away (the member left, or sharing was turned off).
    case familyRevoke = "family-revoke"
}

extension ReceiptEntry {
    /// The purchases `lines` refund and do not take back (O7).
    public static func revoked(in lines: [ReceiptEntry]) -> Set<String> {
        // A reversal names the refund line it takes back, so the answer does not depend on the
        // order lines of one second are read back in.
        let reversed = Set(lines.compactMap { $0.event == .refundReversed ? $0.refundReversed : nil })
        return Set(lines.compactMap { $0.event == .refund && !reversed.contains($0.transactionID) ? $0.reference : nil })
    }

    /// A refund request's answer (refund or decline) names its request in `note`; a reversal
    /// names the refund line it takes back.
    public static func answering(_ requestID: String) -> String { "request " + requestID }
    public static func reversing(_ refundID: String) -> String { "refund " + refundID }

    /// The request a refund or decline answers, if it names one.
    public var answeredRequest: String? { note.flatMap { $0.hasPrefix("request ") ? String($0.dropFirst(8)) : nil } }
    /// The refund line a reversal takes back.
    public var refundReversed: String? { note.flatMap { $0.hasPrefix("refund ") ? String($0.dropFirst(7)) : nil } }

    /// The line of `lines` named by its id, or by a unique prefix of 4+ characters; nil when none
    /// is, `ambiguousTransaction` when several are.
    public static func named(_ id: String, in lines: [ReceiptEntry]) throws(StoreError) -> ReceiptEntry? {
        let matches = lines.filter { $0.transactionID == id || (id.count >= 4 && $0.transactionID.hasPrefix(id)) }
        if let exact = matches.first(where: { $0.transactionID == id }) { return exact }
        if matches.count > 1 { throw StoreError.ambiguousTransaction(id, matches: matches.map(\.transactionID)) }
        return matches.first
    }

    /// The non-consumables `lines` (an account's, of that kind) leave owned, each with the lowest id
    /// of its purchases (the one restores point at): refunded ones are not (O7).
    public static func owned(_ lines: [ReceiptEntry]) -> [(productID: String, transactionID: String)] {
        let revoked = revoked(in: lines)
        let bought = lines.filter { $0.event == .purchase && !revoked.contains($0.transactionID) }
        var owned: [(productID: String, transactionID: String)] = []
        for line in bought where !owned.contains(where: { $0.productID == line.productID }) {
            owned.append((line.productID, bought.filter { $0.productID == line.productID }.map(\.transactionID).min() ?? line.transactionID))
        }
        return owned
    }

    /// A line a device learns from with the plan lines: a refund or its reversal of any purchase.
    public var isRevocation: Bool { event == .refund || event == .refundReversed || event == .familyShare || event == .familyRevoke }
}

/// Calendar arithmetic for a Gregorian calendar whose time zone never changes its offset (UTC,
/// Asia/Tokyo): the same answers as `Calendar.date(byAdding:)` (a month end clamps, 31 Jan + 1
/// month = 28 or 29 Feb) in integer arithmetic on civil dates, about fifty times faster. Zones
/// with daylight saving go through Calendar, which knows their transitions.
enum FixedOffsetArithmetic {
    static func offset(of calendar: Calendar) -> Int? {
        guard calendar.identifier == .gregorian else { return nil }
        let zone = calendar.timeZone
        // No transition in either direction from now on, and none in the past decades we could see.
        guard zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: 0)) == nil else { return nil }
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0)) == zone.secondsFromGMT() ? zone.secondsFromGMT() : nil
    }

    static func adding(months: Int, days: Int, to date: Date, offset: Int) -> Date {
        let local = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let fraction = date.timeIntervalSince1970 - date.timeIntervalSince1970.rounded(.down)
        var dayNumber = floorDivide(local, 86_400)
        let secondOfDay = local - dayNumber * 86_400
        var (year, month, day) = civil(fromDays: dayNumber)
        let totalMonths = year * 12 + (month - 1) + Int64(months)
        year = floorDivide(totalMonths, 12)
        month = totalMonths - year * 12 + 1
        day = min(day, daysIn(month: month, year: year))
        dayNumber = daysFromCivil(year: year, month: month, day: day) + Int64(days)
        let seconds = dayNumber * 86_400 + secondOfDay - Int64(offset)
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's days_from_civil).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysFromCivil` (civil_from_days).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

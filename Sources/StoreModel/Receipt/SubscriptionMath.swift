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

    /// Whole calendar days left (R6): from today to the expiry's day in the calendar's time zone, so
    /// the count changes at midnight, never a second after a purchase; 0 on the last day or when
    /// not subscribed.
    public static func daysRemaining(expiry: Date?, now: Date, calendar: Calendar) -> Int {
        guard let expiry, now < expiry else { return 0 }
        return max(
            0,
            calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: expiry))
                .day ?? 0)
    }

    public static let notSubscribed = "Not Subscribed"

    /// The header text of R6, exactly: `Subscribed! Expires: dd/MM/yyyy (N Days)` or `Not Subscribed`.
    /// Expiring tomorrow reads `(1 Day)`; on its last day `(less than 1 Day: 5h 12m left)`.
    public static func header(expiry: Date?, now: Date, calendar: Calendar) -> String {
        guard let expiry, isActive(expiry: expiry, now: now) else { return notSubscribed }
        let days = daysRemaining(expiry: expiry, now: now, calendar: calendar)
        let left: String
        switch days {
        case 0:
            let seconds = Int(expiry.timeIntervalSince(now))
            let hours = seconds / 3600
            let minutes = (seconds % 3600) / 60
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
        let ordered = { (a: ReceiptEntry, b: ReceiptEntry) in
            (a.purchaseDate, a.transactionID) < (b.purchaseDate, b.transactionID)
        }
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
                expiry = FixedOffsetArithmetic.adding(
                    months: entry.months, days: entry.days + entry.bonusDays, to: start, offset: offset)
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
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0)) == zone.secondsFromGMT()
            ? zone.secondsFromGMT() : nil
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

// R5, R6 and A6: the arithmetic of non-renewing subscriptions.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Subscription arithmetic")
struct SubscriptionTests {
    struct MonthEndCase: Sendable, CustomTestStringConvertible {
        let from: Date, months: Int, bonus: Int, expected: Date
        var testDescription: String { "\(from) + \(months)mo + \(bonus)d" }
    }

    @Test(
        "R5 month ends clamp: 31 Jan + 1 month is the last day of February",
        arguments: [
            MonthEndCase(from: utc(2027, 1, 31), months: 1, bonus: 0, expected: utc(2027, 2, 28)),
            MonthEndCase(from: utc(2028, 1, 31), months: 1, bonus: 0, expected: utc(2028, 2, 29)),
            MonthEndCase(from: utc(2026, 8, 31), months: 3, bonus: 0, expected: utc(2026, 11, 30)),
            MonthEndCase(from: utc(2026, 8, 31), months: 6, bonus: 1, expected: utc(2027, 3, 1)),
            MonthEndCase(from: utc(2026, 1, 15, 12), months: 3, bonus: 1, expected: utc(2026, 4, 16, 12)),
            MonthEndCase(
                from: utc(2027, 12, 31, 23, 59, 59), months: 2, bonus: 0, expected: utc(2028, 2, 29, 23, 59, 59)),
        ])
    func monthEnds(_ example: MonthEndCase) {
        let expiry = SubscriptionMath.extend(
            expiry: nil, purchaseDate: example.from, months: example.months, bonusDays: example.bonus,
            calendar: utcCalendar
        )
        #expect(expiry == example.expected)
    }

    @Test("R5 renewing early keeps the remaining time")
    func earlyRenewal() {
        let current = utc(2026, 3, 10)
        let expiry = SubscriptionMath.extend(
            expiry: current, purchaseDate: utc(2026, 2, 1), months: 6, bonusDays: 1, calendar: utcCalendar
        )
        #expect(expiry == utc(2026, 9, 11))
    }

    @Test("R5 after a lapse a new period starts at the purchase")
    func afterLapse() {
        let expiry = SubscriptionMath.extend(
            expiry: utc(2026, 1, 1), purchaseDate: utc(2026, 5, 20, 8), months: 3, bonusDays: 1, calendar: utcCalendar
        )
        #expect(expiry == utc(2026, 8, 21, 8))
    }

    @Test("R6 active while now < expiry, to the second")
    func exactSecond() {
        let expiry = utc(2026, 4, 16, 12)
        #expect(SubscriptionMath.isActive(expiry: expiry, now: expiry.addingTimeInterval(-1)))
        #expect(!SubscriptionMath.isActive(expiry: expiry, now: expiry))
        #expect(!SubscriptionMath.isActive(expiry: expiry, now: expiry.addingTimeInterval(1)))
        #expect(SubscriptionMath.header(expiry: expiry, now: expiry, calendar: utcCalendar) == "Not Subscribed")
        #expect(
            SubscriptionMath.header(expiry: expiry, now: expiry.addingTimeInterval(-1), calendar: utcCalendar)
                == "Subscribed! Expires: 16/04/2026 (less than 1 Day: 1s left)"
        )
    }

    @Test("R6 header text with whole calendar days (the same all day long), one day and less than a day")
    func headerText() {
        let expiry = utc(2026, 4, 16, 12)
        let header = { (now: Date) in SubscriptionMath.header(expiry: expiry, now: now, calendar: utcCalendar) }
        #expect(header(utc(2026, 1, 15, 12)) == "Subscribed! Expires: 16/04/2026 (91 Days)")
        #expect(
            header(utc(2026, 1, 15, 12, 0, 1)) == "Subscribed! Expires: 16/04/2026 (91 Days)",
            "a second after the purchase")
        #expect(header(utc(2026, 1, 15, 23, 59, 59)) == "Subscribed! Expires: 16/04/2026 (91 Days)", "all that day")
        #expect(header(utc(2026, 1, 16, 0)) == "Subscribed! Expires: 16/04/2026 (90 Days)", "one less from midnight")
        #expect(header(utc(2026, 4, 14, 11)) == "Subscribed! Expires: 16/04/2026 (2 Days)")
        #expect(header(utc(2026, 4, 15, 11)) == "Subscribed! Expires: 16/04/2026 (1 Day)")
        #expect(header(utc(2026, 4, 15, 12)) == "Subscribed! Expires: 16/04/2026 (1 Day)")
        #expect(header(utc(2026, 4, 15, 12, 0, 1)) == "Subscribed! Expires: 16/04/2026 (1 Day)", "it ends tomorrow")
        #expect(header(utc(2026, 4, 16, 0, 0, 1)) == "Subscribed! Expires: 16/04/2026 (less than 1 Day: 11h 59m left)")
        #expect(header(utc(2026, 4, 16, 11, 30)) == "Subscribed! Expires: 16/04/2026 (less than 1 Day: 30m left)")
        #expect(SubscriptionMath.header(expiry: nil, now: expiry, calendar: utcCalendar) == "Not Subscribed")
        #expect(
            SubscriptionMath.daysRemaining(expiry: expiry, now: utc(2026, 4, 16, 0, 0, 1), calendar: utcCalendar) == 0)
    }

    @Test("R6 the date is the calendar's time zone's day")
    func headerTimeZone() {
        var tokyo = Calendar(identifier: .gregorian)
        tokyo.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        let expiry = utc(2026, 4, 16, 20)  // 17 April in Tokyo
        #expect(
            SubscriptionMath.header(expiry: expiry, now: utc(2026, 4, 1), calendar: tokyo).hasPrefix(
                "Subscribed! Expires: 17/04/2026"))
    }

    @Test("A6 recomputation chains early renewals and restarts after lapses")
    func recomputation() {
        let entries = [
            ReceiptEntry(
                transactionID: "2", account: "a", productID: "sub6", kind: .nonRenewingSubscription, months: 6,
                bonusDays: 1, purchaseDate: utc(2026, 3, 1), device: "x"),
            ReceiptEntry(
                transactionID: "1", account: "a", productID: "sub3", kind: .nonRenewingSubscription, months: 3,
                bonusDays: 1, purchaseDate: utc(2026, 1, 1), device: "x"),
            ReceiptEntry(
                transactionID: "3", account: "a", productID: "comic", kind: .nonConsumable,
                purchaseDate: utc(2026, 2, 1), device: "x"),
            ReceiptEntry(
                transactionID: "4", account: "a", productID: "sub3", kind: .nonRenewingSubscription, months: 3,
                bonusDays: 1, purchaseDate: utc(2027, 6, 1), device: "y"),
        ]
        // 1 Jan + 3mo + 1d = 2 Apr; renewed 1 Mar early: 2 Apr + 6mo + 1d = 3 Oct; lapsed; 1 Jun 2027 + 3mo + 1d.
        #expect(SubscriptionMath.recomputeExpiry(from: entries, calendar: utcCalendar) == utc(2027, 9, 2))
        #expect(
            SubscriptionMath.recomputeExpiry(from: Array(entries.prefix(3)), calendar: utcCalendar) == utc(2026, 10, 3))
        #expect(SubscriptionMath.recomputeExpiry(from: [], calendar: utcCalendar) == nil)
    }
}

@Suite("Durations")
struct DurationTests {
    @Test(
        "durations as people type them",
        arguments: [
            ("90m", StoreDuration(seconds: 5400)), ("12h", StoreDuration(seconds: 43_200)),
            ("1d", StoreDuration(days: 1)),
            ("2w", StoreDuration(days: 14)), ("3mo", StoreDuration(months: 3)), ("1y", StoreDuration(years: 1)),
            ("30s", StoreDuration(seconds: 30)), ("1d12h", StoreDuration(days: 1, seconds: 43_200)),
            // The units as words, with spaces between (`clock advance 3 days`, a scenario's `advance 2 weeks`).
            ("3 months", StoreDuration(months: 3)), ("3 days", StoreDuration(days: 3)),
            ("2 Weeks", StoreDuration(days: 14)),
            ("1 year 2 months", StoreDuration(years: 1, months: 2)),
            ("1 month, 2 days", StoreDuration(months: 1, days: 2)),
            ("90 minutes", StoreDuration(seconds: 5400)), ("1 hour 30 min", StoreDuration(seconds: 5400)),
            ("45 seconds", StoreDuration(seconds: 45)),
            ("1 day 12h", StoreDuration(days: 1, seconds: 43_200)),
        ])
    func parses(_ text: String, _ expected: StoreDuration) throws {
        #expect(try StoreDuration(parsing: text) == expected)
    }

    @Test(
        "a malformed duration is refused with an example",
        arguments: ["", "3", "mo", "3 moons", "3 dayz", "3 m o", "days 3", ", 3d", "1.5d", "-1d", "5q", "99999999d"])
    func refuses(_ text: String) {
        #expect(throws: StoreDuration.ParseError.self) { try StoreDuration(parsing: text) }
    }
}

@Suite("Subscription arithmetic, order of units")
struct BonusOrderTests {
    @Test("R5 months are added before the bonus days")
    func monthsBeforeBonus() {
        let expiry = SubscriptionMath.extend(
            expiry: nil, purchaseDate: utc(2027, 1, 30), months: 1, bonusDays: 1, calendar: utcCalendar)
        #expect(expiry == utc(2027, 3, 1))
    }
}

@Suite("Subscription arithmetic, every unit")
struct DurationUnitTests {
    @Test(
        "R5 days and weeks add exactly, months and years clamp; A6 replays a receipt of mixed units to the stored expiry",
        arguments: ["UTC", "Europe/Paris"])
    func everyUnit(zone: String) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        func extend(_ from: Date, _ period: SubscriptionPeriod, bonus: Int = 0) -> Date {
            let duration = period.duration()
            return SubscriptionMath.extend(
                expiry: nil, purchaseDate: from, months: duration.months, days: duration.days, bonusDays: bonus,
                calendar: calendar)
        }
        let start = try #require(calendar.date(from: DateComponents(year: 2027, month: 1, day: 31, hour: 9)))
        func day(_ y: Int, _ m: Int, _ d: Int) -> Date {
            calendar.date(from: DateComponents(year: y, month: m, day: d, hour: 9))!
        }
        #expect(extend(start, SubscriptionPeriod(7, .day)) == day(2027, 2, 7))
        #expect(extend(start, SubscriptionPeriod(2, .week)) == day(2027, 2, 14))
        #expect(extend(start, SubscriptionPeriod(1, .month)) == day(2027, 2, 28), "31 Jan + 1 month clamps")
        #expect(extend(start, SubscriptionPeriod(1, .year)) == day(2028, 1, 31))
        #expect(extend(day(2028, 2, 29), SubscriptionPeriod(1, .year)) == day(2029, 2, 28), "29 Feb + 1 year clamps")
        #expect(extend(start, SubscriptionPeriod(30, .day), bonus: 1) == day(2027, 3, 3))
        // Days cross the change to summer time in Paris on 28 March 2027 as calendar days.
        #expect(extend(day(2027, 3, 25), SubscriptionPeriod(7, .day)) == day(2027, 4, 1))
        var receipt: [ReceiptEntry] = []
        var stored: Date?
        var now = start
        for (index, period) in [
            SubscriptionPeriod(7, .day), .month, SubscriptionPeriod(2, .week), .year, SubscriptionPeriod(3, .day),
        ].enumerated() {
            let duration = period.duration()
            let entry = ReceiptEntry(
                transactionID: "t\(index)", account: "ann", productID: "p", kind: .nonRenewingSubscription,
                months: duration.months, days: duration.days, bonusDays: 1, purchaseDate: now, device: "d"
            )
            receipt.append(entry)
            stored = SubscriptionMath.extend(
                expiry: stored, purchaseDate: now, months: entry.months, days: entry.days, bonusDays: 1,
                calendar: calendar)
            now = now.addingTimeInterval(Double(index + 1) * 20 * 86_400)
        }
        #expect(SubscriptionMath.recomputeExpiry(from: receipt, calendar: calendar) == stored)
    }
}

@Suite("Fixed-offset calendar arithmetic")
struct FixedOffsetTests {
    @Test(
        "R5 the fast path gives Calendar's answers, over many dates, months and zones",
        arguments: ["UTC", "Asia/Tokyo", "Asia/Kolkata", "Etc/GMT+5"])
    func matchesCalendar(zone: String) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        let offset = try #require(FixedOffsetArithmetic.offset(of: calendar))
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<3000 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int64.random(in: 0...4_102_444_800, using: &generator)))
            let months = Int.random(in: 0...30, using: &generator)
            let days = Int.random(in: 0...3, using: &generator)
            let expected = StoreDuration(days: days).added(
                to: StoreDuration(months: months).added(to: date, calendar: calendar), calendar: calendar)
            #expect(
                FixedOffsetArithmetic.adding(months: months, days: days, to: date, offset: offset) == expected,
                "\(date) + \(months)mo + \(days)d in \(zone)")
        }
    }

    @Test(
        "zones with daylight saving, or whose offset changed since 1970, go through Calendar",
        arguments: ["Europe/Paris", "America/New_York", "Pacific/Kiritimati"])
    func daylightSaving(zone: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        #expect(FixedOffsetArithmetic.offset(of: calendar) == nil)
    }
}

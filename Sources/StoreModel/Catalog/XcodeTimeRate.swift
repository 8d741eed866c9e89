// Xcode's test-session time rates (`settings._timeRate` of a `.storekit` file) as the store's clock
// rates. The numbers are `SKTestTimeRate` in StoreKitTest's `SKTestSession.h` (iOS SDK); the
// meanings are Apple's documentation of `SKTestSession.TimeRate` (docs/decisions/0008 cites both).
import Foundation

public enum XcodeTimeRate {
    public enum Mapping: Equatable, Sendable {
        /// The rate means exactly this many store seconds per real second.
        case exact(Double)
        /// The store's clock cannot run this rate exactly; this is the nearest, and why.
        case nearest(Double, String)
    }

    static let day: Double = 86_400
    /// A month as the monthly renewal rates count it: the sandbox table (one month in five minutes)
    /// is `ClockSetting.sandboxRate`, 30 days in 300 seconds.
    static let month: Double = 30 * day

    /// Every documented value: 0 real time; 1–6 "N is one day" (deprecated in iOS 15.2); 10–13
    /// and 15 "monthly renewal every N"; 1000–1005 "one renewal every N" for any period (iOS 16.4).
    public static let documented: [Int: (name: String, rate: Double)] = [
        0: ("realTime", 1),
        1: ("oneHourIsOneDay", day / 3600),
        2: ("thirtyMinutesIsOneDay", day / 1800),
        3: ("fiveMinutesIsOneDay", day / 300),
        4: ("oneMinuteIsOneDay", day / 60),
        5: ("thirtySecondsIsOneDay", day / 30),
        6: ("oneSecondIsOneDay", day),
        10: ("monthlyRenewalEveryHour", month / 3600),
        11: ("monthlyRenewalEveryThirtyMinutes", month / 1800),
        12: ("monthlyRenewalEveryFifteenMinutes", month / 900),
        13: ("monthlyRenewalEveryFiveMinutes", month / 300),
        15: ("monthlyRenewalEveryThirtySeconds", month / 30),
        1000: ("oneRenewalEveryFifteenMinutes", month / 900),
        1001: ("oneRenewalEveryFiveMinutes", month / 300),
        1002: ("oneRenewalEveryMinute", month / 60),
        1003: ("oneRenewalEveryThirtySeconds", month / 30),
        1004: ("oneRenewalEveryTenSeconds", month / 10),
        1005: ("oneRenewalEveryTwoSeconds", month / 2),
    ]

    /// The clock rate for Xcode's value `value`.
    public static func clockRate(_ value: Int) -> Mapping {
        if let known = documented[value] {
            if value >= 1000 {
                // Xcode renews every period, a week or a year, in the same time; the store's clock is
                // one linear rate, so a monthly plan renews in that time and the others scale.
                return .nearest(
                    known.rate,
                    "Xcode time rate \(value) (\(known.name)) renews every period in the same time; "
                        + "Storefront's clock runs at one rate, so a monthly plan renews in that time and longer plans take longer"
                )
            }
            return .exact(known.rate)
        }
        // An undocumented value: the nearest documented one by number, said in one line.
        let nearest =
            documented.keys.min { abs($0 - value) < abs($1 - value) || (abs($0 - value) == abs($1 - value) && $0 < $1) }
            ?? 0
        let known = documented[nearest]!
        return .nearest(
            known.rate, "Xcode time rate \(value) is not one Storefront knows; run as \(nearest) (\(known.name))")
    }
}

// Periods of auto-renewable subscriptions and their introductory offers (C2), written as
// ISO 8601 durations the way App Store Connect and Xcode's StoreKit files write them: P3D, P1W,
// P1M, P2M, P3M, P6M, P1Y.
import Foundation

public struct SubscriptionPeriod: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public enum Unit: String, Sendable, Codable, CaseIterable {
        case day, week, month, year
    }

    public var value: Int
    public var unit: Unit

    public init(_ value: Int, _ unit: Unit) {
        self.value = value
        self.unit = unit
    }

    public static let week = SubscriptionPeriod(1, .week)
    public static let month = SubscriptionPeriod(1, .month)
    public static let year = SubscriptionPeriod(1, .year)

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// "P1W", "P1M", "P3D", "P1Y"; one unit, a count from 1 to 999.
    public init(parsing text: String) throws(ParseError) {
        let upper = text.trimmingCharacters(in: .whitespaces).uppercased()
        let bad = ParseError(description: "\"\(text)\" is not a period (expected P3D, P1W, P1M, P2M, P3M, P6M or P1Y)")
        guard upper.hasPrefix("P"), upper.count >= 3, let unitLetter = upper.last else { throw bad }
        let digits = upper.dropFirst().dropLast()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(digits), (1...999).contains(count)
        else {
            throw bad
        }
        switch unitLetter {
        case "D": self.init(count, .day)
        case "W": self.init(count, .week)
        case "M": self.init(count, .month)
        case "Y": self.init(count, .year)
        default: throw bad
        }
    }

    /// The ISO 8601 form: P1M.
    public var description: String {
        "P\(value)\(unit.rawValue.prefix(1).uppercased())"
    }

    /// "1 week", "3 months", "1 year".
    public var phrase: String {
        "\(value) \(unit.rawValue)\(value == 1 ? "" : "s")"
    }

    /// "month" for one, "3 months" for more: what a price is per ("$4.99/month").
    public var unitPhrase: String { value == 1 ? unit.rawValue : phrase }

    /// "Weekly", "Monthly", "Every 3 months".
    public var adjective: String {
        switch (value, unit) {
        case (1, .day): "Daily"
        case (1, .week): "Weekly"
        case (1, .month): "Monthly"
        case (1, .year): "Yearly"
        default: "Every \(phrase)"
        }
    }

    /// `count` periods as a calendar duration (weeks as days, years as months, so that month ends clamp).
    public func duration(times count: Int = 1) -> StoreDuration {
        switch unit {
        case .day: StoreDuration(days: value * count)
        case .week: StoreDuration(days: 7 * value * count)
        case .month: StoreDuration(months: value * count)
        case .year: StoreDuration(months: 12 * value * count)
        }
    }

    /// How long the App Store sandbox lets one period last, in real seconds: 3 days → 2 min,
    /// 1 week → 3 min, 1 month → 5 min, 2 months → 10, 3 months → 15, 6 months → 30, 1 year → 1 h.
    public var sandboxSeconds: Int {
        switch unit {
        case .day: value * 40
        case .week: value * 180
        case .month: value * 300
        case .year: value * 3600
        }
    }

    /// A rough length in days, for comparing plans of one group and for prorating.
    public var approximateDays: Double {
        switch unit {
        case .day: Double(value)
        case .week: Double(7 * value)
        case .month: Double(value) * 30.436875
        case .year: Double(value) * 365.2425
        }
    }
}

/// An introductory offer on an auto-renewable subscription: once per group per account.
public struct IntroductoryOffer: Sendable, Equatable, Codable {
    public enum Mode: String, Sendable, Codable, CaseIterable {
        /// Nothing to pay for `periods` × `period`.
        case freeTrial
        /// `price` each period for `periods` periods.
        case payAsYouGo
        /// `price` once for `periods` × `period`.
        case payUpFront
    }

    public var mode: Mode
    public var period: SubscriptionPeriod
    public var periods: Int
    public var price: Decimal

    public init(mode: Mode, period: SubscriptionPeriod, periods: Int = 1, price: Decimal = 0) {
        self.mode = mode
        self.period = period
        self.periods = periods
        self.price = mode == .freeTrial ? 0 : price
    }

    /// "1 week free", "3 months at $0.99 a month", "6 months for $4.99".
    public func phrase(formattedPrice: String) -> String {
        let total = SubscriptionPeriod(period.value * periods, period.unit).phrase
        switch mode {
        case .freeTrial: return "\(total) free"
        case .payAsYouGo: return "\(total) at \(formattedPrice) a \(period.unitPhrase)"
        case .payUpFront: return "\(total) for \(formattedPrice)"
        }
    }
}

/// What an auto-renewable subscription is, beyond what every product has.
public struct AutoRenewTerms: Sendable, Equatable {
    public var period: SubscriptionPeriod
    /// Products of one group are alternatives: one active plan per group per account.
    public var group: String
    /// 1 is the highest level of service; a move to a lower number is an upgrade.
    public var rank: Int
    public var introductoryOffer: IntroductoryOffer?
    /// The entitlements an active plan grants, as the catalog names them ("all-selfies"). The name
    /// "all-comics" also unlocks every comic, as a non-renewing subscription does (R2).
    public var unlocks: [String]
    /// Promotional, code and win-back offers (O2–O4).
    public var offers: [SubscriptionOffer]
    /// The monthly price of the plan's second billing plan, "Monthly with a 12-month commitment"
    /// (a one-year plan only); nil when it is billed up front alone.
    public var monthlyCommitmentPrice: Decimal? = nil
    /// The monthly billing plan's own introductory offer (a .storekit file's `introductoryOffers`
    /// entry whose `billingPlanType` is MONTHLY): it runs before the commitment's first month.
    public var monthlyIntroductoryOffer: IntroductoryOffer? = nil
    /// Whether the plan is sold billed up front (a .storekit billing plan can be disabled).
    public var soldUpfront = true

    /// The entitlement name that unlocks every comic.
    public static let allComics = "all-comics"

    public init(
        period: SubscriptionPeriod, group: String, rank: Int = 1, introductoryOffer: IntroductoryOffer? = nil,
        unlocks: [String] = [], offers: [SubscriptionOffer] = []
    ) {
        self.offers = offers
        self.period = period
        self.group = group
        self.rank = rank
        self.introductoryOffer = introductoryOffer
        self.unlocks = unlocks
    }
}

/// How a one-year plan is paid (Apple's `billingPlanType`): once a year up front, or monthly with
/// a 12-month commitment.
public enum BillingPlan: String, Sendable, Codable, CaseIterable {
    case billedUpfront = "BILLED_UPFRONT"
    case monthly = "MONTHLY"

    /// Billing periods in one commitment, and how long each is.
    public static let commitmentPeriods = 12
    public static let commitmentPeriod = SubscriptionPeriod.month

    /// For people: "up front", "monthly (a 12-month commitment)".
    public var words: String {
        switch self {
        case .billedUpfront: "up front"
        case .monthly: "monthly (a \(Self.commitmentPeriods)-month commitment)"
        }
    }
}

/// Where a period of a monthly plan with a 12-month commitment stands: its number (1 to 12) and
/// when the commitment it belongs to ends (Apple's `commitmentInfo` of a transaction).
public struct CommitmentPeriod: Sendable, Equatable, Codable {
    public var number: Int
    public var ends: Date

    public init(number: Int, ends: Date) {
        self.number = number
        self.ends = ends
    }
}

// Durations as people type them: 90s, 90m, 12h, 1d, 2w, 3mo, 1y, or several together (1d12h), the units
// also as words (3 days, 2 weeks, 1 month 2 days).
import Foundation

public struct StoreDuration: Sendable, Equatable, CustomStringConvertible {
    public var years = 0
    public var months = 0
    public var days = 0
    public var seconds = 0

    public init(years: Int = 0, months: Int = 0, days: Int = 0, seconds: Int = 0) {
        self.years = years
        self.months = months
        self.days = days
        self.seconds = seconds
    }

    public static func days(_ count: Int) -> StoreDuration { StoreDuration(days: count) }
    public static func months(_ count: Int) -> StoreDuration { StoreDuration(months: count) }
    public static func seconds(_ count: Int) -> StoreDuration { StoreDuration(seconds: count) }

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public init(parsing text: String) throws(ParseError) {
        let source = text.trimmingCharacters(in: .whitespaces).lowercased()
        let bad = ParseError(
            description: "\"\(text)\" is not a duration (examples: 30s, 90m, 12h, 1d, 2w, 3mo, 1y, 1d12h, 3 days)"
        )
        guard !source.isEmpty else { throw bad }
        var rest = Substring(source)
        var result = StoreDuration()
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 7, let count = Int(digits) else { throw bad }
            rest = rest.dropFirst(digits.count).drop { $0 == " " }
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count).drop { $0 == " " || $0 == "," }
            switch unit {
            case "s", "sec", "secs", "second", "seconds": result.seconds += count
            case "m", "min", "mins", "minute", "minutes": result.seconds += count * 60
            case "h", "hr", "hrs", "hour", "hours": result.seconds += count * 3600
            case "d", "day", "days": result.days += count
            case "w", "wk", "wks", "week", "weeks": result.days += count * 7
            case "mo", "month", "months": result.months += count
            case "y", "yr", "yrs", "year", "years": result.years += count
            default: throw bad
            }
        }
        self = result
    }

    public var isZero: Bool { years == 0 && months == 0 && days == 0 && seconds == 0 }

    /// Calendar arithmetic: months clamp at month ends (31 Jan + 1mo = 28/29 Feb).
    public func added(to date: Date, calendar: Calendar) -> Date {
        var components = DateComponents()
        components.year = years
        components.month = months
        components.day = days
        components.second = seconds
        return calendar.date(byAdding: components, to: date) ?? date
    }

    public var description: String {
        var parts: [String] = []
        if years != 0 { parts.append("\(years)y") }
        if months != 0 { parts.append("\(months)mo") }
        if days != 0 { parts.append("\(days)d") }
        var rest = seconds
        if rest >= 3600, rest % 3600 == 0 {
            parts.append("\(rest / 3600)h")
            rest = 0
        }
        if rest >= 60, rest % 60 == 0 {
            parts.append("\(rest / 60)m")
            rest = 0
        }
        if rest != 0 { parts.append("\(rest)s") }
        return parts.isEmpty ? "0s" : parts.joined()
    }
}

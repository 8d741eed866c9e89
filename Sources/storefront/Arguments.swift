// The command line's values, parsed at its edge: outcomes, durations, times, clock rates, clock
// overrides, colour depths and month assignments are typed before any command runs, so that a bad
// one is a usage error (one line, exit 2) and nothing has been opened or changed.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// A value the parser reads with a message of its own when the text is wrong.
protocol ParsedArgument: ExpressibleByArgument {
    init(parsing text: String) throws(ArgumentFailure)
}

/// Why an argument's text is wrong, worded for the person who typed it.
struct ArgumentFailure: Error, CustomStringConvertible {
    let description: String
}

extension ParsedArgument {
    init?(argument: String) { try? self.init(parsing: argument) }

    /// For `@Option(transform:)` and `@Argument(transform:)`: the parser then reports our message.
    static func parse(_ text: String) throws -> Self { try Self(parsing: text) }
}

/// A purchase outcome (Q4): approve, defer, fail=REASON, delay=DURATION:approve|decline, interrupt.
struct OutcomeArgument: ParsedArgument {
    let outcome: PurchaseOutcome
    init(parsing text: String) throws(ArgumentFailure) {
        do { outcome = try PurchaseOutcome(parsing: text) } catch {
            throw ArgumentFailure(description: error.description)
        }
    }
    static var allValueStrings: [String] {
        ["approve", "defer", "interrupt"] + FailureReason.policyReasons.map { "fail=\($0.rawValue)" }
    }
}

/// A store duration: 90m, 12h, 1d, 2w, 3mo, 1y, 1d12h.
struct DurationArgument: ParsedArgument {
    let duration: StoreDuration
    init(parsing text: String) throws(ArgumentFailure) {
        do { duration = try StoreDuration(parsing: text) } catch {
            throw ArgumentFailure(description: error.description)
        }
    }
}

/// A time, ISO 8601; a date or a time without a zone is read in the local time zone.
struct TimeArgument: ParsedArgument {
    let date: Date
    init(parsing text: String) throws(ArgumentFailure) {
        date = try Self.date(text, timeZone: TimeZone.current)
    }

    static func date(_ text: String, timeZone: TimeZone) throws(ArgumentFailure) -> Date {
        let formatter = Context.isoFormatter(timeZone)
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.wholeSeconds }
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            let local = DateFormatter()
            local.locale = Locale(identifier: "en_US_POSIX")
            local.timeZone = timeZone
            local.dateFormat = format
            if let date = local.date(from: text) { return date }
        }
        throw ArgumentFailure(
            description: "\"\(text)\" is not an ISO 8601 time (for example 2026-01-31T09:00:00Z or 2026-01-31)")
    }
}

/// A clock rate: a number of store seconds per real second, or `sandbox`.
struct RateArgument: ParsedArgument {
    let rate: Double
    /// `sandbox`: the sandbox imitated, its period table included.
    var sandbox = false
    init(parsing text: String) throws(ArgumentFailure) {
        if text == "sandbox" {
            rate = ClockSetting.sandboxRate
            sandbox = true
            return
        }
        guard let rate = Double(text), rate > 0, rate <= 1_000_000 else {
            throw ArgumentFailure(
                description: "\"\(text)\" is not a clock rate (a number from 0 to 1000000, or \"sandbox\")")
        }
        self.rate = rate
    }
}

/// `--clock`: the clock for one command (real, offset=DURATION, at=ISO8601, rate=N), resolved
/// against real time when the command opens its store.
struct ClockArgument: ParsedArgument {
    enum Choice {
        case real
        case offset(StoreDuration, negative: Bool)
        case at(Date)
        case rate(RateArgument)
    }
    let choice: Choice

    init(parsing text: String) throws(ArgumentFailure) {
        if text == "real" {
            choice = .real
        } else if text.hasPrefix("offset=") {
            let value = String(text.dropFirst(7))
            let negative = value.hasPrefix("-")
            let duration = try DurationArgument(
                parsing: negative || value.hasPrefix("+") ? String(value.dropFirst()) : value)
            choice = .offset(duration.duration, negative: negative)
        } else if text.hasPrefix("at=") {
            choice = .at(try TimeArgument(parsing: String(text.dropFirst(3))).date)
        } else if text.hasPrefix("rate=") {
            choice = .rate(try RateArgument(parsing: String(text.dropFirst(5))))
        } else {
            throw ArgumentFailure(
                description: "unknown clock \"\(text)\" (expected real, offset=DURATION, at=ISO8601 or rate=N)")
        }
    }

    func setting(real: Date, calendar: Calendar) -> ClockSetting {
        switch choice {
        case .real: return ClockSetting(mode: .real)
        case .offset(let duration, let negative):
            let seconds = duration.added(to: real, calendar: calendar).timeIntervalSince(real)
            return ClockSetting(mode: .offset, offset: negative ? -seconds : seconds)
        case .at(let date): return ClockSetting(mode: .frozen, frozenAt: date)
        case .rate(let rate):
            return ClockSetting.standard.accelerated(rate: rate.rate, real: real, sandbox: rate.sandbox)
        }
    }
}

/// `--depth`: 256, 8 or none.
struct DepthArgument: ParsedArgument {
    let depth: ColorDepth
    init(parsing text: String) throws(ArgumentFailure) {
        switch text {
        case "256": depth = .palette256
        case "8": depth = .eight
        case "none": depth = .none
        default: throw ArgumentFailure(description: "--depth takes 256, 8 or none")
        }
    }
    static var allValueStrings: [String] { ["256", "8", "none"] }
}

/// `--months PRODUCT=N`: how long a non-renewing subscription of a .storekit file lasts.
struct MonthsArgument: ParsedArgument {
    let productID: String
    let months: Int
    init(parsing text: String) throws(ArgumentFailure) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, let months = Int(parts[1]), (1...120).contains(months) else {
            throw ArgumentFailure(description: "--months \"\(text)\" should look like PRODUCT=3 (1 to 120 months)")
        }
        productID = parts[0]
        self.months = months
    }
}

/// `--duration PRODUCT=P7D`: how long a non-renewing subscription of a .storekit file lasts, as an
/// ISO 8601 period of days, weeks, months or years (R5).
struct ProductDurationArgument: ParsedArgument {
    let productID: String
    let period: SubscriptionPeriod
    init(parsing text: String) throws(ArgumentFailure) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, let period = try? SubscriptionPeriod(parsing: parts[1]) else {
            throw ArgumentFailure(
                description: "--duration \"\(text)\" should look like PRODUCT=P7D (P7D, P2W, P1M, P1Y)")
        }
        productID = parts[0]
        self.period = period
    }
}

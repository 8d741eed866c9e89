// Time is an input (Q5): the store reads a clock it is given and never sleeps or sets timers.
import Foundation

public protocol StoreClock: Sendable {
    /// The store's time, in whole seconds.
    func now() -> Date
    /// The same time when it can be told without reading storage; nil when it cannot.
    func nowWithoutWaiting() -> Date?
}

extension StoreClock {
    /// A clock kept in memory tells its time without waiting.
    public func nowWithoutWaiting() -> Date? { now() }
}

extension Date {
    /// Store times are whole seconds, so that JSON, the receipt and R6 agree to the second.
    public var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }

    /// A store time as stored: whole seconds since 1970.
    package var storeSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
    package init(storeSeconds: Int64) { self.init(timeIntervalSince1970: TimeInterval(storeSeconds)) }
}

/// The wall clock.
public struct SystemClock: StoreClock {
    public init() {}
    public func now() -> Date { Date().wholeSeconds }
}

/// A clock that tests and users move by hand.
public final class ManualClock: StoreClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date) { current = start.wholeSeconds }

    public func now() -> Date { lock.withLock { current } }

    public func set(_ date: Date) { lock.withLock { current = date.wholeSeconds } }

    public func advance(_ duration: StoreDuration, calendar: Calendar) {
        lock.withLock { current = duration.added(to: current, calendar: calendar).wholeSeconds }
    }

    public func advance(seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds).wholeSeconds }
    }
}

/// The store timeline that a state directory keeps, so that a script's successive commands share
/// one clock (Q5): real time, real time plus an offset, a frozen instant, or an accelerated clock.
public struct ClockSetting: Sendable, Equatable, Codable {
    public enum Mode: String, Sendable, Codable {
        case real, offset, frozen, rate
    }

    public var mode: Mode
    /// Seconds added to real time (`offset`).
    public var offset: TimeInterval
    /// The instant a frozen clock shows (`frozen`).
    public var frozenAt: Date?
    /// Store seconds per real second (`rate`), anchored where the rate was set.
    public var rate: Double
    public var anchorReal: Date?
    public var anchorStore: Date?
    /// `clock rate sandbox`: the App Store sandbox imitated on purpose, its period table included
    /// (a month in five real minutes, a year in an hour). At any other rate, and without it,
    /// periods are calendar periods of store time. Nil in settings written before it.
    public var sandboxPeriods: Bool?

    public init(
        mode: Mode = .offset, offset: TimeInterval = 0, frozenAt: Date? = nil, rate: Double = 1,
        anchorReal: Date? = nil, anchorStore: Date? = nil
    ) {
        self.mode = mode
        self.offset = offset
        self.frozenAt = frozenAt
        self.rate = rate
        self.anchorReal = anchorReal
        self.anchorStore = anchorStore
    }

    /// The default for a new state directory: real time that commands can move forward.
    public static let standard = ClockSetting()

    /// Sandbox speed: one month of subscription passes in five minutes (30 days / 5 min).
    public static let sandboxRate: Double = 30 * 24 * 60 / 5

    public func now(real: Date) -> Date {
        switch mode {
        case .real: return real.wholeSeconds
        case .offset: return real.addingTimeInterval(offset).wholeSeconds
        case .frozen: return (frozenAt ?? real).wholeSeconds
        case .rate:
            let anchorReal = anchorReal ?? real
            let anchorStore = anchorStore ?? real
            return anchorStore.addingTimeInterval(real.timeIntervalSince(anchorReal) * rate).wholeSeconds
        }
    }

    /// Moves the store's time to `target`, keeping the mode (a real clock becomes an offset one).
    public func setting(now target: Date, real: Date) -> ClockSetting {
        var next = self
        switch mode {
        case .real, .offset:
            next.mode = .offset
            next.offset = target.wholeSeconds.timeIntervalSince(real.wholeSeconds)
        case .frozen:
            next.frozenAt = target.wholeSeconds
        case .rate:
            next.anchorReal = real
            next.anchorStore = target.wholeSeconds
        }
        return next
    }

    /// The store's time moved forward by `duration`, calendar units included (Q5).
    public func advanced(by duration: StoreDuration, real: Date, calendar: Calendar) -> ClockSetting {
        setting(now: duration.added(to: now(real: real), calendar: calendar), real: real)
    }

    public func frozen(real: Date) -> ClockSetting {
        ClockSetting(mode: .frozen, frozenAt: now(real: real))
    }

    public func accelerated(rate: Double, real: Date, sandbox: Bool = false) -> ClockSetting {
        var next = ClockSetting(mode: .rate, rate: rate, anchorReal: real, anchorStore: now(real: real))
        if sandbox { next.sandboxPeriods = true }
        return next
    }

    /// The rate at which auto-renewable periods follow the sandbox's table; nil: calendar periods.
    public var sandboxTableRate: Double? { mode == .rate && sandboxPeriods == true ? rate : nil }

    public var summary: String {
        switch mode {
        case .real: "real time"
        case .offset:
            offset == 0 ? "real time (no offset)" : "real time \(offset >= 0 ? "+" : "-")\(Self.describe(abs(offset)))"
        case .frozen: "frozen"
        case .rate:
            (sandboxPeriods == true ? "sandbox " : "")
                + "accelerated ×\(rate == rate.rounded() ? String(Int(rate)) : String(rate))"
        }
    }

    static func describe(_ seconds: TimeInterval) -> String {
        let total = Int(seconds)
        let days = total / 86_400
        let hours = (total % 86_400) / 3600
        let minutes = (total % 3600) / 60
        let rest = total % 60
        var parts: [String] = []
        if days > 0 { parts.append("\(days)d") }
        if hours > 0 { parts.append("\(hours)h") }
        if minutes > 0 { parts.append("\(minutes)m") }
        if rest > 0 || parts.isEmpty { parts.append("\(rest)s") }
        return parts.joined(separator: " ")
    }
}

/// A clock that reads a `ClockSetting` from wherever it is kept, every time, so that changes made
/// by another process (`storefront clock advance 1d` in a second terminal) are seen at once. When
/// a read fails (a server unreachable for a moment, a database restarting), it tells the time by
/// the last setting it read: a clock set ahead must not fall back to real time, where a purchase
/// would be dated before the ones already on the receipt. The read that failed is the store's next
/// storage call's to report.
public struct SettingClock: StoreClock {
    private let read: @Sendable () throws -> ClockSetting
    private let kept: @Sendable () -> ClockSetting?
    private let realNow: @Sendable () -> Date
    private let last: Locked<ClockSetting>

    /// `first`: the setting as read when the clock is made. `kept`: the setting when it is known
    /// without reading storage (the embedded server's, kept while its change stamp is the same).
    public init(
        first: ClockSetting, read: @escaping @Sendable () throws -> ClockSetting,
        kept: @escaping @Sendable () -> ClockSetting? = { nil },
        realNow: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.read = read
        self.kept = kept
        self.realNow = realNow
        last = Locked(first)
    }

    public func now() -> Date {
        let setting: ClockSetting
        do {
            setting = try read()
            last.withLock { $0 = setting }
        } catch {
            setting = last.withLock { $0 }
        }
        return setting.now(real: realNow())
    }

    public func nowWithoutWaiting() -> Date? { kept()?.now(real: realNow()) }
}

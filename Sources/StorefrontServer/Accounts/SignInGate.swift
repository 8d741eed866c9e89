// W11: how many password checks a team server makes, whatever the concurrency. Each account name
// has one sign-in in flight at most from each client address, and after a failure from that
// address none before its wait is over (doubling from a quarter second to five); each client
// address has four in flight at most, and after four failures in a row the same doubling wait.
// Failures slow the address that fails, never the account's owner elsewhere: a guesser's waits
// are the guesser's. An attempt that comes early is refused at once, before
// any password is checked, so a hundred parallel guesses cost one check, not a hundred. Unknown
// names are gated as accounts are, so the gate tells nothing of which names exist. Sign-ups are
// limited per client: a hundred at once (a team's script signing up its testers), then one every
// two seconds.
import Foundation
import StoreCore
import StoreModel

public final class SignInGate: Sendable {
    struct Entry {
        var failures = 0
        var inFlight = 0
        /// No attempt before this moment (of `now`'s clock).
        var openAt: TimeInterval = 0
    }

    /// A moment that only moves forward, in seconds (the system's uptime; tests give their own).
    let now: @Sendable () -> TimeInterval
    private let entries = Locked<[String: Entry]>([:])
    private let signUps = Locked<[String: (tokens: Double, at: TimeInterval)]>([:])

    public static let clientInFlight = 4
    public static let clientFreeFailures = 4
    public static let signUpBurst = 100.0
    public static let signUpEvery: TimeInterval = 2

    public init(now: @escaping @Sendable () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }) {
        self.now = now
    }

    /// An account's entry, as tried from one client address.
    private static func accountKey(_ account: String, from client: String) -> String {
        "account \(account.lowercased()) from \(client)"
    }

    /// The wait after `failures` failures in a row: 0.25 s, doubling, at most 5 s.
    public static func wait(after failures: Int) -> TimeInterval {
        failures <= 0 ? 0 : min(5, 0.25 * pow(2, Double(min(failures, 8) - 1)))
    }

    /// Takes a place for a sign-in of `account` from `client`, or says how many seconds to wait.
    public func enter(account: String, client: String) -> TimeInterval? {
        let moment = now()
        let accountKey = Self.accountKey(account, from: client)
        let clientKey = "client " + client
        return entries.withLock { entries -> TimeInterval? in
            // Bounded: a flood of made-up names cannot grow it without end.
            if entries.count >= 20_000 {
                entries = entries.filter { $0.value.inFlight > 0 || $0.value.openAt > moment }
            }
            let named = entries[accountKey, default: Entry()]
            let from = entries[clientKey, default: Entry()]
            if named.inFlight > 0 || moment < named.openAt { return max(named.openAt - moment, Self.wait(after: 1)) }
            if from.inFlight >= Self.clientInFlight || moment < from.openAt {
                return max(from.openAt - moment, Self.wait(after: 1))
            }
            entries[accountKey, default: Entry()].inFlight += 1
            entries[clientKey, default: Entry()].inFlight += 1
            return nil
        }
    }

    /// Gives the place back: a success starts the account and the client afresh; a failure makes
    /// both wait longer. Returns how long the answer waits (the account's new wait).
    @discardableResult
    public func leave(account: String, client: String, succeeded: Bool) -> TimeInterval {
        let moment = now()
        let accountKey = Self.accountKey(account, from: client)
        let clientKey = "client " + client
        return entries.withLock { entries -> TimeInterval in
            entries[accountKey, default: Entry()].inFlight -= 1
            entries[clientKey, default: Entry()].inFlight -= 1
            guard !succeeded else {
                entries[accountKey]?.failures = 0
                entries[clientKey]?.failures = 0
                return 0
            }
            entries[accountKey, default: Entry()].failures += 1
            entries[clientKey, default: Entry()].failures += 1
            let wait = Self.wait(after: entries[accountKey]?.failures ?? 1)
            entries[accountKey]?.openAt = moment + wait
            let clientFailures = (entries[clientKey]?.failures ?? 0) - Self.clientFreeFailures
            if clientFailures > 0 { entries[clientKey]?.openAt = moment + Self.wait(after: clientFailures) }
            return wait
        }
    }

    /// Gives the place back after a sign-in that neither succeeded nor failed (the database failed).
    public func release(account: String, client: String) {
        entries.withLock { entries in
            entries[Self.accountKey(account, from: client), default: Entry()].inFlight -= 1
            entries["client " + client, default: Entry()].inFlight -= 1
        }
    }

    /// Whether `client` may sign up now (a token bucket: a burst of a hundred, then one every two seconds).
    public func signUp(client: String) -> Bool {
        let moment = now()
        return signUps.withLock { buckets in
            if buckets.count >= 20_000 { buckets.removeAll() }
            var bucket = buckets[client] ?? (Self.signUpBurst, moment)
            bucket.tokens = min(Self.signUpBurst, bucket.tokens + (moment - bucket.at) / Self.signUpEvery)
            bucket.at = moment
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            return true
        }
    }
}

// W11 W17: how many password checks a team server makes, whatever the concurrency and however
// many addresses ask. The rules are SignInLimits' (a value); the gate holds them behind a lock and
// reads the clock. Sign-ups are limited per client: a hundred at once (a team's script signing up
// its testers), then one every two seconds.
import Foundation
import StoreCore
import StoreModel

public final class SignInGate: Sendable {
    /// A moment that only moves forward, in seconds (the system's uptime; tests give their own).
    let now: @Sendable () -> TimeInterval
    private let limits: Locked<SignInLimits>
    /// Failures in a row before a name refuses unknown clients (SignInLimits).
    public let lockAfter: Int
    private let signUps = Locked<[String: (tokens: Double, at: TimeInterval)]>([:])

    public static let signUpBurst = 100.0
    public static let signUpEvery: TimeInterval = 2
    /// The longest an answer to a failed sign-in is held back (a lock's wait is told, not slept).
    public static let longestDelay: TimeInterval = 5

    public init(
        now: @escaping @Sendable () -> TimeInterval = { ProcessInfo.processInfo.systemUptime },
        lockAfter: Int = SignInLimits.defaultLockAfter
    ) {
        self.now = now
        let limits = SignInLimits(lockAfter: lockAfter)
        self.lockAfter = limits.lockAfter
        self.limits = Locked(limits)
    }

    /// Takes a place for a password check of `account` by `caller`, or says how many seconds to wait.
    public func enter(account: String, as caller: SignInLimits.Caller) -> TimeInterval? {
        let moment = now()
        return limits.withLock { $0.enter(account: account, as: caller, at: moment) }
    }

    /// Gives the place back after the check; how long the answer waits.
    @discardableResult
    public func leave(account: String, as caller: SignInLimits.Caller, succeeded: Bool) -> TimeInterval {
        let moment = now()
        let wait = limits.withLock { $0.leave(account: account, as: caller, succeeded: succeeded, at: moment) }
        return min(wait, Self.longestDelay)
    }

    /// Gives the place back after a sign-in that neither succeeded nor failed (the database failed).
    public func release(account: String, as caller: SignInLimits.Caller) {
        limits.withLock { $0.release(account: account, as: caller) }
    }

    /// Whether the name refuses unknown clients now (for the developer's log and `account unlock`).
    public func isLocked(_ account: String) -> Bool {
        let moment = now()
        return limits.withLock { $0.isLocked(account, at: moment) }
    }

    /// The developer's `storefront account unlock NAME`.
    public func unlock(_ account: String) { limits.withLock { $0.unlock(account) } }

    /// The failed sign-ins of `account` since its last successful one.
    public func failures(of account: String) -> FailedSignIns {
        limits.withLock { $0.failures(of: account) }
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

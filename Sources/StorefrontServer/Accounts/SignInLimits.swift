// W11 W17: who may have a password checked now, as a value over a clock in seconds that only
// moves forward. It decides; SignInGate holds it behind a lock and reads the clock.
//
// - A client the account does not know (no device token, no session of the account) draws on one
//   budget per account name, shared by every address: one check in flight, and after each failure
//   a wait that doubles from a quarter second to five seconds. After `lockAfter` failures in a row
//   the name refuses unknown clients for `lockFor` (each failure after that locks it again), until
//   a sign-in succeeds or the developer unlocks it. Names with no account are budgeted the same
//   way, so the budget tells nothing of which names exist.
// - The same client is also limited by its address, whatever names it tries (a sprayer): four
//   checks in flight, four failures free, then the same doubling wait.
// - A device the account knows has a budget of its own: the account's budget and any address's
//   never refuse it, and its wrong passwords count against it alone.
// - An attempt that comes early is refused at once, before any password is checked.
import Foundation
import StoreCore

public struct SignInLimits: Sendable {
    /// Who is asking, as far as the limits care.
    public enum Caller: Hashable, Sendable {
        /// A client the account does not know, at this address.
        case stranger(address: String)
        /// A device that holds a valid device token (or a session) of the account; the id names it.
        case knownDevice(String)
    }

    struct Budget: Sendable {
        var failures = 0
        var inFlight = 0
        /// No attempt before this moment.
        var openAt: TimeInterval = 0
    }

    /// Failures in a row before a name refuses unknown clients for `lockFor` (NIST SP 800-63B allows
    /// at most 100): the most passwords strangers have checked per name in `lockFor`.
    /// `storefront serve --sign-in-lock-after` sets it.
    public let lockAfter: Int
    public static let defaultLockAfter = 20
    public static let lockAfterRange = 1...100
    public static let lockFor: TimeInterval = 15 * 60
    public static let addressInFlight = 4
    public static let addressFreeFailures = 4
    public static let shownAddresses = 8
    /// Entries kept before idle ones are dropped (a flood of made-up names cannot grow it without end).
    static let capacity = 20_000

    var accounts: [String: Budget] = [:]
    var devices: [String: Budget] = [:]
    var addresses: [String: Budget] = [:]
    var failures: [String: FailedSignIns] = [:]

    public init(lockAfter: Int = Self.defaultLockAfter) {
        self.lockAfter = min(max(lockAfter, Self.lockAfterRange.lowerBound), Self.lockAfterRange.upperBound)
    }

    /// The wait after `failures` failures in a row: 0.25 s doubling to 5 s, then `lockFor` once
    /// `lockAfter` is reached.
    public func wait(after failures: Int) -> TimeInterval {
        if failures >= lockAfter { return Self.lockFor }
        return Self.shortWait(after: failures)
    }

    /// The wait after `failures` failures in a row, before any lock: 0.25 s doubling to 5 s.
    public static func shortWait(after failures: Int) -> TimeInterval {
        failures <= 0 ? 0 : min(5, 0.25 * pow(2, Double(min(failures, 8) - 1)))
    }

    /// Whether `budget` lets another attempt in at `now`; else how long to wait.
    private static func refusal(_ budget: Budget, inFlight limit: Int, at now: TimeInterval) -> TimeInterval? {
        guard budget.inFlight >= limit || now < budget.openAt else { return nil }
        return max(budget.openAt - now, shortWait(after: 1))
    }

    /// Takes a place for a password check of `account` by `caller`: nil, or how many seconds to wait.
    public mutating func enter(account: String, as caller: Caller, at now: TimeInterval) -> TimeInterval? {
        let name = account.lowercased()
        if accounts.count + devices.count + addresses.count >= Self.capacity { forgetIdle(at: now) }
        switch caller {
        case .knownDevice(let id):
            if let wait = Self.refusal(devices[id, default: Budget()], inFlight: 1, at: now) { return wait }
            devices[id, default: Budget()].inFlight += 1
        case .stranger(let address):
            if let wait = Self.refusal(accounts[name, default: Budget()], inFlight: 1, at: now) { return wait }
            if let wait = Self.refusal(addresses[address, default: Budget()], inFlight: Self.addressInFlight, at: now) {
                return wait
            }
            accounts[name, default: Budget()].inFlight += 1
            addresses[address, default: Budget()].inFlight += 1
        }
        return nil
    }

    /// Gives the place back after the password was checked. A success starts the caller's budgets
    /// afresh (and a stranger's success the account's); a failure makes them wait longer. Returns
    /// the new wait of the budget the failure counted against (0 after a success).
    @discardableResult
    public mutating func leave(account: String, as caller: Caller, succeeded: Bool, at now: TimeInterval)
        -> TimeInterval
    {
        let name = account.lowercased()
        release(account: account, as: caller)
        if succeeded {
            failures[name] = nil
            switch caller {
            case .knownDevice(let id): devices[id] = nil
            case .stranger(let address):
                accounts[name] = nil
                addresses[address]?.failures = 0
            }
            return 0
        }
        var failed = failures[name, default: FailedSignIns()]
        failed.count += 1
        switch caller {
        case .knownDevice(let id):
            if failed.addresses.count < Self.shownAddresses, !failed.addresses.contains("a device of the account") {
                failed.addresses.append("a device of the account")
            }
            failures[name] = failed
            devices[id, default: Budget()].failures += 1
            let wait = Self.shortWait(after: devices[id]?.failures ?? 1)
            devices[id]?.openAt = now + wait
            return wait
        case .stranger(let address):
            if failed.addresses.count < Self.shownAddresses, !failed.addresses.contains(address) {
                failed.addresses.append(address)
            }
            failures[name] = failed
            accounts[name, default: Budget()].failures += 1
            let wait = wait(after: accounts[name]?.failures ?? 1)
            accounts[name]?.openAt = now + wait
            addresses[address, default: Budget()].failures += 1
            let over = (addresses[address]?.failures ?? 0) - Self.addressFreeFailures
            if over > 0 { addresses[address]?.openAt = now + Self.shortWait(after: over) }
            return wait
        }
    }

    /// Gives the place back after an attempt that neither succeeded nor failed (the database failed).
    public mutating func release(account: String, as caller: Caller) {
        switch caller {
        case .knownDevice(let id): devices[id]?.inFlight -= 1
        case .stranger(let address):
            accounts[account.lowercased()]?.inFlight -= 1
            addresses[address]?.inFlight -= 1
        }
    }

    /// Whether the name refuses unknown clients for its failures (a lock, not a short wait).
    public func isLocked(_ account: String, at now: TimeInterval) -> Bool {
        guard let budget = accounts[account.lowercased()] else { return false }
        return budget.failures >= lockAfter && now < budget.openAt
    }

    /// The developer lifts the name's lock and waits: unknown clients may try again at once.
    public mutating func unlock(_ account: String) {
        let name = account.lowercased()
        accounts[name]?.failures = 0
        accounts[name]?.openAt = 0
    }

    /// The failed sign-ins of `account` since its last successful one.
    public func failures(of account: String) -> FailedSignIns { failures[account.lowercased()] ?? FailedSignIns() }

    /// Drops the entries nothing waits for or holds.
    private mutating func forgetIdle(at now: TimeInterval) {
        let idle = { (budget: Budget) in budget.inFlight == 0 && budget.openAt <= now }
        // A name with several failures in a row is kept: forgetting it would lift its lock.
        accounts = accounts.filter { !idle($0.value) || $0.value.failures >= 3 }
        // Still more than twice the room (names made up by the thousand from many addresses): only
        // what waits or is in flight is kept, so memory stays bounded.
        if accounts.count >= 2 * Self.capacity {
            accounts = accounts.filter { $0.value.inFlight > 0 || $0.value.openAt > now }
        }
        devices = devices.filter { !idle($0.value) }
        addresses = addresses.filter { !idle($0.value) }
        if failures.count >= Self.capacity { failures.removeAll() }
    }
}

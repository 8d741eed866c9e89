// W17 as a value: SignInLimits over a clock moved by hand, no server and no database.
import Foundation
import StoreCore
import Testing

@testable import StorefrontServer

@Suite("Sign-in limits, as a value")
struct SignInLimitsTests {
    /// A stranger's failed attempt at `now`: whether it was let in, and the wait after it.
    private static func fail(
        _ limits: inout SignInLimits, _ account: String, from caller: SignInLimits.Caller, at now: TimeInterval
    ) -> TimeInterval? {
        guard limits.enter(account: account, as: caller, at: now) == nil else { return nil }
        return limits.leave(account: account, as: caller, succeeded: false, at: now)
    }

    @Test(
        "W17 guesses from many addresses draw on one budget per account: each waits out the last failure, the waits double to five seconds, and after twenty in a row the name is locked to strangers for fifteen minutes"
    )
    func oneBudgetPerAccount() {
        var limits = SignInLimits()
        var now: TimeInterval = 0
        var checked = 0
        var refused = 0
        // 400 guesses from 64 addresses, each as soon as anything lets it in; time moves a tenth
        // of a second a guess.
        for guess in 0..<400 {
            let address = "127.0.0.\(2 + guess % 64)"
            if Self.fail(&limits, "alice", from: .stranger(address: address), at: now) != nil {
                checked += 1
            } else {
                refused += 1
            }
            now += 0.1
        }
        #expect(checked <= SignInLimits.defaultLockAfter, "\(checked) checked")
        #expect(checked + refused == 400)
        // The walk of waits alone: 0.25, 0.5, … 5, then the lock.
        #expect((1...SignInLimits.defaultLockAfter).map(limits.wait(after:)).prefix(7) == [0.25, 0.5, 1, 2, 4, 5, 5])
        #expect(limits.wait(after: SignInLimits.defaultLockAfter) == SignInLimits.lockFor)
        #expect(SignInLimits(lockAfter: 5).wait(after: 5) == SignInLimits.lockFor, "the developer's own threshold")

        // Walked to the lock by one patient guesser who waits out each answer.
        var patient = SignInLimits()
        var clock: TimeInterval = 0
        for index in 0..<SignInLimits.defaultLockAfter {
            let wait = Self.fail(&patient, "bob", from: .stranger(address: "10.0.0.\(index)"), at: clock)
            #expect(wait != nil, "let in after waiting")
            clock += wait ?? 0
        }
        #expect(patient.isLocked("bob", at: clock - 1), "locked until the wait ends")
        #expect(
            patient.failures(of: "BOB").count == SignInLimits.defaultLockAfter, "counted by name, whatever its case")
        #expect(patient.enter(account: "bob", as: .stranger(address: "10.9.9.9"), at: clock - 1) != nil)
        // A device the account knows is never held up by it.
        #expect(patient.enter(account: "bob", as: .knownDevice("token 1"), at: clock - 1) == nil)
        patient.leave(account: "bob", as: .knownDevice("token 1"), succeeded: true, at: clock - 1)
        #expect(patient.failures(of: "bob").count == 0, "the owner's sign-in starts the count again")
    }

    @Test(
        "W17 the developer's unlock lets strangers in at once; a known device's wrong passwords count against it alone")
    func unlockAndKnownDevices() {
        var limits = SignInLimits()
        var now: TimeInterval = 0
        for _ in 0..<SignInLimits.defaultLockAfter {
            now += Self.fail(&limits, "ann", from: .stranger(address: "10.6.6.6"), at: now) ?? 0
        }
        #expect(limits.isLocked("ann", at: now - 1))
        limits.unlock("Ann")
        #expect(!limits.isLocked("ann", at: now - 1))
        #expect(limits.enter(account: "ann", as: .stranger(address: "10.0.0.2"), at: now - 1) == nil)
        limits.release(account: "ann", as: .stranger(address: "10.0.0.2"))

        // A known device guessing wrong waits itself; another known device and strangers do not.
        var devices = SignInLimits()
        let wait = Self.fail(&devices, "ann", from: .knownDevice("token a"), at: 0)
        #expect(wait == 0.25)
        #expect(devices.enter(account: "ann", as: .knownDevice("token a"), at: 0.1) != nil, "its own wait")
        #expect(devices.enter(account: "ann", as: .knownDevice("token b"), at: 0.1) == nil, "not another's")
        #expect(devices.enter(account: "ann", as: .stranger(address: "10.0.0.3"), at: 0.1) == nil, "nor a stranger's")
        #expect(devices.failures(of: "ann").addresses == ["a device of the account"])
    }

    @Test(
        "W17 one address spraying one password over two hundred names: four in flight, four failures free, then the address waits, whatever the name"
    )
    func sprayingIsPerAddress() {
        var limits = SignInLimits()
        var checked = 0
        for index in 0..<200
        where Self.fail(&limits, "name\(index)", from: .stranger(address: "10.6.6.6"), at: 0) != nil {
            checked += 1
        }
        #expect(checked == SignInLimits.addressFreeFailures + 1, "\(checked)")
        // Another address is not held up by this one.
        #expect(limits.enter(account: "name500", as: .stranger(address: "10.0.0.9"), at: 0) == nil)
        // Four at once from one address, then a fifth waits.
        var inFlight = SignInLimits()
        for index in 0..<SignInLimits.addressInFlight {
            #expect(inFlight.enter(account: "n\(index)", as: .stranger(address: "10.1.1.1"), at: 0) == nil)
        }
        #expect(inFlight.enter(account: "n9", as: .stranger(address: "10.1.1.1"), at: 0) != nil)
    }

    @Test("W17 a name with no account is budgeted as one with: the same waits and the same lock")
    func unknownNamesAlike() {
        var real = SignInLimits()
        var made = SignInLimits()
        var waits: [[TimeInterval?]] = [[], []]
        var now: TimeInterval = 0
        for _ in 0..<(SignInLimits.defaultLockAfter + 2) {
            waits[0].append(Self.fail(&real, "ann", from: .stranger(address: "10.0.0.1"), at: now))
            waits[1].append(Self.fail(&made, "nobody", from: .stranger(address: "10.0.0.1"), at: now))
            now += 6
        }
        #expect(waits[0] == waits[1])
        #expect(real.isLocked("ann", at: now) == made.isLocked("nobody", at: now))
    }
}

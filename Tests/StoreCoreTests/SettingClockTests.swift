// Q5: the shared clock is read from the account server each time. A read that fails (a server
// unreachable for a moment, a database restarting) must not send a clock set ahead back to real
// time, where what the store does next would be dated before what it did already.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("the shared clock when its read fails")
struct SettingClockTests {
    let real = Date(timeIntervalSince1970: 1_780_000_000)
    let ahead = ClockSetting(mode: .offset, offset: 30 * 86_400)
    struct Unreachable: Error {}

    @Test("a failed read tells the time by the last setting read, not real time")
    func lastSetting() {
        let failing = Locked(false)
        let setting = Locked(ahead)
        let real = real
        let clock = SettingClock(
            first: .standard,
            read: {
                if failing.withLock({ $0 }) { throw Unreachable() }
                return setting.withLock { $0 }
            }, realNow: { real })
        #expect(clock.now() == real.addingTimeInterval(30 * 86_400))
        failing.withLock { $0 = true }
        #expect(clock.now() == real.addingTimeInterval(30 * 86_400), "the server is unreachable: still 30 days ahead")
        setting.withLock { $0 = ClockSetting(mode: .frozen, frozenAt: real.addingTimeInterval(90 * 86_400)) }
        failing.withLock { $0 = false }
        #expect(
            clock.now() == real.addingTimeInterval(90 * 86_400),
            "reachable again: the setting changed meanwhile is read")
    }

    @Test("before any read succeeds, the setting read when the clock was made")
    func firstSetting() {
        let real = real
        let clock = SettingClock(first: ahead, read: { throw Unreachable() }, realNow: { real })
        #expect(clock.now() == real.addingTimeInterval(30 * 86_400))
    }
}

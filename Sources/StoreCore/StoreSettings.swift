// Settings the whole state folder shares (W7): the clock's timeline (Q5) and how renewals are
// charged (billing, grace). A change first settles every plan under the setting it ran on, so that
// renewals written lazily are exact.
import Foundation
import StoreModel

public final class StoreSettings: SessionRole {
    let session: DeviceSession
    private let plans: Plans
    private let queue: PaymentQueue

    init(session: DeviceSession, plans: Plans, queue: PaymentQueue) {
        self.session = session
        self.plans = plans
        self.queue = queue
    }

    public func clockSetting() throws(StoreError) -> ClockSetting { try sharedSettings.clockSetting() }

    /// Changes the clock the state folder shares, then settles what came due by the new time.
    @discardableResult
    public func changeClock(_ change: (ClockSetting, Date) throws -> ClockSetting) throws -> RecoveryReport {
        // Plans renew under the clock they ran on: settle them before it changes.
        try plans.settleAll()
        try sharedSettings.setClockSetting(try change(try sharedSettings.clockSetting(), Date()))
        return try queue.recover()
    }

    public func billing() throws(StoreError) -> BillingSetting { try sharedSettings.billingSetting() }

    /// The StoreKit errors in force (Q7): the state folder's, else the catalog's.
    public func simulatedErrors() throws(StoreError) -> SimulatedErrors { try session.simulatedErrors() }

    /// Sets (or with nil clears) one API's error; the others stay as they are.
    public func setSimulatedError(_ error: SimulatedError?, for api: StoreKitAPI) throws(StoreError) {
        var errors = try simulatedErrors()
        errors[api] = error
        try sharedSettings.setSimulatedErrors(errors)
    }

    public func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError) {
        try sharedSettings.setSimulatedErrors(errors)
    }

    /// Changes how renewals are charged, after settling what the old setting decided.
    public func setBilling(_ setting: BillingSetting) throws(StoreError) {
        try plans.settleAll()
        try sharedSettings.setBillingSetting(setting)
        try plans.settleAll()
    }
}

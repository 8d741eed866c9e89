// Settings every device of the state folder shares (Q5, Q7, S4, W7).
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: SharedSettings, DefaultsAdopting {
    public func clockSetting() throws(StoreError) -> ClockSetting {
        let stamp = try changeStamp(accounts: [])
        if let setting = clockSetting(keptAt: stamp) { return setting }
        let setting = try read { db in try ClockRecord.fetchOne(db)?.setting ?? .standard }
        clockCache.withLock { $0 = (stamp, setting) }
        return setting
    }

    /// The clock setting when the one read last still holds, told without waiting (nil otherwise):
    /// the shared part's stamp, which no customer's purchase moves.
    public func clockSettingWithoutWaiting() -> ClockSetting? {
        changeStampWithoutWaiting(accounts: []).flatMap(clockSetting(keptAt:))
    }

    /// The clock setting last read, if it was read at `stamp`.
    private func clockSetting(keptAt stamp: ChangeStamp) -> ClockSetting? {
        guard let (seen, setting) = clockCache.withLock({ $0 }), seen == stamp else { return nil }
        return setting
    }

    public func setClockSetting(_ setting: ClockSetting) throws(StoreError) {
        try write { db in try ClockRecord(setting).upsert(db) }
    }

    /// Sets the clock rate and billing a catalog asks for, in a state folder that has neither set
    /// yet (a `.storekit` file's `_timeRate` and billing settings); later runs keep what is there.
    public func adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date) throws(StoreError) {
        guard clockRate != nil || billing != nil else { return }
        try write { db in
            let fresh = try ClockRecord.fetchCount(db) == 0 && !SettingRecord.exists(db, key: SettingRecord.billing)
            guard fresh else { return }
            if let clockRate {
                try ClockRecord(ClockSetting.standard.accelerated(rate: clockRate, real: real)).insert(db)
            }
            try SettingRecord(
                key: SettingRecord.billing,
                value: try StoredJSON.text(billing ?? BillingSetting(), dates: .foundationDefault)
            ).insert(db)
        }
    }

    public func billingSetting() throws(StoreError) -> BillingSetting {
        try setting(SettingRecord.billing) ?? BillingSetting()
    }

    public func setBillingSetting(_ setting: BillingSetting) throws(StoreError) {
        try setSetting(SettingRecord.billing, setting)
    }

    public func appIdentity() throws(StoreError) -> AppIdentity? { try setting(SettingRecord.appIdentity) }

    public func storefront(account: String) throws(StoreError) -> String? {
        try setting(SettingRecord.storefront(of: account))
    }

    public func setStorefront(_ code: String, account: String) throws(StoreError) {
        try setSetting(SettingRecord.storefront(of: account), code)
    }

    public func setAppIdentity(_ identity: AppIdentity) throws(StoreError) {
        try setSetting(SettingRecord.appIdentity, identity)
    }

    public func simulatedErrors() throws(StoreError) -> SimulatedErrors? { try setting(SettingRecord.simulatedErrors) }

    public func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError) {
        try setSetting(SettingRecord.simulatedErrors, errors)
    }

    public func paymentPolicy() throws(StoreError) -> PurchaseOutcome? { try setting(SettingRecord.paymentPolicy) }

    public func setPaymentPolicy(_ policy: PurchaseOutcome) throws(StoreError) {
        try setSetting(SettingRecord.paymentPolicy, policy)
    }

    public func offerPolicy() throws(StoreError) -> OfferSigningPolicy? { try setting(SettingRecord.offerPolicy) }

    public func setOfferPolicy(_ policy: OfferSigningPolicy) throws(StoreError) {
        try policy.check()
        try setSetting(SettingRecord.offerPolicy, policy)
    }

    public func appAccountTokens() throws(StoreError) -> [String: String] {
        try setting(SettingRecord.appAccountTokens) ?? [:]
    }

    public func setAppAccountToken(_ token: String, original: String) throws(StoreError) {
        try updateSetting(SettingRecord.appAccountTokens, empty: [String: String]()) { tokens in
            tokens.merging([original: token]) { $1 }
        }
    }
}

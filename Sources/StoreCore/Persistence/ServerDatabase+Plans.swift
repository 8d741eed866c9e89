// The account server's side of auto-renewable subscriptions: each account's plan per group, kept
// as the fold of the plan lines on its receipt, and the billing setting renewals are charged by.
import Foundation
import GRDB

extension ServerDatabase {
    /// Records plan lines and the states they lead to, in one transaction. `body` sees the
    /// account's plans and receipt as they are inside the transaction and returns the lines to add.
    @discardableResult
    public func updatePlans(
        account: String, _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
    ) throws -> [ReceiptEntry] {
        do {
            return try file.queue.write { db in
                let plans = try Self.plans(db, account: account)
                let lines = try body(plans) { try Self.planLines(db, account: account) }
                try Self.record(db, lines: lines, onto: plans)
                return lines
            }
        } catch let refusal as AutoRenewal.Refusal {
            throw refusal
        } catch {
            throw DatabaseOpener.translate(error, path: path)
        }
    }

    static func record(_ db: Database, lines: [ReceiptEntry], onto plans: [String: PlanState]) throws {
        // N2: each line's notification is written with it.
        let changed = try RecordingRules.record(lines, onto: plans, insert: { try insert(db, $0) }) { notification in
            try NotificationRecord(notification).insert(db, onConflict: .ignore)
        }
        guard let account = lines.first?.account else { return }
        for group in changed.keys.sorted() { try PlanRecord(account: account, state: changed[group]!).upsert(db) }
    }

    /// The stored state of every plan of the account, by group.
    public func plans(account: String) throws(StoreError) -> [String: PlanState] {
        try read { db in try Self.plans(db, account: account) }
    }

    static func plans(_ db: Database, account: String) throws -> [String: PlanState] {
        var plans: [String: PlanState] = [:]
        for record in try PlanRecord.fetchAll(db, where: "account", is: account) {
            plans[record.state.group] = record.state
        }
        return plans
    }

    /// The account's plan lines in the order they were recorded (the order the fold needs: a
    /// credit and the upgrade it pays for share one second).
    public func planLines(account: String, from offset: Int) throws(StoreError) -> [ReceiptEntry] {
        try read { db in try Self.planLines(db, account: account, from: offset) }
    }

    static func planLines(_ db: Database, account: String, from offset: Int = 0) throws -> [ReceiptEntry] {
        // Plan lines, and refunds (and their reversals) of any purchase, which devices learn from too (O7).
        let revocations = [ReceiptEvent.refund, .refundReversed, .familyShare, .familyRevoke].map(\.rawValue)
        let lines = ReceiptRecord.filter(
            ReceiptRecord.Columns.account == account
                && (ReceiptRecord.Columns.kind == ProductKind.autoRenewableSubscription.rawValue || revocations.contains(Column("event")))
        ).order(Column.rowID)
        return try (offset > 0 ? lines.limit(Int(Int32.max), offset: offset) : lines).fetchAll(db).map(\.entry)
    }

    /// Accounts with any plan, for settling every account before a setting changes.
    public func accountsWithPlans() throws(StoreError) -> [String] {
        try read { db in
            try PlanRecord.select(PlanRecord.Columns.account, as: String.self).distinct().order(PlanRecord.Columns.account).fetchAll(db)
        }
    }

    /// Sets the clock rate and billing a catalog asks for, in a state folder that has neither set
    /// yet (a `.storekit` file's `_timeRate` and billing settings); later runs keep what is there.
    public func adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date) throws(StoreError) {
        guard clockRate != nil || billing != nil else { return }
        try write { db in
            let fresh = try ClockRecord.fetchCount(db) == 0 && !SettingRecord.exists(db, key: SettingRecord.billing)
            guard fresh else { return }
            if let clockRate { try ClockRecord(ClockSetting.standard.accelerated(rate: clockRate, real: real)).insert(db) }
            try SettingRecord(key: SettingRecord.billing, value: try StoredJSON.text(billing ?? BillingSetting(), dates: .foundationDefault)).insert(db)
        }
    }

    /// One JSON setting of the `setting` table, nil while nobody has written it.
    func setting<T: Codable>(_ key: String) throws(StoreError) -> T? {
        try read { db in
            try SettingRecord.filter(key: key).asRequest(of: Row.self).fetchOne(db)
                .map { try $0.storedJSON("value", of: SettingRecord.databaseTableName, dates: .foundationDefault) }
        }
    }

    func removeSetting(_ key: String) throws(StoreError) {
        try write { db in _ = try SettingRecord.filter(key: key).deleteAll(db) }
    }

    func setSetting(_ key: String, _ value: some Codable) throws(StoreError) {
        try write { db in
            try SettingRecord(key: key, value: try StoredJSON.text(value, dates: .foundationDefault)).upsert(db)
        }
    }

    public func billingSetting() throws(StoreError) -> BillingSetting { try setting(SettingRecord.billing) ?? BillingSetting() }
    public func setBillingSetting(_ setting: BillingSetting) throws(StoreError) { try setSetting(SettingRecord.billing, setting) }
    public func appIdentity() throws(StoreError) -> AppIdentity? { try setting(SettingRecord.appIdentity) }
    public func setAppIdentity(_ identity: AppIdentity) throws(StoreError) { try setSetting(SettingRecord.appIdentity, identity) }
    public func simulatedErrors() throws(StoreError) -> SimulatedErrors? { try setting(SettingRecord.simulatedErrors) }
    public func apiKeyring() throws(StoreError) -> APIKeyring? { try setting(SettingRecord.apiKeys) }
    public func priceChanges() throws(StoreError) -> [PriceChange] { try setting(SettingRecord.prices) ?? [] }
    public func families() throws(StoreError) -> [Family] { try setting(SettingRecord.families) ?? [] }
    public func setFamilies(_ families: [Family]) throws(StoreError) { try setSetting(SettingRecord.families, families) }
    public func setPriceChange(_ change: PriceChange) throws(StoreError) {
        try write { db in
            let stored: [PriceChange] = try SettingRecord.filter(key: SettingRecord.prices).asRequest(of: Row.self).fetchOne(db)
                .map { try $0.storedJSON("value", of: SettingRecord.databaseTableName, dates: .foundationDefault) } ?? []
            let changes = stored.filter { $0.productID != change.productID } + [change]
            try SettingRecord(key: SettingRecord.prices, value: try StoredJSON.text(changes, dates: .foundationDefault)).upsert(db)
        }
    }
    public func setAPIKeyring(_ keyring: APIKeyring) throws(StoreError) { try setSetting(SettingRecord.apiKeys, keyring) }
    public func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError) { try setSetting(SettingRecord.simulatedErrors, errors) }
}

// The embedded account server's plans: each account's plan per group, kept as the fold
// of the plan lines on its receipt, written with the lines in one transaction.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: PlanBook {
    /// Records plan lines and the states they lead to, in one transaction. `body` sees the
    /// account's plans and receipt as they are inside the transaction and returns the lines to add.
    @discardableResult
    public func updatePlans(
        account: String,
        _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
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
        guard let account = lines.first?.account else { return }
        let ids = lines.map(\.transactionID)
        let recorded = try String.fetchSet(
            db,
            ReceiptRecord.select(ReceiptRecord.Columns.transactionID).filter(
                ids.contains(ReceiptRecord.Columns.transactionID)))
        let write = RecordingRules.record(lines, onto: plans, recorded: recorded)
        for line in write.lines { try insert(db, line) }
        // N2: each line's notification is written with it.
        for notification in write.notifications { try NotificationRecord(notification).insert(db, onConflict: .ignore) }
        for group in write.plans.keys.sorted() {
            try PlanRecord(account: account, state: write.plans[group]!).upsert(db)
        }
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
                && (ReceiptRecord.Columns.kind == ProductKind.autoRenewableSubscription.rawValue
                    || revocations.contains(Column("event")))
        ).order(Column.rowID)
        return try (offset > 0 ? lines.limit(Int(Int32.max), offset: offset) : lines).fetchAll(db).map(\.entry)
    }

    /// Accounts with any plan, for settling every account before a setting changes.
    public func accountsWithPlans() throws(StoreError) -> [String] {
        try read { db in
            try PlanRecord.select(PlanRecord.Columns.account, as: String.self).distinct().order(
                PlanRecord.Columns.account
            ).fetchAll(db)
        }
    }

    /// One JSON setting of the `setting` table, nil while nobody has written it.
    func setting<T: Codable>(_ key: String) throws(StoreError) -> T? {
        try read { db in try Self.setting(db, key) }
    }

    static func setting<T: Codable>(_ db: Database, _ key: String) throws -> T? {
        try SettingRecord.filter(key: key).asRequest(of: Row.self).fetchOne(db)
            .map { try $0.storedJSON("value", of: SettingRecord.databaseTableName, dates: .foundationDefault) }
    }

    /// Reads the JSON setting `key` (`empty` while nobody has written it) and writes what `change`
    /// makes of it, in one write transaction; nil from `change` writes nothing and returns false.
    @discardableResult
    func updateSetting<T: Codable>(_ key: String, empty: T, _ change: (T) throws -> T?) throws(StoreError) -> Bool {
        try write { db in
            let current: T =
                try SettingRecord.filter(key: key).asRequest(of: Row.self).fetchOne(db)
                .map { try $0.storedJSON("value", of: SettingRecord.databaseTableName, dates: .foundationDefault) }
                ?? empty
            guard let next = try change(current) else { return false }
            try SettingRecord(key: key, value: try StoredJSON.text(next, dates: .foundationDefault)).upsert(db)
            return true
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

}

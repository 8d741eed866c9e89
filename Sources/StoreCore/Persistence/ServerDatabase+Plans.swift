// The account server's side of auto-renewable subscriptions: each account's plan per group, kept
// as the fold of the plan lines on its receipt, and the billing setting renewals are charged by.
import Foundation
import GRDB

extension ServerDatabase {
    /// Records plan lines and the states they lead to, in one transaction. `body` sees the
    /// account's plans and receipt as they are inside the transaction and returns the lines to add.
    @discardableResult
    func updatePlans(
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
        var plans = plans
        var changed: Set<String> = []
        for line in lines {
            try insert(db, line)
            guard db.changesCount == 1 else { continue }
            let group = line.group ?? ""
            plans[group] = PlanState.apply(plans[group], line)
            changed.insert(group)
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        for group in changed.sorted() {
            guard let state = plans[group], let account = lines.first?.account else { continue }
            let text = String(decoding: try encoder.encode(state), as: UTF8.self)
            try db.execute(
                sql: """
                    INSERT INTO plan(account, groupID, state) VALUES (?, ?, ?)
                    ON CONFLICT(account, groupID) DO UPDATE SET state = excluded.state
                    """,
                arguments: [account, group, text]
            )
        }
    }

    /// The stored state of every plan of the account, by group.
    public func plans(account: String) throws(StoreError) -> [String: PlanState] {
        try read { db in try Self.plans(db, account: account) }
    }

    static func plans(_ db: Database, account: String) throws -> [String: PlanState] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        var plans: [String: PlanState] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT groupID, state FROM plan WHERE account = ?", arguments: [account]) {
            let text: String = row["state"]
            plans[row["groupID"]] = try decoder.decode(PlanState.self, from: Data(text.utf8))
        }
        return plans
    }

    /// The account's plan lines in the order they were recorded (the order the fold needs: a
    /// credit and the upgrade it pays for share one second).
    public func planLines(account: String) throws(StoreError) -> [ReceiptEntry] {
        try read { db in try Self.planLines(db, account: account) }
    }

    static func planLines(_ db: Database, account: String) throws -> [ReceiptEntry] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM receipt WHERE account = ? AND kind = ? ORDER BY rowid",
            arguments: [account, ProductKind.autoRenewableSubscription.rawValue]
        ).map(Self.entry)
    }

    /// Accounts with any plan, for settling every account before a setting changes.
    public func accountsWithPlans() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT account FROM plan ORDER BY account") }
    }

    /// Sets the clock rate and billing a catalog asks for, in a state folder that has neither set
    /// yet (a `.storekit` file's `_timeRate` and billing settings); later runs keep what is there.
    public func adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date = Date()) throws(StoreError) {
        guard clockRate != nil || billing != nil else { return }
        let clockText = clockRate.map { rate in
            String(decoding: (try? JSONEncoder().encode(ClockSetting.standard.accelerated(rate: rate, real: real))) ?? Data(), as: UTF8.self)
        }
        let billingText = billing.map { String(decoding: (try? JSONEncoder().encode($0)) ?? Data(), as: UTF8.self) }
        try write { db in
            let fresh = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM clock") == 0
                && (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM setting WHERE key = 'billing'")) == 0
            guard fresh else { return }
            if let clockText {
                try db.execute(sql: "INSERT INTO clock(id, setting) VALUES (1, ?)", arguments: [clockText])
            }
            try db.execute(
                sql: "INSERT INTO setting(key, value) VALUES ('billing', ?)",
                arguments: [billingText ?? String(decoding: (try? JSONEncoder().encode(BillingSetting())) ?? Data(), as: UTF8.self)]
            )
        }
    }

    public func billingSetting() throws(StoreError) -> BillingSetting {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'billing'"),
                  let setting = try? JSONDecoder().decode(BillingSetting.self, from: Data(text.utf8))
            else { return BillingSetting() }
            return setting
        }
    }

    public func setBillingSetting(_ setting: BillingSetting) throws(StoreError) {
        let text = String(decoding: (try? JSONEncoder().encode(setting)) ?? Data(), as: UTF8.self)
        try write { db in
            try db.execute(
                sql: "INSERT INTO setting(key, value) VALUES ('billing', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [text]
            )
        }
    }
}

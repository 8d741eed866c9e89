// Plans in PostgreSQL: plan lines, the plans they fold to and their notifications in
// one transaction under the account's advisory lock; a conflict retries.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: PlanBook {
    func plans(_ connection: PostgresConnection, account: String) throws -> [String: PlanState] {
        var plans: [String: PlanState] = [:]
        for row in try query(connection, "SELECT state FROM plan WHERE accountKey = \(Self.key(account))") {
            let state = try Self.decode(PlanState.self, row, "state", of: "plan")
            plans[state.group] = state
        }
        return plans
    }

    func planLines(_ connection: PostgresConnection, account: String, from offset: Int = 0) throws -> [ReceiptEntry] {
        try entries(
            query(
                connection,
                """
                SELECT entry FROM receipt
                WHERE accountKey = \(Self.key(account))
                AND (kind = \(ProductKind.autoRenewableSubscription.rawValue) OR event IN ('refund', 'refund-reversed', 'family-share', 'family-revoke'))
                ORDER BY sequence OFFSET \(offset)
                """
            ))
    }

    public func plans(account: String) throws(StoreError) -> [String: PlanState] {
        try read { try plans($0, account: account) }
    }

    public func planLines(account: String, from offset: Int) throws(StoreError) -> [ReceiptEntry] {
        try read { try planLines($0, account: account, from: offset) }
    }

    @discardableResult
    public func updatePlans(
        account: String,
        _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
    ) throws -> [ReceiptEntry] {
        try run(lock: account) { connection in
            let plans = try plans(connection, account: account)
            let lines: [ReceiptEntry]
            do {
                lines = try body(plans) { try self.planLines(connection, account: account) }
            } catch {
                throw Refused(error: error)
            }
            let recorded = try Set(
                query(
                    connection,
                    "SELECT transactionID FROM receipt WHERE transactionID = ANY(\(lines.map(\.transactionID)))"
                ).compactMap { Self.string($0, "transactionid") })
            let write = RecordingRules.record(lines, onto: plans, recorded: recorded)
            for line in write.lines { _ = try insert(connection, line) }
            // N2: each line's notification is written with it.
            for notification in write.notifications { _ = try insert(connection, notification) }
            for (group, state) in write.plans.sorted(by: { $0.key < $1.key }) {
                try query(
                    connection,
                    """
                    INSERT INTO plan (accountKey, account, groupID, state)
                    VALUES (\(Self.key(account)), \(account), \(group), \(Self.json(state)))
                    ON CONFLICT (accountKey, groupID) DO UPDATE SET state = EXCLUDED.state
                    """
                )
            }
            return lines
        }
    }

    public func accountsWithPlans() throws(StoreError) -> [String] {
        try read { connection in
            try query(connection, "SELECT DISTINCT ON (accountKey) account FROM plan ORDER BY accountKey").compactMap {
                Self.string($0, "account")
            }
        }
    }
}

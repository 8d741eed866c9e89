// The device's transactions (Q1–Q4, A5): written as a purchase goes through its states, read back
// for the history, recovery and restore.
import Foundation
import GRDB
import StoreModel

extension DeviceDatabase {
    // MARK: Transactions

    static func transaction(_ db: Database, id: String) throws -> StoreTransaction? {
        try TransactionRecord.fetchOne(db, where: "id", is: id).map { try withSteps(db, $0) }
    }

    func transaction(id: String) throws(StoreError) -> StoreTransaction? {
        try read { db in try Self.transaction(db, id: id) }
    }

    /// Ids that start with `prefix` (so that people can type the first few characters).
    func transactionIDs(matching prefix: String) throws(StoreError) -> [String] {
        try read { db in
            let escaped = prefix.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            return try TransactionRecord.filter(TransactionRecord.Columns.id.like(escaped + "%", escape: "\\"))
                .order(Column.rowID).limit(10).fetchAll(db).map(\.transaction.id)
        }
    }

    /// Which transactions a query asks for.
    enum Selection {
        /// Every transaction of one profile, oldest first.
        case profile(String)
        /// Not yet decided (purchasing, deferred, interrupted), of every profile: what recovery looks at.
        case open
        /// Not yet decided, of one profile: the rows' "in flight" marks.
        case inFlight(user: String)
        /// Deferred or interrupted, of one profile: `pending`.
        case waiting(user: String)
        /// Waiting for a delayed outcome, of one profile.
        case delayed(user: String)
        /// Purchasing with no due time: cut off before the store answered, once no process holds the lock.
        case orphaned
        /// Delayed outcomes due by this time.
        case due(by: Date)
        /// Purchased or restored but not finished.
        case undelivered
    }

    func transactions(_ selection: Selection) throws(StoreError) -> [StoreTransaction] {
        try read { db in try Self.request(selection).order(Column.rowID).fetchAll(db).map { try Self.withSteps(db, $0) }
        }
    }

    // The open-transaction queries say `+user` so that SQLite searches the few open ones by state
    // rather than the profile's whole history by user: start-up must not grow with history.
    static func request(_ selection: Selection) -> QueryInterfaceRequest<TransactionRecord> {
        typealias Columns = TransactionRecord.Columns
        let open: [TransactionState] = [.purchasing, .deferred, .interrupted]
        let ofUser = { (user: String) in SQL("+user = \(user)").sqlExpression }
        switch selection {
        case .profile(let user):
            return TransactionRecord.filter(Columns.user == user)
        case .open:
            return TransactionRecord.filter(open.map(\.rawValue).contains(Columns.state))
        case .inFlight(let user):
            return TransactionRecord.filter(open.map(\.rawValue).contains(Columns.state)).filter(ofUser(user))
        case .waiting(let user):
            return TransactionRecord.filter(
                [TransactionState.deferred, .interrupted].map(\.rawValue).contains(Columns.state)
            ).filter(ofUser(user))
        case .delayed(let user):
            return TransactionRecord.filter(
                Columns.state == TransactionState.purchasing.rawValue && Columns.dueAt != nil
            ).filter(ofUser(user))
        case .orphaned:
            return TransactionRecord.filter(
                Columns.state == TransactionState.purchasing.rawValue && Columns.dueAt == nil)
        case .due(let date):
            return TransactionRecord.filter(
                Columns.state == TransactionState.purchasing.rawValue && Columns.dueAt != nil
                    && Columns.dueAt <= date.storeSeconds
            )
        case .undelivered:
            return TransactionRecord.filter(
                Columns.finished == false
                    && [TransactionState.purchased, .restored].map(\.rawValue).contains(Columns.state))
        }
    }

    /// Writes transactions another device's store made for the account (renewals, Q6), each with
    /// its event, in one transaction, skipping those this device has already. The ids written.
    @discardableResult
    func receive(_ transactions: [StoreTransaction]) throws(StoreError) -> [String] {
        guard !transactions.isEmpty else { return [] }
        return try write { db in
            var written: [String] = []
            for transaction in transactions {
                if try TransactionRecord.fetchOne(db, where: "id", is: transaction.id) != nil { continue }
                try TransactionRecord(transaction).insert(db)
                try Self.appendEvent(
                    db, id: transaction.id,
                    step: TransactionStep(state: transaction.state, reason: nil, at: transaction.createdAt))
                written.append(transaction.id)
            }
            return written
        }
    }

    /// Which of `ids` this device has.
    func known(_ ids: [String]) throws(StoreError) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            Set(
                try String.fetchAll(
                    db, sql: "SELECT id FROM txn WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
                    arguments: StatementArguments(ids)))
        }
    }

    func insert(_ transaction: StoreTransaction) throws(StoreError) {
        try write { db in
            try TransactionRecord(transaction).insert(db)
            try Self.appendEvent(
                db, id: transaction.id,
                step: TransactionStep(state: transaction.state, reason: transaction.reason, at: transaction.createdAt))
        }
    }

    /// Moves a transaction to `state` and logs the event, in one transaction. A settled purchase
    /// (`purchaseDate`) and a final state (`finished`) say so; any due time is cleared.
    func setState(
        _ id: String, _ state: TransactionState, reason: FailureReason? = nil, at date: Date, purchaseDate: Date? = nil,
        finished: Bool? = nil, originalID: String? = nil
    ) throws(StoreError) {
        try write { db in
            guard var record = try TransactionRecord.fetchOne(db, where: "id", is: id) else { return }
            record.transaction.state = state
            if let originalID { record.transaction.originalID = originalID }
            record.transaction.reason = reason
            if let purchaseDate { record.transaction.purchaseDate = purchaseDate }
            if let finished { record.transaction.isFinished = finished }
            record.transaction.dueAt = nil
            record.transaction.dueApproves = nil
            try record.update(db)
            try Self.appendEvent(db, id: id, step: TransactionStep(state: state, reason: reason, at: date))
        }
    }

    /// A purchase that stays `purchasing` until `date`, then approves or declines (Q4).
    func setDue(_ id: String, at date: Date, approves: Bool) throws(StoreError) {
        try write { db in
            guard var record = try TransactionRecord.fetchOne(db, where: "id", is: id) else { return }
            record.transaction.dueAt = date
            record.transaction.dueApproves = approves
            try record.update(db)
        }
    }

    static func appendEvent(_ db: Database, id: String, step: TransactionStep) throws {
        try EventRecord(transactionID: id, step: step).insert(db)
    }

    /// The last event's sequence number (0 when there is none).
    func latestEventSequence() throws(StoreError) -> Int64 {
        try read { db in
            try EventRecord.select(max(EventRecord.Columns.sequence), as: Int64?.self).fetchOne(db).flatMap { $0 } ?? 0
        }
    }

    /// Events after `sequence`, oldest first: how a screen follows changes made by other processes.
    /// Asked twice a purchase, so its statement is cached.
    public func events(after sequence: Int64, limit: Int = 1000) throws(StoreError) -> [TransactionEvent] {
        try read { db in
            try Self.events(
                db.cachedStatement(
                    sql:
                        "SELECT event.*, txn.productID, txn.arrival FROM event JOIN txn ON txn.id = event.transactionID WHERE sequence > ? ORDER BY sequence LIMIT ?"
                ),
                arguments: [sequence, limit]
            )
        }
    }

    /// The last `limit` events, oldest first: what a screen shows of the past when it opens.
    public func recentEvents(limit: Int) throws(StoreError) -> [TransactionEvent] {
        try read { db in
            try Self.events(
                db.makeStatement(
                    sql:
                        "SELECT event.*, txn.productID, txn.arrival FROM event JOIN txn ON txn.id = event.transactionID ORDER BY sequence DESC LIMIT ?"
                ),
                arguments: [limit]
            ).reversed()
        }
    }

    private static func events(_ statement: Statement, arguments: StatementArguments) throws -> [TransactionEvent] {
        try Row.fetchAll(statement, arguments: arguments).map { row in
            let event = try EventRecord(row: row)
            return TransactionEvent(
                sequence: event.sequence ?? 0, transactionID: event.transactionID,
                productID: try row.text("productID", of: TransactionRecord.databaseTableName),
                state: event.step.state, reason: event.step.reason, at: event.step.at,
                arrival: try row.storedIfPresent("arrival", of: TransactionRecord.databaseTableName)
            )
        }
    }

    static func withSteps(_ db: Database, _ record: TransactionRecord) throws -> StoreTransaction {
        var transaction = record.transaction
        transaction.steps = try EventRecord.fetchAll(
            db, where: "transactionID", is: transaction.id, orderedBy: "sequence"
        ).map(\.step)
        return transaction
    }
}

// What the tables hold, as GRDB records, and the one rule for reading them back: a stored value
// Storefront does not know is a corrupt database (P2), reported with the table and column that hold
// it, never read as a default.
import Foundation
import GRDB
import StoreModel

/// A stored value that is not one Storefront writes.
struct CorruptValue: Error, CustomStringConvertible {
    let table: String
    let column: String
    let value: String

    var description: String {
        "\(table).\(column) holds \"\(value.prefix(40))\", which is not a value Storefront writes"
    }
}

extension Row {
    /// A raw-value enum from `column` of `table`.
    func stored<T: RawRepresentable>(_ column: String, of table: String, as type: T.Type = T.self) throws -> T
    where T.RawValue == String {
        try required(storedIfPresent(column, of: table), column, table)
    }

    /// The same, where the column may be NULL.
    func storedIfPresent<T: RawRepresentable>(_ column: String, of table: String, as type: T.Type = T.self) throws -> T?
    where T.RawValue == String {
        guard let raw = try optionalText(column, of: table) else { return nil }
        guard let value = T(rawValue: raw) else { throw CorruptValue(table: table, column: column, value: raw) }
        return value
    }

    /// An integer raw-value enum, where the column may be NULL.
    func storedIfPresent<T: RawRepresentable>(_ column: String, of table: String, as type: T.Type = T.self) throws -> T?
    where T.RawValue == Int {
        guard let raw = try optionalInteger(column, of: table) else { return nil }
        guard let value = T(rawValue: Int(raw)) else {
            throw CorruptValue(table: table, column: column, value: "\(raw)")
        }
        return value
    }

    /// A JSON document Storefront wrote (a plan's state, a setting).
    func storedJSON<T: Decodable>(_ column: String, of table: String, dates: StoredJSON.Dates, as type: T.Type = T.self)
        throws -> T
    {
        let raw = try text(column, of: table)
        do {
            return try StoredJSON.value(T.self, from: raw, dates: dates)
        } catch {
            throw CorruptValue(table: table, column: column, value: raw)
        }
    }

    func text(_ column: String, of table: String) throws -> String {
        try required(optionalText(column, of: table), column, table)
    }

    func optionalText(_ column: String, of table: String) throws -> String? {
        try value(column, of: table) { if case .string(let text) = $0 { text } else { nil } }
    }

    func integer(_ column: String, of table: String) throws -> Int64 {
        try required(optionalInteger(column, of: table), column, table)
    }

    func optionalInteger(_ column: String, of table: String) throws -> Int64? {
        try value(column, of: table) { if case .int64(let number) = $0 { number } else { nil } }
    }

    /// The column's value as `extract` reads its storage; nil for NULL. A missing column or a value
    /// of another type is corrupt.
    private func value<T>(_ column: String, of table: String, _ extract: (DatabaseValue.Storage) -> T?) throws -> T? {
        guard let stored = self[column] as DatabaseValue? else {
            throw CorruptValue(table: table, column: column, value: "(missing column)")
        }
        if stored.isNull { return nil }
        guard let value = extract(stored.storage) else {
            throw CorruptValue(table: table, column: column, value: "\(stored)")
        }
        return value
    }

    private func required<T>(_ value: T?, _ column: String, _ table: String) throws -> T {
        guard let value else { throw CorruptValue(table: table, column: column, value: "NULL") }
        return value
    }

    func date(_ column: String, of table: String) throws -> Date { Date(storeSeconds: try integer(column, of: table)) }

    func optionalDate(_ column: String, of table: String) throws -> Date? {
        try optionalInteger(column, of: table).map(Date.init(storeSeconds:))
    }
}

extension FetchableRecord where Self: TableRecord {
    /// The rows whose `column` is `value`, in `order`, through a statement SQLite compiles once per
    /// connection. The query interface builds and compiles its statement at every call, which is
    /// a third of a purchase for the dozen look-ups by key that one makes.
    static func fetchAll(
        _ db: Database, where column: String, is value: some DatabaseValueConvertible, orderedBy order: String = "rowid"
    ) throws -> [Self] {
        try fetchAll(
            db.cachedStatement(sql: "SELECT * FROM \(databaseTableName) WHERE \(column) = ? ORDER BY \(order)"),
            arguments: [value])
    }

    static func fetchOne(_ db: Database, where column: String, is value: some DatabaseValueConvertible) throws -> Self?
    {
        try fetchOne(
            db.cachedStatement(sql: "SELECT * FROM \(databaseTableName) WHERE \(column) = ? LIMIT 1"),
            arguments: [value])
    }
}

/// JSON as Storefront stores it. Plans keep dates as Unix seconds; the clock and billing settings
/// were first written with Foundation's default (seconds since 2001) and keep it, so that old state
/// folders read the same.
enum StoredJSON {
    enum Dates { case unixSeconds, foundationDefault }

    static func text<T: Encodable>(_ value: T, dates: Dates) throws -> String {
        let encoder = JSONEncoder()
        if dates == .unixSeconds { encoder.dateEncodingStrategy = .secondsSince1970 }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func value<T: Decodable>(_ type: T.Type, from text: String, dates: Dates) throws -> T {
        let decoder = JSONDecoder()
        if dates == .unixSeconds { decoder.dateDecodingStrategy = .secondsSince1970 }
        return try decoder.decode(T.self, from: Data(text.utf8))
    }
}

// MARK: The device

// Records of plain text and numbers are Codable: GRDB reads them, and a NULL or a value of the
// wrong type is a decoding error that reads as a corrupt database too.

struct MetaRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "meta"
    var key: String
    var value: String
}

struct ProfileRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "profile"
    enum Columns {
        static let user = Column("user"), randomViews = Column("randomViews"), expiry = Column("expiry"),
            lastRandom = Column("lastRandom")
    }
    var user: String
    var randomViews = 0
    var expiry: Date?
    var lastRandom: String?

    init(user: String) { self.user = user }

    init(row: Row) throws {
        let table = Self.databaseTableName
        user = try row.text("user", of: table)
        randomViews = Int(try row.integer("randomViews", of: table))
        expiry = try row.optionalDate("expiry", of: table)
        lastRandom = try row.optionalText("lastRandom", of: table)
    }

    func encode(to container: inout PersistenceContainer) {
        container["user"] = user
        container["randomViews"] = randomViews
        container["expiry"] = expiry?.storeSeconds
        container["lastRandom"] = lastRandom
    }
}

struct OwnedRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "owned"
    var user: String
    var productID: String
    var transactionID: String
}

/// A transaction's row; its steps live in `event`.
struct TransactionRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "txn"
    enum Columns {
        static let id = Column("id"), user = Column("user"), state = Column("state"), reason = Column("reason")
        static let purchaseDate = Column("purchaseDate"), dueAt = Column("dueAt"), dueApproves = Column("dueApproves")
        static let finished = Column("finished")
    }
    var transaction: StoreTransaction

    init(_ transaction: StoreTransaction) { self.transaction = transaction }

    init(row: Row) throws {
        let table = Self.databaseTableName
        let user = try row.text("user", of: table)
        let dueApproves = try row.optionalInteger("dueApproves", of: table)
        transaction = StoreTransaction(
            id: try row.text("id", of: table), user: user.isEmpty ? nil : user,
            productID: try row.text("productID", of: table),
            kind: try row.stored("kind", of: table), quantity: Int(try row.integer("quantity", of: table)),
            months: Int(try row.integer("months", of: table)), days: Int(try row.integer("days", of: table)),
            bonusDays: Int(try row.integer("bonusDays", of: table)),
            state: try row.stored("state", of: table), reason: try row.storedIfPresent("reason", of: table),
            createdAt: try row.date("createdAt", of: table),
            purchaseDate: try row.optionalDate("purchaseDate", of: table),
            dueAt: try row.optionalDate("dueAt", of: table), dueApproves: dueApproves.map { $0 != 0 },
            isFinished: try row.integer("finished", of: table) != 0,
            originalID: try row.optionalText("originalID", of: table),
            steps: [], verificationError: try row.optionalText("verificationError", of: table)
        )
        if let type: OfferType = try row.storedIfPresent("offerType", of: table) {
            transaction.offer = OfferRedemption(type: type, id: try row.text("offerID", of: table))
        }
        transaction.appAccountToken = try row.optionalText("appAccountToken", of: table)
        transaction.arrival = try row.storedIfPresent("arrival", of: table)
        transaction.billingPlan = try row.storedIfPresent("billingPlan", of: table)
        transaction.introductoryOffer = try row.optionalInteger("introductoryOffer", of: table).map { $0 != 0 }
        transaction.storefront = try row.optionalText("storefront", of: table)
        transaction.onStorefrontChange = try row.storedIfPresent("onStorefrontChange", of: table)
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = transaction.id
        container["user"] = transaction.user ?? ""
        container["productID"] = transaction.productID
        container["kind"] = transaction.kind.rawValue
        container["quantity"] = transaction.quantity
        container["months"] = transaction.months
        container["days"] = transaction.days
        container["verificationError"] = transaction.verificationError
        container["bonusDays"] = transaction.bonusDays
        container["state"] = transaction.state.rawValue
        container["reason"] = transaction.reason?.rawValue
        container["createdAt"] = transaction.createdAt.storeSeconds
        container["purchaseDate"] = transaction.purchaseDate?.storeSeconds
        container["dueAt"] = transaction.dueAt?.storeSeconds
        container["dueApproves"] = transaction.dueApproves
        container["finished"] = transaction.isFinished
        container["originalID"] = transaction.originalID
        container["offerType"] = transaction.offer?.type.rawValue
        container["offerID"] = transaction.offer?.id
        container["appAccountToken"] = transaction.appAccountToken
        container["arrival"] = transaction.arrival?.rawValue
        container["billingPlan"] = transaction.billingPlan?.rawValue
        container["introductoryOffer"] = transaction.introductoryOffer
        container["storefront"] = transaction.storefront
        container["onStorefrontChange"] = transaction.onStorefrontChange?.rawValue
    }
}

/// One state change of one transaction (Q2).
struct EventRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "event"
    enum Columns { static let sequence = Column("sequence"), transactionID = Column("transactionID") }

    var sequence: Int64?
    var transactionID: String
    var step: TransactionStep

    init(transactionID: String, step: TransactionStep) {
        self.transactionID = transactionID
        self.step = step
    }

    init(row: Row) throws {
        let table = Self.databaseTableName
        sequence = try row.optionalInteger("sequence", of: table)
        transactionID = try row.text("transactionID", of: table)
        step = TransactionStep(
            state: try row.stored("state", of: table), reason: try row.storedIfPresent("reason", of: table),
            at: try row.date("at", of: table)
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container["sequence"] = sequence
        container["transactionID"] = transactionID
        container["state"] = step.state.rawValue
        container["reason"] = step.reason?.rawValue
        container["at"] = step.at.storeSeconds
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { sequence = inserted.rowID }
}

// The account server's rows as GRDB records (P2): read strictly, an unknown stored value a corrupt
// database naming its table and column.
import Foundation
import GRDB
import StoreModel

// MARK: The account server

struct AccountRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"
    var name: String
    var passwordHash: String
    /// Store seconds, as every date in these files.
    var createdAt: Int64
    /// W18: minted at sign-up (AppTransaction's `appTransactionId`).
    var appTransactionID: String?
}

/// One line of an account's receipt (A6).
struct ReceiptRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "receipt"
    enum Columns {
        static let transactionID = Column("transactionID"), account = Column("account"), productID = Column("productID")
        static let kind = Column("kind"), months = Column("months"), days = Column("days"),
            purchaseDate = Column("purchaseDate")
    }
    var entry: ReceiptEntry

    init(_ entry: ReceiptEntry) { self.entry = entry }

    init(row: Row) throws {
        let table = Self.databaseTableName
        let price = try row.optionalText("price", of: table).map { text in
            guard let price = Decimal(string: text) else {
                throw CorruptValue(table: table, column: "price", value: text)
            }
            return price
        }
        entry = ReceiptEntry(
            transactionID: try row.text("transactionID", of: table), account: try row.text("account", of: table),
            productID: try row.text("productID", of: table), kind: try row.stored("kind", of: table),
            quantity: Int(try row.integer("quantity", of: table)), months: Int(try row.integer("months", of: table)),
            days: Int(try row.integer("days", of: table)),
            bonusDays: Int(try row.integer("bonusDays", of: table)),
            purchaseDate: try row.date("purchaseDate", of: table),
            device: try row.text("device", of: table), event: try row.stored("event", of: table),
            group: try row.optionalText("groupID", of: table),
            expiresDate: try row.optionalDate("expiresDate", of: table),
            offer: try row.storedIfPresent("offer", of: table),
            offerType: try row.storedIfPresent("offerType", of: table),
            offerID: try row.optionalText("offerID", of: table), price: price,
            reference: try row.optionalText("reference", of: table), until: try row.optionalDate("until", of: table),
            note: try row.optionalText("note", of: table),
            appAccountToken: try row.optionalText("appAccountToken", of: table)
        )
        if let number = try row.optionalInteger("commitmentPeriod", of: table) {
            guard (1...BillingPlan.commitmentPeriods).contains(Int(number)),
                let ends = try row.optionalDate("commitmentEnds", of: table)
            else {
                throw CorruptValue(table: table, column: "commitmentPeriod", value: "\(number)")
            }
            entry.commitment = CommitmentPeriod(number: Int(number), ends: ends)
        }
        entry.billingPlan = try row.storedIfPresent("billingPlan", of: table)
        entry.storefront = try row.optionalText("storefront", of: table)
    }

    func encode(to container: inout PersistenceContainer) {
        container["transactionID"] = entry.transactionID
        container["account"] = entry.account
        container["productID"] = entry.productID
        container["kind"] = entry.kind.rawValue
        container["quantity"] = entry.quantity
        container["months"] = entry.months
        container["days"] = entry.days
        container["bonusDays"] = entry.bonusDays
        container["purchaseDate"] = entry.purchaseDate.storeSeconds
        container["device"] = entry.device
        container["event"] = entry.event.rawValue
        container["groupID"] = entry.group
        container["expiresDate"] = entry.expiresDate?.storeSeconds
        container["offer"] = entry.offer?.rawValue
        container["offerType"] = entry.offerType?.rawValue
        container["offerID"] = entry.offerID
        container["price"] = entry.price.map(PriceFormatter.plain)
        container["reference"] = entry.reference
        container["until"] = entry.until?.storeSeconds
        container["note"] = entry.note
        container["appAccountToken"] = entry.appAccountToken
        container["commitmentPeriod"] = entry.commitment?.number
        container["commitmentEnds"] = entry.commitment?.ends.storeSeconds
        container["billingPlan"] = entry.billingPlan?.rawValue
        container["storefront"] = entry.storefront
    }
}

/// An account's stored expiry of non-renewing subscriptions (A4, A6), in store seconds.
struct SubscriptionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "subscription"
    var account: String
    var expiry: Int64
}

/// An account's plan in one subscription group, folded from its plan lines.
struct PlanRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "plan"
    enum Columns { static let account = Column("account"), group = Column("groupID") }
    var account: String
    var state: PlanState

    init(account: String, state: PlanState) { (self.account, self.state) = (account, state) }

    init(row: Row) throws {
        account = try row.text("account", of: Self.databaseTableName)
        state = try row.storedJSON("state", of: Self.databaseTableName, dates: .unixSeconds)
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["account"] = account
        container["groupID"] = state.group
        container["state"] = try StoredJSON.text(state, dates: .unixSeconds)
    }
}

/// A setting of the whole state folder, as JSON: `billing` in `setting`, the clock in `clock`.
struct SettingRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "setting"
    static let billing = "billing"
    static let simulatedErrors = "simulatedErrors"
    static let paymentPolicy = "paymentPolicy"
    static let offerPolicy = "offerPolicy"
    static let appIdentity = "app"
    static let webhook = "webhook"
    static let apiKeys = "apiKeys"
    static let prices = "prices"
    static let families = "families"
    static let appAccountTokens = "appAccountTokens"
    static let retention = "retention"
    static func retentionImage(_ id: String) -> String { "retentionImage:" + id.lowercased() }
    /// F3: an account's storefront.
    static func storefront(of account: String) -> String { "storefront:" + account.lowercased() }
    var key: String
    var value: String
}

struct ClockRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "clock"
    var setting: ClockSetting

    init(_ setting: ClockSetting) { self.setting = setting }

    init(row: Row) throws {
        setting = try row.storedJSON("setting", of: Self.databaseTableName, dates: .foundationDefault)
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = 1
        container["setting"] = try StoredJSON.text(setting, dates: .foundationDefault)
    }
}

// Things that may be used a limited number of times across every device (O2, O3, O4): a
// promotional offer's nonce (once), a one-time offer code (once), a custom code (up to its limit,
// once per account), a win-back offer (once per account). One table of claims, checked and written
// in one transaction so that two devices cannot both take the last one.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: ClaimStore {
    static func registerClaims(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8: claims") { db in
            try db.execute(
                sql: """
                    CREATE TABLE claim (
                        key TEXT NOT NULL,
                        account TEXT NOT NULL COLLATE NOCASE,
                        at INTEGER NOT NULL,
                        PRIMARY KEY (key, account)
                    );
                    ALTER TABLE receipt ADD COLUMN offerType INTEGER;
                    ALTER TABLE receipt ADD COLUMN offerID TEXT;
                    CREATE TABLE offerCode (code TEXT PRIMARY KEY, value TEXT NOT NULL);
                    """)
        }
        migrator.registerMigration("v9: app account tokens") { db in
            try db.execute(sql: "ALTER TABLE receipt ADD COLUMN appAccountToken TEXT")
        }
        migrator.registerMigration("v10: monthly commitments") { db in
            try db.execute(
                sql:
                    "ALTER TABLE receipt ADD COLUMN commitmentPeriod INTEGER; ALTER TABLE receipt ADD COLUMN commitmentEnds INTEGER"
            )
        }
        migrator.registerMigration("v11: billing plan changes") { db in
            try db.execute(sql: "ALTER TABLE receipt ADD COLUMN billingPlan TEXT")
        }
    }

    /// Claims of one offer code made under several spellings become one code's: an account's
    /// several uses one, every account's counted against the code's limit.
    static func registerClaimSpellings(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13: offer-code claims in one spelling") { db in
            for statement in ClaimKey.mergeSpellingsSQL(accountColumn: "account") { try db.execute(sql: statement) }
        }
    }

    public func claim(_ key: String, account: String, limit: Int, at date: Date) throws(StoreError) -> Bool {
        let key = ClaimKey.canonical(key)
        return try write { db in
            let taken = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM claim WHERE key = ?", arguments: [key]) ?? 0
            let mine =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM claim WHERE key = ? AND account = ?", arguments: [key, account]) ?? 0
            guard taken < limit, mine == 0 else { return false }
            try db.execute(
                sql: "INSERT INTO claim (key, account, at) VALUES (?, ?, ?)",
                arguments: [key, account, date.storeSeconds])
            return true
        }
    }

    public func addOfferCodes(_ codes: [OfferCode]) throws(StoreError) {
        try write { db in
            for code in codes {
                if try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM offerCode WHERE code = ?", arguments: [code.code.uppercased()]) ?? 0
                    > 0
                {
                    throw StoreError.offerCodeExists(code.code)
                }
                try db.execute(
                    sql: "INSERT INTO offerCode (code, value) VALUES (?, ?)",
                    arguments: [code.code.uppercased(), try StoredJSON.text(code, dates: .foundationDefault)]
                )
            }
        }
    }

    public func offerCode(_ code: String) throws(StoreError) -> OfferCode? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT value FROM offerCode WHERE code = ?", arguments: [code.uppercased()])
                .map { try $0.storedJSON("value", of: "offerCode", dates: .foundationDefault) }
        }
    }

    public func offerCodes() throws(StoreError) -> [OfferCode] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT value FROM offerCode ORDER BY rowid").map {
                try $0.storedJSON("value", of: "offerCode", dates: .foundationDefault)
            }
        }
    }

    public func paymentDecisionInputs(transactionID: String, decided: String) throws(StoreError)
        -> PaymentDecisionInputs
    {
        try read { db in
            PaymentDecisionInputs(
                recorded: try ReceiptRecord.fetchOne(db, where: "transactionID", is: transactionID)?.entry,
                decided: try Self.claims(db, decided) > 0, policy: try Self.setting(db, SettingRecord.paymentPolicy))
        }
    }

    public func claims(_ key: String) throws(StoreError) -> Int {
        try read { db in try Self.claims(db, key) }
    }

    static func claims(_ db: Database, _ key: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM claim WHERE key = ?", arguments: [ClaimKey.canonical(key)]) ?? 0
    }
}

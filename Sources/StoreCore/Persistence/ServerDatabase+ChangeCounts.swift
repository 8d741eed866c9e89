// Counts of changes by scope, so that what is kept about one customer (the App Store Server API's
// kept answers) outlives every other customer's purchases: one count for the shared part of the
// store (settings, the clock, offer codes) and one per account (its account row, receipt, plans,
// stored expiry, claims). Triggers keep them, so no write can forget to; the tables no kept answer
// reads are left out by name, and a test fails on a table in neither list.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase {
    /// Each table that counts, with the column naming its account (nil: the shared scope '').
    package static let countedTables: [(table: String, account: String?)] = [
        ("account", "name"), ("receipt", "account"), ("subscription", "account"), ("plan", "account"),
        ("claim", "account"),
        ("setting", nil), ("clock", nil), ("offerCode", nil),
    ]

    /// Tables whose writes no kept answer reads: the outbox, the request log, device sessions.
    package static let uncountedTables = ["notification", "request", "session", "deviceToken"]

    static func registerChangeCounts(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v12: change counts") { db in
            try db.execute(
                sql: "CREATE TABLE changeCount (scope TEXT PRIMARY KEY COLLATE NOCASE, count INTEGER NOT NULL)")
            for (table, account) in countedTables {
                for event in ["INSERT", "UPDATE", "DELETE"] {
                    let rows =
                        account == nil
                        ? ["''"]
                        : event == "INSERT"
                            ? ["NEW.\(account!)"]
                            : event == "DELETE" ? ["OLD.\(account!)"] : ["NEW.\(account!)", "OLD.\(account!)"]
                    let bumps = rows.map {
                        "INSERT INTO changeCount (scope, count) VALUES (\($0), 1) ON CONFLICT (scope) DO UPDATE SET count = count + 1;"
                    }
                    try db.execute(
                        sql:
                            "CREATE TRIGGER \(table)Counted\(event.capitalized) AFTER \(event) ON \(table) BEGIN \(bumps.joined(separator: " ")) END"
                    )
                }
            }
        }
    }

    public func changeStamp(accounts: [String]) throws(StoreError) -> ChangeStamp {
        BlockingWatch.check("SQLite read \(file.path)")
        return try file.stamps.read(accounts: accounts)
    }

    public func changeStampWithoutWaiting(accounts: [String]) -> ChangeStamp? {
        file.stamps.readQuickly(accounts: accounts)
    }
}

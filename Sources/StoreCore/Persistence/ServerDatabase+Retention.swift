// The retention setup (M1) in the embedded account server's setting table: one document changed by
// compare-and-set in a write transaction, and each image's PNG under a key of its own.
import Foundation
import GRDB

extension ServerDatabase: RetentionStore {
    public func retentionSetup() throws(StoreError) -> RetentionSetup { try setting(SettingRecord.retention) ?? RetentionSetup() }

    public func replaceRetentionSetup(_ setup: RetentionSetup) throws(StoreError) -> Bool {
        try write { db in
            let stored: RetentionSetup = try SettingRecord.filter(key: SettingRecord.retention).asRequest(of: Row.self).fetchOne(db)
                .map { try $0.storedJSON("value", of: SettingRecord.databaseTableName, dates: .foundationDefault) } ?? RetentionSetup()
            guard stored.version == setup.version else { return false }
            var next = setup
            next.version += 1
            try SettingRecord(key: SettingRecord.retention, value: try StoredJSON.text(next, dates: .foundationDefault)).upsert(db)
            return true
        }
    }

    public func retentionImage(_ id: String) throws(StoreError) -> Data? { try setting(SettingRecord.retentionImage(id)) }

    public func setRetentionImage(_ id: String, png: Data?) throws(StoreError) {
        if let png { try setSetting(SettingRecord.retentionImage(id), png) } else { try removeSetting(SettingRecord.retentionImage(id)) }
    }
}

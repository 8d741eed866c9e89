// The retention setup (M1) in the embedded account server's setting table: one document changed by
// compare-and-set in a write transaction, and each image's PNG under a key of its own.
import Foundation
import StoreModel

extension ServerDatabase: RetentionStore {
    public func retentionSetup() throws(StoreError) -> RetentionSetup {
        try setting(SettingRecord.retention) ?? RetentionSetup()
    }

    public func replaceRetentionSetup(_ setup: RetentionSetup) throws(StoreError) -> Bool {
        try updateSetting(SettingRecord.retention, empty: RetentionSetup()) { stored in setup.replacing(stored) }
    }

    public func retentionImage(_ id: String) throws(StoreError) -> Data? {
        try setting(SettingRecord.retentionImage(id))
    }

    public func setRetentionImage(_ id: String, png: Data?) throws(StoreError) {
        if let png {
            try setSetting(SettingRecord.retentionImage(id), png)
        } else {
            try removeSetting(SettingRecord.retentionImage(id))
        }
    }
}

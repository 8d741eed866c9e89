// The retention setup (M1) in PostgreSQL's setting table: one document changed by compare-and-set
// under an advisory lock, and each image's PNG under a key of its own.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: RetentionStore {
    public func retentionSetup() throws(StoreError) -> RetentionSetup { try setting("retention") ?? RetentionSetup() }

    public func replaceRetentionSetup(_ setup: RetentionSetup) throws(StoreError) -> Bool {
        try updateSetting("retention", lock: "retention:", empty: RetentionSetup()) { stored in setup.replacing(stored)
        }
    }

    public func retentionImage(_ id: String) throws(StoreError) -> Data? {
        try setting("retentionImage:" + id.lowercased())
    }

    public func setRetentionImage(_ id: String, png: Data?) throws(StoreError) {
        try setSetting("retentionImage:" + id.lowercased(), png)
    }
}

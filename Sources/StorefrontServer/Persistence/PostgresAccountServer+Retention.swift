// The retention setup (M1) in PostgreSQL's setting table: one document changed by compare-and-set
// under an advisory lock, and each image's PNG under a key of its own.
import Foundation
import PostgresNIO
import StoreCore

extension PostgresAccountServer: RetentionStore {
    public func retentionSetup() throws(StoreError) -> RetentionSetup { try setting("retention") ?? RetentionSetup() }

    public func replaceRetentionSetup(_ setup: RetentionSetup) throws(StoreError) -> Bool {
        try transaction(lock: "retention:") { connection in
            let stored = try query(connection, "SELECT value FROM setting WHERE key = 'retention'").first
                .map { try Self.decode(RetentionSetup.self, Self.cell($0, "value")) } ?? RetentionSetup()
            guard stored.version == setup.version else { return false }
            var next = setup
            next.version += 1
            try query(
                connection, "INSERT INTO setting (key, value) VALUES ('retention', $1) ON CONFLICT (key) DO UPDATE SET value = $1", [try Self.json(next)]
            )
            return true
        }
    }

    public func retentionImage(_ id: String) throws(StoreError) -> Data? { try setting("retentionImage:" + id.lowercased()) }

    public func setRetentionImage(_ id: String, png: Data?) throws(StoreError) { try setSetting("retentionImage:" + id.lowercased(), png) }
}

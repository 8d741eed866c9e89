// Families (O5) in PostgreSQL: each change is one transaction under the families' advisory lock,
// reading the families it changes (W9), so servers sharing the database never interleave two.
import Foundation
import PostgresNIO
import StoreCore

extension PostgresAccountServer: FamilyStore {
    public func families() throws(StoreError) -> [Family] { try setting("families") ?? [] }

    public func changeFamily(_ change: FamilyChange) throws(StoreError) -> Bool {
        try transaction(lock: "families:") { connection in
            let current = try query(connection, "SELECT value FROM setting WHERE key = 'families'").first
                .map { try Self.decode([Family].self, Self.cell($0, "value")) } ?? []
            guard let next = try change.applied(to: current) else { return false }
            try query(
                connection, "INSERT INTO setting (key, value) VALUES ('families', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
                [try Self.json(next)]
            )
            return true
        }
    }
}

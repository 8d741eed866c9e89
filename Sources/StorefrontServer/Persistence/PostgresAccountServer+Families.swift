// Families (O5) in PostgreSQL.
import Foundation
import PostgresNIO
import StoreCore

extension PostgresAccountServer: FamilyStore {
    public func families() throws(StoreError) -> [Family] { try setting("families") ?? [] }

    public func setFamilies(_ families: [Family]) throws(StoreError) { try setSetting("families", families) }
}

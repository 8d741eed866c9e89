// Families (O5) in PostgreSQL: each change is one transaction under the families' advisory lock,
// reading the families it changes (W9), so servers sharing the database never interleave two.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: FamilyStore {
    public func families() throws(StoreError) -> [Family] { try setting("families") ?? [] }

    public func changeFamily(_ change: FamilyChange) throws(StoreError) -> Bool {
        try checkAccounts(of: change)
        return try updateSetting("families", lock: "families:", empty: [Family]()) { current in
            try change.applied(to: current)
        }
    }
}

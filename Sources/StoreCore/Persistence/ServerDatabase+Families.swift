// Families (O5), kept as a setting; each change is one write transaction that reads the families
// it changes (W9).
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: FamilyStore {
    public func families() throws(StoreError) -> [Family] { try setting(SettingRecord.families) ?? [] }

    public func changeFamily(_ change: FamilyChange) throws(StoreError) -> Bool {
        try checkAccounts(of: change)
        return try updateSetting(SettingRecord.families, empty: [Family]()) { current in try change.applied(to: current)
        }
    }
}

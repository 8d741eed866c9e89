// Families (O5), kept as a setting.
import Foundation
import GRDB

extension ServerDatabase: FamilyStore {
    public func families() throws(StoreError) -> [Family] { try setting(SettingRecord.families) ?? [] }

    public func setFamilies(_ families: [Family]) throws(StoreError) { try setSetting(SettingRecord.families, families) }
}

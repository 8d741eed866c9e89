// Families (O5), kept as a setting; each change is one write transaction that reads the families
// it changes (W9).
import Foundation
import GRDB

extension ServerDatabase: FamilyStore {
    public func families() throws(StoreError) -> [Family] { try setting(SettingRecord.families) ?? [] }

    public func changeFamily(_ change: FamilyChange) throws(StoreError) -> Bool {
        try write { db in
            let current: [Family] = try SettingRecord.filter(key: SettingRecord.families).asRequest(of: Row.self).fetchOne(db)
                .map { try $0.storedJSON("value", of: SettingRecord.databaseTableName, dates: .foundationDefault) } ?? []
            guard let next = try change.applied(to: current) else { return false }
            try SettingRecord(key: SettingRecord.families, value: try StoredJSON.text(next, dates: .foundationDefault)).upsert(db)
            return true
        }
    }
}

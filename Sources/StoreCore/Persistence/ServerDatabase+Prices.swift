// Price changes (O6), kept as a setting.
import Foundation
import GRDB

extension ServerDatabase: PriceBook {
    public func priceChanges() throws(StoreError) -> [PriceChange] { try setting(SettingRecord.prices) ?? [] }

    public func setPriceChange(_ change: PriceChange) throws(StoreError) {
        try write { db in
            let stored: [PriceChange] = try SettingRecord.filter(key: SettingRecord.prices).asRequest(of: Row.self).fetchOne(db)
                .map { try $0.storedJSON("value", of: SettingRecord.databaseTableName, dates: .foundationDefault) } ?? []
            let changes = stored.filter { $0.productID != change.productID } + [change]
            try SettingRecord(key: SettingRecord.prices, value: try StoredJSON.text(changes, dates: .foundationDefault)).upsert(db)
        }
    }
}

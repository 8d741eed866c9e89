// Price changes (O6), kept as a setting.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: PriceBook {
    public func priceChanges() throws(StoreError) -> [PriceChange] { try setting(SettingRecord.prices) ?? [] }

    public func setPriceChange(_ change: PriceChange) throws(StoreError) {
        try updateSetting(SettingRecord.prices, empty: [PriceChange]()) { stored in
            stored.replacing(with: change)
        }
    }
}

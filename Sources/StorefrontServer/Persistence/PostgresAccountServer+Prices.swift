// Price changes (O6) in PostgreSQL.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: PriceBook {
    public func priceChanges() throws(StoreError) -> [PriceChange] { try setting("prices") ?? [] }

    public func setPriceChange(_ change: PriceChange) throws(StoreError) {
        try updateSetting("prices", lock: "prices", empty: [PriceChange]()) { stored in
            stored.replacing(with: change)
        }
    }
}

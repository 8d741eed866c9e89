// Price changes (O6) in PostgreSQL.
import Foundation
import PostgresNIO
import StoreCore

extension PostgresAccountServer: PriceBook {
    public func priceChanges() throws(StoreError) -> [PriceChange] { try setting("prices") ?? [] }

    public func setPriceChange(_ change: PriceChange) throws(StoreError) {
        try transaction(lock: "prices") { connection in
            let stored = try query(connection, "SELECT value FROM setting WHERE key = 'prices'").first
                .map { try Self.decode([PriceChange].self, Self.cell($0, "value")) } ?? []
            let changes = stored.filter { $0.productID != change.productID } + [change]
            try query(
                connection, "INSERT INTO setting (key, value) VALUES ('prices', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                [try Self.json(changes)]
            )
        }
    }
}

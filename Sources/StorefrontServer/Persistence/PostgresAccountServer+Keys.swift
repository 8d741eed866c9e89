// The developer's keys (V2, O2) in PostgreSQL.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: KeyStore {
    public func apiKeyring() throws(StoreError) -> APIKeyring? { try setting("apiKeys") }

    public func setAPIKeyring(_ keyring: APIKeyring) throws(StoreError) { try setSetting("apiKeys", keyring) }
}

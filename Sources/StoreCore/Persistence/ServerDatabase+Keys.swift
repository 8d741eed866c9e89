// The developer's keys (V2, O2), kept as a setting.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: KeyStore {
    public func apiKeyring() throws(StoreError) -> APIKeyring? { try setting(SettingRecord.apiKeys) }

    public func setAPIKeyring(_ keyring: APIKeyring) throws(StoreError) {
        try setSetting(SettingRecord.apiKeys, keyring)
    }
}

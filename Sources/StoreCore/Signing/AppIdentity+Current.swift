// The app identity a store signs with: the state folder's setting, else the catalog's (S4).
import Foundation
import StoreModel

extension AppIdentity {
    /// The identity the state folder set, else one for the catalog's bundle id (or the default).
    public static func current(server: any SharedSettings, catalog: Catalog) throws(StoreError) -> AppIdentity {
        try server.appIdentity() ?? AppIdentity(bundleID: catalog.bundleID ?? defaultBundleID)
    }
}

// The catalog at the prices the account server keeps (M4).
import Foundation
import StoreModel

extension Catalog {
    /// The catalog at the prices the account server says, for a catalog that sells plans (no
    /// read for one that does not).
    package func priced(by server: any PriceBook) throws(StoreError) -> Catalog {
        guard products.contains(where: { $0.autoRenew != nil }) else { return self }
        return priced(by: try server.priceChanges())
    }
}

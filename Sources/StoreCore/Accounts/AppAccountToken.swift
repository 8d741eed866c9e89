// An account's own app account token (M3): the UUID an app would derive from its own user id and
// pass with every purchase (`Product.PurchaseOption.appAccountToken`). The screen buys with the
// signed-in account's, so that a backend can tie each transaction to the customer; the command line
// takes one with `buy --app-account-token`.
import Crypto
import Foundation
import StoreModel

public enum AppAccountToken {
    /// The same UUID for the same account name (any case), a version-4-shaped UUID made from a hash.
    public static func of(account: String) -> UUID {
        var bytes = Array(
            SHA256.hash(data: Data("storefront app account token\u{0}\(account.lowercased())".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

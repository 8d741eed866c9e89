// In-app purchase keys for the App Store Server API (V2), as App Store Connect gives them out: a
// P-256 private key in PEM (a `.p8` file), a key id and the team's issuer id. The store keeps only
// the public half; `storefront serve` checks the tokens they sign (StorefrontServer's APIToken).
import Crypto
import Foundation
import StoreModel

extension APIKeyring {
    /// A new key: its private half in PEM (to hand out, never stored) and its record.
    public static func makeKey(now: Date, type: APIKey.KeyType = .inAppPurchase) -> (pem: String, key: APIKey) {
        let privateKey = P256.Signing.PrivateKey()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        let keyID = String((0..<10).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
        return (
            privateKey.pemRepresentation + "\n",
            APIKey(
                keyID: keyID, publicKey: privateKey.publicKey.x963Representation, createdAt: now,
                type: type == .inAppPurchase ? nil : type
            )
        )
    }
}

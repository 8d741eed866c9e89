// In-app purchase keys for the App Store Server API (V2) as the store records them: a key id and the
// public half of a P-256 key. StoreCore's signing makes keys; the server checks their tokens (APIToken).
import Foundation

public struct APIKey: Sendable, Equatable, Codable {
    /// Ten characters, as Apple's key ids: "2X9R4HXF34".
    public var keyID: String
    /// The public key, x9.63.
    public var publicKey: Data
    public var createdAt: Date
    public var revoked: Bool
    /// What the key signs; nil (a key made before keys had types) is an in-app purchase key.
    public var type: KeyType?

    /// App Store Connect's two kinds: in-app purchase keys sign Server API tokens (and promotional
    /// offers' JWS); subscription-offer keys sign promotional offers only.
    public enum KeyType: String, Sendable, Codable, CaseIterable {
        case inAppPurchase = "in-app-purchase"
        case subscriptionOffer = "subscription-offer"
    }

    public var kind: KeyType { type ?? .inAppPurchase }

    public init(keyID: String, publicKey: Data, createdAt: Date, revoked: Bool = false, type: KeyType? = nil) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.revoked = revoked
        self.type = type
    }
}

/// The keys of a state folder and the issuer id they share.
public struct APIKeyring: Sendable, Equatable, Codable {
    public var issuerID: String
    public var keys: [APIKey]

    public init(issuerID: String = UUID().uuidString.lowercased(), keys: [APIKey] = []) {
        self.issuerID = issuerID
        self.keys = keys
    }
}

/// One request `storefront serve` answered, for the screen's list (V7).
public struct ServedRequest: Sendable, Equatable, Codable {
    public var at: Date
    public var method: String
    public var path: String
    public var status: Int
    public var milliseconds: Int

    public init(at: Date, method: String, path: String, status: Int, milliseconds: Int) {
        self.at = at
        self.method = method
        self.path = path
        self.status = status
        self.milliseconds = milliseconds
    }
}

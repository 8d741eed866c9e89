// A Play purchase as the Play Developer API answers for it: ProductPurchase (purchases.products.get)
// and VoidedPurchase (purchases.voidedpurchases.list), with Google's field names and types (times in
// milliseconds as strings, states as numbers), as its discovery document declares them.
import Foundation

/// androidpublisher v3's ProductPurchase.
public struct PlayProductPurchase: Codable, Sendable, Equatable {
    public var kind = "androidpublisher#productPurchase"
    public var purchaseTimeMillis: String
    public var purchaseState: Int
    public var consumptionState: Int
    public var acknowledgementState: Int
    public var orderId: String
    public var productId: String
    /// 0: a license tester's test purchase; every Storefront purchase is one.
    public var purchaseType: Int?
    public var quantity: Int
    public var refundableQuantity: Int
    public var regionCode: String
    public var obfuscatedExternalAccountId: String?
}

/// androidpublisher v3's VoidedPurchase.
public struct PlayVoidedPurchase: Codable, Sendable, Equatable {
    public var kind = "androidpublisher#voidedPurchase"
    public var purchaseToken: String
    public var orderId: String
    public var purchaseTimeMillis: String
    public var voidedTimeMillis: String
    public var voidedSource: Int
    public var voidedReason: Int
}

extension PlayPurchase {
    /// What products.get answers for it; `regionCode` is the account's billing region (ISO 3166-1
    /// alpha-2), `obfuscatedAccountId` what the app set in the purchase flow, if anything.
    public func productPurchase(regionCode: String, obfuscatedAccountId: String? = nil) -> PlayProductPurchase {
        PlayProductPurchase(
            purchaseTimeMillis: Self.millis(purchaseTime), purchaseState: state.rawValue,
            consumptionState: consumed ? 1 : 0, acknowledgementState: acknowledged ? 1 : 0, orderId: orderId,
            productId: productId, purchaseType: 0, quantity: 1, refundableQuantity: voided == nil ? 1 : 0,
            regionCode: regionCode, obfuscatedExternalAccountId: obfuscatedAccountId)
    }

    /// What voidedpurchases.list lists for it, once it is voided.
    public var voidedPurchase: PlayVoidedPurchase? {
        voided.map { void in
            PlayVoidedPurchase(
                purchaseToken: purchaseToken, orderId: orderId, purchaseTimeMillis: Self.millis(purchaseTime),
                voidedTimeMillis: Self.millis(void.at), voidedSource: void.source.rawValue,
                voidedReason: void.reason.rawValue)
        }
    }

    /// Milliseconds since 1970, as Google writes a time: a string of digits.
    static func millis(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
}

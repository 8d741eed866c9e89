// The units Apple's payloads are written in: milliseconds, milliunits, type names, and the ids a
// transaction's fields derive from it.
import Foundation

public enum SignedUnits {
    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// 1.99 → 1990: prices in thousandths of the currency unit.
    public static func milliunits(_ price: Decimal) -> Int64 {
        var thousandths = price * 1000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &thousandths, 0, .plain)
        return NSDecimalNumber(decimal: rounded).int64Value
    }

    static func typeName(_ kind: ProductKind) -> String {
        switch kind {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .nonRenewingSubscription: "Non-Renewing Subscription"
        case .autoRenewableSubscription: "Auto-Renewable Subscription"
        }
    }

    /// `offerPeriod`: what one line of the offer pays for (a pay-as-you-go period), or the whole
    /// offer (a free trial or a price paid up front).
    static func offerPeriod(_ terms: IntroductoryOffer) -> String {
        terms.mode == .payAsYouGo
            ? terms.period.description
            : SubscriptionPeriod(terms.period.value * terms.periods, terms.period.unit).description
    }

    static func discountType(_ mode: IntroductoryOffer.Mode) -> String {
        switch mode {
        case .freeTrial: "FREE_TRIAL"
        case .payAsYouGo: "PAY_AS_YOU_GO"
        case .payUpFront: "PAY_UP_FRONT"
        }
    }

    /// The web order line item of a subscription period: numeric, derived from its transaction.
    package static func webOrderLineItemID(_ transactionID: String) -> String {
        "1" + String(TransactionID.make(hash(transactionID)).dropFirst())
    }

    /// M3: the order id of a purchase, as on the customer's emailed receipt: "M" and the
    /// transaction id in base 36, so that Look Up Order ID finds the purchase without a table.
    public static func orderID(_ transactionID: String) -> String? {
        guard let number = UInt64(transactionID) else { return nil }
        return "M" + String(number, radix: 36, uppercase: true)
    }

    /// The transaction an order id names, or nil when it is not one `orderID` makes.
    public static func transactionID(orderID: String) -> String? {
        guard orderID.count > 1, orderID.first == "M",
            orderID.dropFirst().allSatisfy({ $0.isNumber || ($0.isUppercase && $0.isASCII) }),
            let number = UInt64(orderID.dropFirst(), radix: 36)
        else { return nil }
        return String(number)
    }

    /// W18: a new account's app transaction id, minted where the records are kept: "7" and 15
    /// random digits, unguessable, never derived from the name.
    package static func mintAppTransactionID() -> String {
        "7" + String(TransactionID.make(UInt64.random(in: 0...UInt64.max)).dropFirst())
    }

    /// The id an account made before W18 was signed with, a hash of its name: kept for those
    /// accounts only, once, when their store is migrated (what was signed stays as it was).
    package static func legacyAppTransactionID(_ account: String) -> String {
        "7" + String(TransactionID.make(hash(account.lowercased())).dropFirst())
    }

    package static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static func digest(_ text: String) -> String { String(format: "%016llx", hash(text)) }

    static func uuid(from text: String) -> String {
        let a = hash(text)
        let b = hash(text + "/nonce")
        let hex = String(format: "%016llx%016llx", a, b)
        let c = Array(hex)
        return
            "\(String(c[0..<8]))-\(String(c[8..<12]))-4\(String(c[13..<16]))-a\(String(c[17..<20]))-\(String(c[20..<32]))"
    }
}

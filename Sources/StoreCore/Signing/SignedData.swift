// Signed data (S2–S5): every transaction, every plan's renewal info and the device's app
// transaction as a JWS with the fields and units of Apple's decoded payloads — dates in
// milliseconds, prices in milliunits — signed by the state folder's certificate authority at the
// moment it is asked for (as the App Store signs what it hands out), so that a purchase pays
// nothing for it (S6).
import Foundation

public final class SignedData: SessionRole {
    let session: DeviceSession
    let plans: Plans

    init(session: DeviceSession, plans: Plans) {
        self.session = session
        self.plans = plans
    }

    // MARK: The app and the authority

    /// The app signed data names: the state folder's setting, else the catalog's bundle id (S4).
    public func identity() throws(StoreError) -> AppIdentity {
        try AppIdentity.current(server: sharedSettings, catalog: catalog)
    }

    public func setIdentity(_ identity: AppIdentity) throws(StoreError) { try sharedSettings.setAppIdentity(identity) }

    public func authority() throws(StoreError) -> CertificateAuthority { try session.authority() }

    // MARK: Transactions

    /// A transaction that delivered content, signed; nil for one that did not (purchasing,
    /// deferred, failed). A transaction that arrived unverified (Q7, S5) is signed so that
    /// verification fails the way its error says.
    public func transaction(_ transaction: StoreTransaction) throws(StoreError) -> SignedItem? {
        try self.transaction(transaction, receipt: nil)
    }

    /// Many transactions, signed, by id (the receipt read once per account, the prices, identity
    /// and app account tokens once for all; on a team, one call to the server per account).
    public func transactions(_ list: [StoreTransaction]) throws(StoreError) -> [String: SignedItem] {
        guard !list.isEmpty else { return [:] }
        var receipts: [String: [ReceiptEntry]] = [:]
        var signed: [String: SignedItem] = [:]
        var local: [StoreTransaction] = []
        for (user, group) in Dictionary(grouping: list, by: { $0.user ?? "" }) {
            guard let team = team(user) else {
                local += group
                continue
            }
            let delivered = group.filter { $0.state.deliversContent && $0.purchaseDate != nil }
            let items = try self.signed(by: team, account: user, delivered.map(Self.signingRequest))
            for (transaction, item) in zip(delivered, items) { signed[transaction.id] = item }
        }
        guard !local.isEmpty else { return signed }
        let builder = try builder()
        for transaction in local {
            var receipt: [ReceiptEntry]?
            if let user = transaction.user {
                if receipts[user] == nil { receipts[user] = try ledger.receipt(account: user) }
                receipt = receipts[user]
            }
            signed[transaction.id] = try self.transaction(transaction, receipt: receipt, builder: builder)
        }
        return signed
    }

    func transaction(
        _ transaction: StoreTransaction, receipt given: [ReceiptEntry]?, builder reused: PayloadBuilder? = nil
    ) throws(StoreError) -> SignedItem? {
        if let user = transaction.user, let team = team(user) {
            guard transaction.state.deliversContent, transaction.purchaseDate != nil else { return nil }
            return try signed(by: team, account: user, [Self.signingRequest(transaction)])[0]
        }
        var receipt: [ReceiptEntry] = []
        if let user = transaction.user { receipt = if let given { given } else { try ledger.receipt(account: user) } }
        let builder = if let reused { reused } else { try self.builder() }
        guard let payload = builder.transaction(transaction, receipt: receipt) else { return nil }
        return try Self.sign(payload, verificationError: transaction.verificationError, authority: authority())
    }

    /// The transaction that pays for a plan's current period, signed: the device's own when it
    /// has it, else made from the receipt line (a period another device paid for).
    public func planTransaction(_ plan: PlanStatus) throws(StoreError) -> SignedItem? {
        if let own = try device.transaction(id: plan.transactionID) { return try transaction(own) }
        guard let user = try currentUser() else { return nil }
        if let team = team(user) {
            return try signed(by: team, account: user, [.transaction(id: plan.transactionID, verificationError: nil)])[
                0]
        }
        let receipt = try ledger.receipt(account: user)
        guard let line = receipt.first(where: { $0.transactionID == plan.transactionID }) else { return nil }
        return try Self.sign(
            try builder().transaction(line: line, receipt: receipt), verificationError: nil, authority: authority())
    }

    // MARK: Renewal info

    /// The renewal info of a plan of the signed-in account, signed.
    public func renewalInfo(_ plan: PlanStatus) throws(StoreError) -> SignedItem {
        let user = try currentUser()
        if let team = team(user), let user {
            return try signedOne(
                by: team, account: user, .renewalInfo(originalTransactionID: plan.originalTransactionID),
                missing: "no plan \(plan.originalTransactionID)")
        }
        return try renewalInfo(plan, account: user, builder: builder(), authority: authority())
    }

    func renewalInfo(
        _ plan: PlanStatus, account user: String?, builder: PayloadBuilder, authority: CertificateAuthority
    ) throws(StoreError) -> SignedItem {
        let lines = try user.map { user throws(StoreError) in try planBook.planLines(account: user) } ?? []
        // O4: the win-back offers a lapsed subscriber qualifies for, as Apple lists them.
        var winBack: [String] = []
        if let user, plan.phase == .expired, plan.familySharedBy == nil, let product = catalog.product(plan.productID) {
            winBack = try Offers(session: session, plans: plans).eligibleWinBackOffers(account: user, product: product)
                .map(\.id)
        }
        return try Self.sign(
            builder.renewalInfo(plan, planLines: lines, eligibleWinBackOfferIDs: winBack), verificationError: nil,
            authority: authority)
    }

    // MARK: App transaction

    /// The device's app transaction: the app as this device's account bought it.
    public func appTransaction() throws(StoreError) -> SignedItem {
        let user = try currentUser() ?? ""
        if let team = team(user) {
            return try signedOne(
                by: team, account: user, .appTransaction(device: session.deviceName), missing: "no app transaction")
        }
        let first = try device.transactions(.profile(user)).map(\.createdAt).min()
        let payload = try builder().appTransaction(device: session.deviceName, firstPurchase: first)
        return try Self.sign(payload, verificationError: nil, authority: authority())
    }

    func builder() throws(StoreError) -> PayloadBuilder { try builder(account: currentUser() ?? "") }

    func builder(account: String) throws(StoreError) -> PayloadBuilder {
        PayloadBuilder(
            catalog: try catalog.priced(by: priceBook), identity: try identity(), now: now(), account: account,
            appAccountTokens: try sharedSettings.appAccountTokens()
        )
    }

    // MARK: The retention endpoint's request

    /// M2: the signed request the developer's retention endpoint gets when the customer opens
    /// `plan` to cancel: on a team, the server's; else this state folder's.
    public func realtimeRequest(_ plan: PlanStatus, locale: String) throws(StoreError) -> (
        body: Data, requestIdentifier: String
    ) {
        let user = try currentUser()
        if let team = team(user), let user {
            let item = SigningRequest.realtimeRequest(originalTransactionID: plan.originalTransactionID, locale: locale)
            let signed = try signedOne(by: team, account: user, item, missing: "no plan \(plan.originalTransactionID)")
            return (RealtimeCall.body(signedPayload: signed.jws), signed.payload["requestIdentifier"] as? String ?? "")
        }
        return try RealtimeCall.body(
            originalTransactionID: plan.originalTransactionID, productID: plan.productID, locale: locale,
            identity: identity(), now: now(), authority: authority()
        )
    }

    // MARK: Signing

    /// Signs, or breaks the signing the way a simulated Verification error says (S5).
    static func sign(_ typed: some SignedPayload, verificationError: String?, authority: CertificateAuthority)
        throws(StoreError) -> SignedItem
    {
        var payload = typed.fields
        let unverified = verificationError.flatMap(Unverified.init(verificationError:))
        switch unverified {
        case .bundleID?:
            payload["bundleId"] = (payload["bundleId"] as? String ?? "") + ".unverified"
        case .environment?:
            let key = payload["receiptType"] != nil ? "receiptType" : "environment"
            payload[key] = payload[key] as? String == "Production" ? "Sandbox" : "Production"
        default: break
        }
        let jws = try authority.sign(payload, breaking: unverified?.breakage)
        return SignedItem(jws: jws, payload: payload, unverified: unverified)
    }

    // MARK: Units

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

    /// The account's app transaction id: the same on every device of the account.
    package static func appTransactionID(_ account: String) -> String {
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

/// A JWS and the payload it carries.
public struct SignedItem: @unchecked Sendable {
    public let jws: String
    public let payload: [String: Any]
    /// Set when the item was signed to fail verification on purpose.
    public let unverified: Unverified?
}

/// The ways signed data is made to fail verification (S5), by the simulated Verification error
/// (Q7) that asks for them.
public enum Unverified: String, Sendable, CaseIterable {
    case signature
    case bundleID = "bundle-id"
    case environment, chain, expired, oid

    /// VerificationResult.VerificationError cases, as Storefront breaks the data for each.
    public init?(verificationError: String) {
        switch verificationError.split(separator: ".").last.map(String.init) ?? verificationError {
        case "invalidSignature": self = .signature
        case "invalidCertificateChain": self = .chain
        case "revokedCertificate": self = .expired
        case "invalidEncoding": self = .oid
        case "invalidDeviceVerification": self = .bundleID
        case "missingRequiredProperties": self = .environment
        default: return nil
        }
    }

    /// The VerificationError case that asks for this way.
    public var verificationError: String {
        switch self {
        case .signature: "invalidSignature"
        case .chain: "invalidCertificateChain"
        case .expired: "revokedCertificate"
        case .oid: "invalidEncoding"
        case .bundleID: "invalidDeviceVerification"
        case .environment: "missingRequiredProperties"
        }
    }

    var breakage: CertificateAuthority.Breakage? {
        switch self {
        case .signature: .signature
        case .chain: .chain
        case .expired: .expired
        case .oid: .oid
        case .bundleID, .environment: nil
        }
    }

    /// What a person reads beside the transaction.
    public var reason: String {
        switch self {
        case .signature: "the signature does not match"
        case .bundleID: "signed for another app's bundle id"
        case .environment: "signed for the other environment"
        case .chain: "the certificate chain lacks its root"
        case .expired: "the signing certificate had expired"
        case .oid: "the signing certificate is not a StoreKit one"
        }
    }
}

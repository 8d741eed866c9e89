// Signed data (S2–S5): every transaction, every plan's renewal info and the device's app
// transaction as a JWS with the fields and units of Apple's decoded payloads — dates in
// milliseconds, prices in milliunits — signed by the state folder's certificate authority at the
// moment it is asked for (as the App Store signs what it hands out), so that a purchase pays
// nothing for it (S6).
import Foundation
import StoreModel

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
            appTransactionID: account.isEmpty ? nil : try directory.appTransactionID(account: account),
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

}

/// A JWS and the payload it carries.
public struct SignedItem: @unchecked Sendable {
    public let jws: String
    public let payload: [String: Any]
    /// Set when the item was signed to fail verification on purpose.
    public let unverified: Unverified?
}

extension Unverified {
    var breakage: CertificateAuthority.Breakage? {
        switch self {
        case .signature: .signature
        case .chain: .chain
        case .expired: .expired
        case .oid: .oid
        case .bundleID, .environment: nil
        }
    }
}

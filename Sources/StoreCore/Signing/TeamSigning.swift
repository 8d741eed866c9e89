// One root on a team (S1): Apple signs everything a backend verifies with one root, whoever shows
// it. On a team, a device of a signed-in account does not sign its account's data with its own
// state folder's authority: it asks the server, which builds each item from its own records (the
// account's receipt, plans, claims and the clock) and signs it with the serving machine's root.
// A device says only which of its account's items it wants; it cannot have the server sign a
// payload it made, nor anything of an account it has no session for.
import Foundation
import StoreModel

/// One item a device asks the server to sign for an account of its own.
public enum SigningRequest: Codable, Sendable, Equatable {
    /// A transaction of the account, by id; `verificationError` breaks it the way a simulated
    /// Verification error says (S5).
    case transaction(id: String, verificationError: String?)
    /// A restore's transaction (A5): the device's new id for a purchase of the account it
    /// re-delivered, made at `purchaseDate`.
    case restored(id: String, originalID: String, purchaseDate: Date, verificationError: String?)
    /// The renewal info of the account's plan that `originalTransactionID` started.
    case renewalInfo(originalTransactionID: String)
    /// The account's app transaction as `device` holds it (its deviceVerification).
    case appTransaction(device: String)
    /// M2: the request the App Store sends the developer's retention endpoint when the customer
    /// opens that plan to cancel, in the customer's locale.
    case realtimeRequest(originalTransactionID: String, locale: String)
    /// A notification about the account, by UUID: the payload it is (or will be) delivered with.
    case notification(uuid: String)
    /// The account's app receipt (AppReceipt.swift), DER in base64.
    case appReceipt
    /// O1 O2: the screen's demo offers, signed with the server's own key as the developer's
    /// server would sign them for this account: a promotional offer V2 JWS, an introductory offer
    /// eligibility JWS.
    case promotionalOfferJWS(productID: String, offerID: String)
    case introductoryOfferEligibilityJWS(productID: String, allow: Bool)
}

extension SigningRequest {
    /// W18: the use of the developer's policy this item takes for a customer's session (its claim
    /// key, and how many uses the policy gives `account`), or nil when it signs nothing in the
    /// developer's name. Withholding the introductory offer costs the customer alone: not counted.
    package func policyClaim(_ policy: OfferSigningPolicy, account: String) -> (key: String, limit: Int)? {
        let who = account.lowercased()
        switch self {
        case .promotionalOfferJWS(_, let offer):
            return ("signed-offer:\(offer):\(who)", policy.promotionalUses(offer, account: account))
        case .introductoryOfferEligibilityJWS(let product, let allow) where allow:
            return ("signed-introductory:\(product):\(who)", policy.introductoryUses(account: account))
        default:
            return nil
        }
    }
}

/// The server's side: signs what a device of `account` asks for, from the server's records, nil
/// for an item the account does not have.
public protocol DeviceSigning: Sendable {
    func sign(_ items: [SigningRequest], account: String) throws(StoreError) -> [String?]
    /// The root all of it verifies with, in DER.
    func rootCertificate() throws(StoreError) -> Data
}

extension AccountRequests {
    public struct Signing: Codable, Sendable {
        package var account: String
        package var items: [SigningRequest]
    }
}

extension SignedData {
    // MARK: A team device's side

    /// The server that signs `account`'s data: a remote account server for a signed-in account;
    /// nil where this state folder signs (an embedded server, a guest, whose purchases stay on the
    /// device).
    func team(_ account: String?) -> (any TeamConnection)? {
        guard let account, !account.isEmpty else { return nil }
        return keeper.team
    }

    /// The root a backend trusts (DER): on a team, the server's, which verifies what the team
    /// signs; `own`, or without a server, this state folder's.
    public func rootCertificate(own: Bool = false) throws(StoreError) -> Data {
        if !own, let team = keeper.team { return try team.rootCertificate() }
        return try authority().rootDER
    }

    /// Items signed by `team` for `account`, with the payload each carries.
    func signed(by team: any TeamConnection, account: String, _ items: [SigningRequest]) throws(StoreError)
        -> [SignedItem?]
    {
        let answered = try team.signed(items, account: account)
        guard answered.count == items.count else {
            throw StoreError.serverUnreachable(
                server: team.location, problem: .answered("it signed \(answered.count) items of \(items.count)"))
        }
        return try zip(items, answered).map { item, jws throws(StoreError) -> SignedItem? in
            guard let jws else { return nil }
            guard let decoded = try? JWS.decode(jws) else {
                throw StoreError.serverUnreachable(
                    server: team.location, problem: .answered("it answered a signature that is not a JWS"))
            }
            var unverified: Unverified?
            switch item {
            case .transaction(_, let error?), .restored(_, _, _, let error?):
                unverified = Unverified(verificationError: error)
            default: break
            }
            return SignedItem(jws: jws, payload: decoded.payload, unverified: unverified)
        }
    }

    /// One item the account must have, signed by `team`; `missing` says what it lacked.
    func signedOne(by team: any TeamConnection, account: String, _ item: SigningRequest, missing: String)
        throws(StoreError) -> SignedItem
    {
        guard let signed = try signed(by: team, account: account, [item])[0] else {
            throw StoreError.serverUnreachable(
                server: team.location, problem: .answered("it has \(missing) of \(account) to sign"))
        }
        return signed
    }

    /// What the server is asked to sign for one of this device's transactions.
    static func signingRequest(_ transaction: StoreTransaction) -> SigningRequest {
        if transaction.state == .restored, let original = transaction.originalID, let date = transaction.purchaseDate {
            return .restored(
                id: transaction.id, originalID: original, purchaseDate: date,
                verificationError: transaction.verificationError)
        }
        return .transaction(id: transaction.id, verificationError: transaction.verificationError)
    }

    // MARK: The server's side

    /// Signs `items` for `account` from this store's account server and with its authority: the
    /// serving machine's store answers its devices (`storefront serve`).
    package func signForDevice(_ items: [SigningRequest], account: String) throws(StoreError) -> [String?] {
        let receipt = try ledger.receipt(account: account)
        let builder = try builder(account: account)
        let authority = try authority()
        var statuses: [PlanStatus]?
        func plan(_ original: String) throws(StoreError) -> PlanStatus? {
            if statuses == nil { statuses = try plans.planStatuses(account: account) }
            return statuses?.first { $0.originalTransactionID == original }
        }
        return try items.map { item throws(StoreError) -> String? in
            switch item {
            case .transaction(let id, let verificationError):
                guard let line = receipt.first(where: { $0.transactionID == id && $0.isTransaction }) else {
                    return nil
                }
                return try Self.sign(
                    builder.transaction(line: line, receipt: receipt), verificationError: verificationError,
                    authority: authority
                ).jws
            case .restored(let id, let original, let date, let verificationError):
                // Only a purchase the account still owns, under an id no transaction has, dated
                // between that purchase and now.
                guard let line = receipt.first(where: { $0.transactionID == original && $0.isTransaction }),
                    try ledger.ownedProducts(account: account).contains(where: { $0.transactionID == original }),
                    try ledger.receiptEntry(transactionID: id) == nil
                else { return nil }
                let at = max(line.purchaseDate, min(date, builder.now))
                let restored = StoreTransaction(
                    id: id, user: account, productID: line.productID, kind: .nonConsumable, quantity: 0, months: 0,
                    bonusDays: 0,
                    state: .restored, reason: nil, createdAt: at, purchaseDate: at, dueAt: nil, dueApproves: nil,
                    isFinished: true,
                    originalID: original, steps: []
                )
                guard let payload = builder.transaction(restored, receipt: receipt) else { return nil }
                return try Self.sign(payload, verificationError: verificationError, authority: authority).jws
            case .renewalInfo(let original):
                guard let plan = try plan(original) else { return nil }
                return try renewalInfo(plan, account: account, builder: builder, authority: authority).jws
            case .appTransaction(let device):
                // The app as this account first bought something in it, on any of its devices.
                let first = receipt.filter(\.isTransaction).map(\.purchaseDate).min()
                return try Self.sign(
                    builder.appTransaction(device: device, firstPurchase: first), verificationError: nil,
                    authority: authority
                ).jws
            case .realtimeRequest(let original, let locale):
                guard let plan = try plan(original) else { return nil }
                let payload = RealtimeCall.payload(
                    originalTransactionID: original, productID: plan.productID, locale: locale,
                    identity: builder.identity, now: builder.now
                )
                return try authority.sign(payload)
            case .notification(let uuid):
                // Signed once and kept, so that its delivery carries the same payload.
                guard let notification = try outbox.notifications(account: account).first(where: { $0.uuid == uuid })
                else { return nil }
                return try Notifications(session: session).signedPayload(notification)
            case .appReceipt:
                return try Self.appReceipt(receipt: receipt, builder: builder, authority: authority)
                    .base64EncodedString()
            case .promotionalOfferJWS(let product, let offer):
                guard catalog.product(product)?.autoRenew?.offer(offer, type: .promotional) != nil else { return nil }
                return try Offers(session: session, plans: plans).signPromotionalJWSWithOwnKey(
                    productID: product, offerID: offer, account: account)
            case .introductoryOfferEligibilityJWS(let product, let allow):
                guard catalog.product(product)?.autoRenew?.introductoryOffer != nil else { return nil }
                return try Offers(session: session, plans: plans).signIntroductoryOfferEligibilityWithOwnKey(
                    productID: product, allow: allow, account: account)
            }
        }
    }
}

import Crypto
import Foundation
import StoreModel
import SwiftASN1
// The app receipt (StoreKit 1's `Bundle.main.appStoreReceiptURL`, the receipt-chaining note): a
// PKCS #7 SignedData in DER whose content is a SET of receipt attributes, each a SEQUENCE of type,
// version and an OCTET STRING holding the value's own DER. The app's fields (bundle id 2, version
// 3, creation date 12, original version 19) and one in-app purchase receipt (17) per transaction
// of the account, with the fields Apple documents: quantity 1701, product id 1702, transaction id
// 1703, purchase date 1704, original transaction id 1705, original purchase date 1706, expiration
// date 1708, web order line item id 1711, cancellation date 1712, introductory price period 1719.
// Dates are RFC 3339 IA5Strings. Two more say whose receipt it is: the environment it was made in
// (type 0, as Apple's receipts carry their receipt type) and the customer's app transaction id
// (`customerAttribute`, Storefront's own: Apple's server knows the customer from its own records,
// and verifyReceipt here reads it from the signed receipt instead). A backend moving off verifyReceipt reads a transaction id from it
// with Apple's `ReceiptUtility` and asks the App Store Server API for the rest; it is signed with
// the store's chain, so `openssl cms -verify` with the root checks it.
//
// The in-app receipts are the account's transactions as Get Transaction History lists them, made
// from the same payloads as the signed transactions; consumables are left out, as a device here
// finishes each one as it delivers it and Apple's receipt drops finished consumables. The device
// fields (opaque value 4, SHA-1 hash 5) are not written: nothing here has a device identifier.
@_spi(CMS) import X509

public struct AppReceipt: Sendable, Equatable {
    /// The attribute that holds the customer's app transaction id: a type Apple's receipts leave
    /// unused, so that a reader of Apple's fields skips it.
    static let customerAttribute = 7_000
    public var environment: AppIdentity.Environment
    /// The customer's app transaction id (AppTransaction's `appTransactionId`); nil for a guest.
    public var appTransactionID: String?
    public var bundleID: String
    public var applicationVersion: String
    public var originalApplicationVersion: String
    public var created: Date
    public var inApps: [TransactionPayload]

    /// The content: the DER SET of the receipt's attributes.
    public func content() throws -> [UInt8] {
        var attributes: [[UInt8]] = [
            try Self.attribute(2, utf8: bundleID), try Self.attribute(3, utf8: applicationVersion),
            try Self.attribute(12, date: created), try Self.attribute(19, utf8: originalApplicationVersion),
            try Self.attribute(0, utf8: environment.rawValue),
        ]
        if let appTransactionID {
            attributes.append(try Self.attribute(Self.customerAttribute, utf8: appTransactionID))
        }
        for payload in inApps {
            attributes.append(try Self.attribute(17, der: try Self.set(Self.inAppAttributes(payload))))
        }
        return try Self.set(attributes)
    }

    /// The receipt signed with `authority`'s leaf, the intermediate carried beside it.
    func signed(by authority: CertificateAuthority) throws(StoreError) -> Data {
        do {
            let leaf = try Certificate(derEncoded: Array(authority.chain[0]))
            let intermediate = try Certificate(derEncoded: Array(authority.chain[1]))
            return Data(
                try CMS.sign(
                    try content(), signatureAlgorithm: .ecdsaWithSHA256,
                    additionalIntermediateCertificates: [intermediate], certificate: leaf,
                    privateKey: Certificate.PrivateKey(authority.signingKey), detached: false
                ))
        } catch {
            throw StoreError.storage(path: "signing", reason: "the app receipt: \(error)")
        }
    }

    static func inAppAttributes(_ payload: TransactionPayload) throws -> [[UInt8]] {
        var fields: [[UInt8]] = [
            try attribute(1701, integer: payload.quantity ?? 1), try attribute(1702, utf8: payload.productId ?? ""),
            try attribute(1703, utf8: payload.transactionId ?? ""),
            try attribute(1705, utf8: payload.originalTransactionId ?? ""),
        ]
        if let date = payload.purchaseDate { fields.append(try attribute(1704, date: milliseconds(date))) }
        if let date = payload.originalPurchaseDate { fields.append(try attribute(1706, date: milliseconds(date))) }
        if let date = payload.expiresDate { fields.append(try attribute(1708, date: milliseconds(date))) }
        if let date = payload.revocationDate { fields.append(try attribute(1712, date: milliseconds(date))) }
        if payload.type == "Auto-Renewable Subscription" {
            if let line = payload.webOrderLineItemId.flatMap(Int.init) {
                fields.append(try attribute(1711, integer: line))
            }
            let introductoryPrice = payload.offerType == 1 && payload.offerDiscountType != "FREE_TRIAL"
            fields.append(try attribute(1719, integer: introductoryPrice ? 1 : 0))
        }
        return fields
    }

    static func milliseconds(_ value: Int64) -> Date { Date(timeIntervalSince1970: Double(value) / 1000) }

    // MARK: DER

    /// A receipt attribute: SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }.
    static func attribute(_ type: Int, der value: [UInt8]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { inner in
            try inner.serialize(type)
            try inner.serialize(1)
            try inner.serialize(ASN1OctetString(contentBytes: value[...]))
        }
        return serializer.serializedBytes
    }

    static func attribute(_ type: Int, utf8 text: String) throws -> [UInt8] {
        try attribute(type, der: encoded(ASN1UTF8String(text)))
    }

    static func attribute(_ type: Int, integer value: Int) throws -> [UInt8] {
        try attribute(type, der: encoded(value))
    }

    static func attribute(_ type: Int, date: Date) throws -> [UInt8] {
        try attribute(type, der: encoded(try ASN1IA5String(date.formatted(.iso8601))))
    }

    static func encoded(_ value: some DERSerializable) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        return serializer.serializedBytes
    }

    /// A DER SET OF: its elements in the order of their encodings (X.690 11.6).
    static func set(_ elements: [[UInt8]]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .set) { inner in
            for element in elements.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                inner.serializeRawBytes(element)
            }
        }
        return serializer.serializedBytes
    }
}

extension SignedData {
    /// The signed-in account's app receipt, DER: on a team, the server's, from its records and
    /// signed with its chain. A guest's lists no purchases.
    public func appReceipt() throws(StoreError) -> Data {
        let user = try currentUser()
        if let user, let team = team(user) {
            let answered = try team.signed([.appReceipt], account: user)
            guard let text = answered.first ?? nil, let der = Data(base64Encoded: text) else {
                throw StoreError.serverUnreachable(
                    server: team.location, problem: .answered("it answered no app receipt"))
            }
            return der
        }
        let receipt = try user.map { account throws(StoreError) in try ledger.receipt(account: account) } ?? []
        return try Self.appReceipt(receipt: receipt, builder: try builder(), authority: try authority())
    }

    /// The app receipt of the account whose receipt lines these are.
    package static func appReceipt(receipt: [ReceiptEntry], builder: PayloadBuilder, authority: CertificateAuthority)
        throws(StoreError) -> Data
    {
        let lines = receipt.filter { $0.isTransaction && $0.kind != .consumable }
        let receipt = AppReceipt(
            environment: builder.identity.environment,
            appTransactionID: builder.appTransactionID,
            bundleID: builder.identity.bundleID, applicationVersion: PayloadBuilder.applicationVersion,
            originalApplicationVersion: PayloadBuilder.applicationVersion, created: builder.now,
            inApps: lines.map { builder.transaction(line: $0, receipt: receipt) }
        )
        return try receipt.signed(by: authority)
    }
}

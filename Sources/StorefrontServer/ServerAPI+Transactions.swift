// The App Store Server API: Transactions (V3): Get Transaction Info and Get Transaction History (v2,
// and the deprecated v1 that Apple's client still calls by default), signed as S2, and Finish Transaction.
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerAPI {
    /// Get Transaction Info, Get Transaction History v2.
    static let transactionRoutes = APIArea(
        group: "inApps",
        routes: [
            APIRoute(.get, "v1/transactions/:id", kept: true) { api, request, path, identity in
                try api.transactionInfo(path.require("id"), identity: identity)
            },
            APIRoute(.get, "v2/history/:id", kept: true) { api, request, path, identity in
                try api.history(path.require("id"), request: request, identity: identity)
            },
            APIRoute(.get, "v1/history/:id", kept: true) { api, request, path, identity in
                try api.history(path.require("id"), request: request, identity: identity, version: 1)
            },
            APIRoute(.post, "v1/transactions/:id/finish") { api, _, path, _ in
                try api.finishTransaction(path.require("id"))
            },
        ])

    /// A receipt line that is a transaction: a purchase (of any effect) or a renewal.
    static func isTransaction(_ line: ReceiptEntry) -> Bool { line.isTransaction }

    /// The account a transaction id (or original transaction id) belongs to, with its receipt.
    func customer(_ id: String) throws(StoreError) -> (line: ReceiptEntry, receipt: [ReceiptEntry])? {
        guard let line = try server.receiptEntry(transactionID: id), Self.isTransaction(line) else { return nil }
        settle(line.account)
        return (line, try server.receipt(account: line.account))
    }

    /// The customer any transaction id names (Apple's anyTransactionId), with their receipt: a
    /// transaction's or original transaction's id, or their account's app transaction id ("7" and
    /// 15 digits, where a transaction id starts with "2"), the one id a customer who has bought
    /// nothing has.
    func customer(anyID id: String) throws(StoreError) -> (account: String, receipt: [ReceiptEntry])? {
        if let (line, receipt) = try customer(id) { return (line.account, receipt) }
        guard id.count == 16, id.hasPrefix("7"), let account = try server.account(appTransactionID: id) else {
            return nil
        }
        settle(account)
        return (account, try server.receipt(account: account))
    }

    func builder(_ identity: AppIdentity, account: String) throws(StoreError) -> PayloadBuilder {
        PayloadBuilder(
            catalog: catalog, identity: identity, now: clock.now(), account: account,
            appTransactionID: try server.appTransactionID(account: account),
            appAccountTokens: try server.appAccountTokens())
    }

    func signedTransaction(_ line: ReceiptEntry, receipt: [ReceiptEntry], identity: AppIdentity) throws(StoreError)
        -> String
    {
        try signedTransactions([line], receipt: receipt, identity: identity)[0]
    }

    /// A page of one customer's transactions, signed with one builder (the app account tokens read
    /// once, not once a line).
    func signedTransactions(_ lines: [ReceiptEntry], receipt: [ReceiptEntry], identity: AppIdentity) throws(StoreError)
        -> [String]
    {
        guard let account = lines.first?.account else { return [] }
        let builder = try builder(identity, account: account)
        return try lines.map { line throws(StoreError) in
            try authority.sign(builder.transaction(line: line, receipt: receipt))
        }
    }

    static func isTransactionID(_ text: String) -> Bool {
        TransactionID.isAppleShaped(text)
    }

    func transactionInfo(_ id: String, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else {
            return .error(APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let (line, receipt) = try customer(id) else {
            return .error(APIErrorCode.transactionIDNotFound, "no transaction \(id)")
        }
        return .json(
            TransactionInfoResponse(
                signedTransactionInfo: try signedTransaction(line, receipt: receipt, identity: identity)))
    }

    /// Finish Transaction: a server that delivers content tells the App Store it is done. A device
    /// here finishes each transaction as it delivers it (Q3), so there is nothing left to finish:
    /// the id is checked as Apple checks it, and a known one is answered 200 with no body, as often
    /// as it is asked.
    func finishTransaction(_ id: String) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else {
            return .error(APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let line = try server.receiptEntry(transactionID: id), line.isTransaction else {
            return .error(APIErrorCode.transactionIDNotFound, "no transaction \(id)")
        }
        return APIResponse(status: 200, body: Data())
    }

    /// Get Transaction History: the customer's transactions, filtered, 20 a page, `revision` the
    /// next page's token. Version 1 (deprecated) leaves out finished consumables: a consumable is
    /// listed only once it is refunded or revoked, since a device here finishes each one as it
    /// delivers it.
    func history(_ id: String, request: APIRequest, identity: AppIdentity, version: Int = 2) throws(StoreError)
        -> APIResponse
    {
        guard Self.isTransactionID(id) else {
            return .error(APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let (_, receipt) = try customer(anyID: id) else {
            return .error(APIErrorCode.transactionIDNotFound, "no transaction \(id)")
        }
        var lines = receipt.filter(Self.isTransaction)
        // The filters ask what each transaction's signed form says: `revocationDate`, `inAppOwnershipType`.
        let revoked = ReceiptEntry.revocationDates(in: receipt)
        if version == 1 { lines = lines.filter { $0.kind != .consumable || revoked[$0.transactionID] != nil } }
        let start = request.value("startDate")
        let end = request.value("endDate")
        let startMs = start.flatMap { Int64($0) }
        let endMs = end.flatMap { Int64($0) }
        if start != nil, startMs == nil {
            return .error(APIErrorCode.invalidStartDate, "startDate is not milliseconds")
        }
        if end != nil, endMs == nil { return .error(APIErrorCode.invalidEndDate, "endDate is not milliseconds") }
        if let startMs, let endMs, startMs > endMs {
            return .error(APIErrorCode.startDateAfterEndDate, "startDate is after endDate")
        }
        if let startMs { lines = lines.filter { SignedUnits.milliseconds($0.purchaseDate) >= startMs } }
        if let endMs { lines = lines.filter { SignedUnits.milliseconds($0.purchaseDate) < endMs } }
        let products = request.values("productId")
        if !products.isEmpty { lines = lines.filter { products.contains($0.productID) } }
        let types = request.values("productType")
        let kinds: [String: ProductKind] = [
            "AUTO_RENEWABLE": .autoRenewableSubscription, "NON_RENEWABLE": .nonRenewingSubscription,
            "CONSUMABLE": .consumable,
            "NON_CONSUMABLE": .nonConsumable,
        ]
        if let bad = types.first(where: { kinds[$0] == nil }) {
            return .error(APIErrorCode.invalidProductType, "\"\(bad)\" is not a product type")
        }
        if !types.isEmpty { lines = lines.filter { line in types.contains { kinds[$0] == line.kind } } }
        let groups = request.values("subscriptionGroupIdentifier")
        if !groups.isEmpty { lines = lines.filter { groups.contains($0.group ?? "") } }
        if let ownership = request.value("inAppOwnershipType") {
            guard ownership == "PURCHASED" || ownership == "FAMILY_SHARED" else {
                return .error(APIErrorCode.invalidInAppOwnershipType, "\"\(ownership)\" is not an ownership type")
            }
            lines = lines.filter { ($0.event == .familyShare) == (ownership == "FAMILY_SHARED") }
        }
        if let wanted = request.value("revoked")?.lowercased() {
            // Apple's Python client sends "True" and "False".
            guard wanted == "true" || wanted == "false" else {
                return .error(APIErrorCode.invalidRevoked, "revoked must be true or false")
            }
            lines = lines.filter { (revoked[$0.transactionID] != nil) == (wanted == "true") }
        }
        switch request.value("sort") ?? "ASCENDING" {
        case "ASCENDING": break
        case "DESCENDING": lines.reverse()
        case let other: return .error(APIErrorCode.invalidSort, "\"\(other)\" is not ASCENDING or DESCENDING")
        }
        guard let (page, next, hasMore) = Self.page(lines, token: request.value("revision")) else {
            return .error(APIErrorCode.invalidRevision, "the revision is not one this server gave")
        }
        return .json(
            HistoryResponse(
                bundleId: identity.bundleID, environment: identity.environment.rawValue,
                appAppleId: identity.appAppleID,
                signedTransactions: try signedTransactions(page, receipt: receipt, identity: identity), revision: next,
                hasMore: hasMore))
    }

    /// A page of `items` after `token` (an opaque offset), the next token and whether more follow.
    static func page<T>(_ items: [T], token: String?) -> (page: [T], next: String, hasMore: Bool)? {
        var offset = 0
        if let token {
            guard let data = JWS.data(base64URL: token), let text = String(data: data, encoding: .utf8),
                text.hasPrefix("o:"),
                let value = Int(text.dropFirst(2)), value >= 0, value <= items.count
            else { return nil }
            offset = value
        }
        let end = min(items.count, offset + pageSize)
        let next = JWS.base64URL(Data("o:\(end)".utf8))
        return (Array(items[offset..<end]), next, end < items.count)
    }
}

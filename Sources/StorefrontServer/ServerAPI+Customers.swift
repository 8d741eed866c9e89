// The App Store Server API: a customer's app transaction and orders (M3): Get App Transaction Info
// and Look Up Order ID, signed as S2.
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerAPI {
    static let customerRoutes = APIArea(
        group: "inApps/v1",
        routes: [
            APIRoute(.get, "transactions/appTransactions/:id") { api, _, path, identity in
                try api.appTransactionInfo(path.require("id"), identity: identity)
            },
            APIRoute(.get, "lookup/:order") { api, _, path, identity in
                try api.lookUpOrder(path.require("order"), identity: identity)
            },
            APIRoute(.put, "transactions/:id/appAccountToken") { api, request, path, identity in
                try api.setAppAccountToken(path.require("id"), request, identity: identity)
            },
        ])

    /// Set App Account Token (M3): the token of an original transaction and of everything signed
    /// after about its purchase or subscription. A family member's transaction, or one that is not
    /// an original, is refused with Apple's codes.
    func setAppAccountToken(_ id: String, _ request: APIRequest, identity: AppIdentity) throws(StoreError)
        -> APIResponse
    {
        guard Self.isTransactionID(id) else {
            return .error(.invalidOriginalTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let body = request.decodedBody(UpdateAppAccountTokenRequest.self) else {
            return .error(.generalBadRequest, "the body is not a JSON object")
        }
        guard let text = body.appAccountToken.value, let token = UUID(uuidString: text) else {
            return .error(.invalidAppAccountTokenUUID, "appAccountToken must be a UUID")
        }
        guard let (line, receipt) = try customer(id) else {
            return .error(.transactionIDNotFound, "no transaction \(id)")
        }
        guard line.event != .familyShare else {
            return .error(.familyTransactionNotSupported, "\(id) is a family member's transaction")
        }
        let original =
            line.kind == .autoRenewableSubscription
            ? try builder(identity, account: line.account).originalTransaction(of: line, in: receipt) : id
        guard original == id, line.event == .purchase else {
            return .error(.transactionIDIsNotOriginalTransactionID, "\(id) is not an original transaction id")
        }
        try server.setAppAccountToken(token.uuidString.lowercased(), original: id)
        return APIResponse(status: 200, body: Data())
    }

    /// Get App Transaction Info: the signed app transaction of the customer a transaction id (or
    /// original transaction id) belongs to.
    func appTransactionInfo(_ id: String, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else {
            return .error(.invalidTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let (account, receipt) = try customer(anyID: id) else {
            return .error(.appTransactionDoesNotExist, "no customer with transaction \(id)")
        }
        let firstPurchase = receipt.filter(\.isTransaction).map(\.purchaseDate).min()
        let payload = try builder(identity, account: account).appTransaction(
            device: "app-store-server", firstPurchase: firstPurchase)
        return .json(AppTransactionInfoResponse(signedAppTransactionInfo: try authority.sign(payload)))
    }

    /// Look Up Order ID: the purchase an order id names (status 0), or status 1 when it names none,
    /// as Apple answers an invalid order id (200, not an error).
    func lookUpOrder(_ order: String, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard let id = SignedUnits.transactionID(orderID: order), let (line, receipt) = try customer(id),
            line.event != .familyShare
        else {
            return .json(OrderLookupResponse(status: 1, signedTransactions: []))
        }
        return .json(
            OrderLookupResponse(
                status: 0, signedTransactions: [try signedTransaction(line, receipt: receipt, identity: identity)]))
    }
}

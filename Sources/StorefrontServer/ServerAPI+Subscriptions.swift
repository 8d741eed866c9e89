// The App Store Server API: Subscription statuses and refund history (V3).
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerAPI {
    /// Get All Subscription Statuses, Get Refund History.
    static let subscriptionRoutes = APIArea(
        group: "inApps",
        routes: [
            APIRoute(.get, "v1/subscriptions/:id", kept: true) { api, request, path, identity in
                try api.statuses(path.require("id"), request: request, identity: identity)
            },
            APIRoute(.get, "v2/refund/lookup/:id", kept: true) { api, request, path, identity in
                try api.refunds(path.require("id"), request: request, identity: identity)
            },
        ])

    func statuses(_ id: String, request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else {
            return .error(APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let (account, receipt) = try customer(anyID: id) else {
            return .error(APIErrorCode.transactionIDNotFound, "no transaction \(id)")
        }
        let wanted = request.values("status")
        guard wanted.allSatisfy({ Int($0).map { (1...5).contains($0) } ?? false }) else {
            return .error(APIErrorCode.invalidStatus, "status must be 1 to 5")
        }
        let now = clock.now()
        // Renewal info says the price a plan renews at: the one the developer set (O6).
        let builder = PayloadBuilder(
            catalog: try catalog.priced(by: server), identity: identity, now: now, account: account,
            appTransactionID: try server.appTransactionID(account: account),
            appAccountTokens: try server.appAccountTokens())
        var data: [StatusResponse.SubscriptionGroupIdentifierItem] = []
        for (group, plan, renewalInfo) in builder.renewals(
            try server.plans(account: account), catalog: catalog, receipt: receipt)
        {
            let status = PayloadBuilder.status(plan)
            guard wanted.isEmpty || wanted.contains(String(status)) else { continue }
            var item = StatusResponse.LastTransactionsItem(
                status: status, originalTransactionId: plan.originalTransactionID,
                signedRenewalInfo: try authority.sign(renewalInfo))
            if let current = receipt.first(where: { $0.transactionID == plan.transactionID }) {
                item.signedTransactionInfo = try authority.sign(builder.transaction(line: current, receipt: receipt))
            }
            data.append(.init(subscriptionGroupIdentifier: group, lastTransactions: [item]))
        }
        return .json(
            StatusResponse(
                bundleId: identity.bundleID, environment: identity.environment.rawValue,
                appAppleId: identity.appAppleID,
                data: data))
    }

    func refunds(_ id: String, request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else {
            return .error(APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id")
        }
        guard let (_, receipt) = try customer(anyID: id) else {
            return .error(APIErrorCode.transactionIDNotFound, "no transaction \(id)")
        }
        // Refunds the App Store still stands by: a reversed one (REFUND_REVERSED) is not listed.
        let revoked = ReceiptEntry.revoked(in: receipt)
        let refunded = receipt.filter { revoked.contains($0.transactionID) }
        guard let (page, next, hasMore) = Self.page(refunded, token: request.value("revision")) else {
            return .error(APIErrorCode.invalidRevision, "the revision is not one this server gave")
        }
        return .json(
            RefundHistoryResponse(
                signedTransactions: try signedTransactions(page, receipt: receipt, identity: identity), revision: next,
                hasMore: hasMore))
    }
}

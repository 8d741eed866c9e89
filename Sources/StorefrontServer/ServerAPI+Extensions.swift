// The App Store Server API: Renewal-date extensions (V3): one subscription, and every active subscriber of a product.
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerAPI {
    /// Extend a Subscription Renewal Date, Extend Renewal Dates for All Active Subscribers, and its status.
    static let extensionRoutes = APIArea(
        group: "inApps/v1/subscriptions/extend",
        routes: [
            APIRoute(.post, "mass") { api, request, _, identity in try api.massExtend(request, identity: identity) },
            APIRoute(.put, ":id") { api, request, path, _ in try api.extend(path.require("id"), request) },
            APIRoute(.get, "mass/:product/:request") { api, _, path, _ in
                try api.massStatus(productID: path.require("product"), requestIdentifier: path.require("request"))
            },
        ])

    /// The fields both extension requests share, or the error that refuses them.
    struct ExtensionTerms {
        var days: Int
        var reason: Int
        var requestIdentifier: String
    }

    /// The body of an extension request and its terms, or the refusal.
    static func extensionRequest(_ request: APIRequest) -> Result<
        (ExtendRenewalDateRequest, ExtensionTerms), APIResponse
    > {
        guard let body = request.decodedBody(ExtendRenewalDateRequest.self) else {
            return .failure(.error(APIErrorCode.generalBadRequest, "the body is not a JSON object"))
        }
        guard let days = body.extendByDays.value, (1...90).contains(days) else {
            return .failure(
                .error(APIErrorCode.invalidExtendByDays, "extendByDays must be a whole number from 1 to 90"))
        }
        guard let reason = body.extendReasonCode.value, (0...3).contains(reason) else {
            return .failure(
                .error(APIErrorCode.invalidExtendReasonCode, "extendReasonCode must be a whole number from 0 to 3"))
        }
        guard let identifier = body.requestIdentifier.value, !identifier.isEmpty, identifier.count <= 128 else {
            return .failure(
                .error(APIErrorCode.invalidRequestIdentifier, "requestIdentifier must be 1 to 128 characters"))
        }
        return .success((body, ExtensionTerms(days: days, reason: reason, requestIdentifier: identifier)))
    }

    /// How an extension went.
    enum Extension {
        case extended(PlanState, Date)
        /// Not active, or in billing retry.
        case ineligible
        /// Two extensions in the last 365 days already, as Apple allows at most.
        case maximumReached
    }

    /// Apple's limit: two extensions of a subscription within 365 days.
    static let extensionsPerYear = 2

    /// Moves the renewal date of `account`'s plan started by `original`. A repeat of the same
    /// request identifier adds nothing (its line's id comes from it) and answers as the first did.
    func extendPlan(account: String, original: String, terms: ExtensionTerms) throws(StoreError) -> Extension {
        settle(account)
        let now = clock.now()
        let id =
            "9" + String(TransactionID.make(SignedUnits.hash("\(terms.requestIdentifier)/\(original)")).dropFirst())
        if let done = try server.receiptEntry(transactionID: id),
            let state = try server.plans(account: account)[done.group ?? ""]
        {
            return .extended(state, done.expiresDate ?? state.expiresDate)
        }
        var result = Extension.ineligible
        do {
            try server.updatePlans(account: account) { plans, receipt in
                result = .ineligible
                guard let state = plans.values.first(where: { $0.originalTransactionID == original }),
                    state.hasAccess(at: now),
                    state.billingFailedAt == nil
                else { return [] }
                let yearAgo = now.addingTimeInterval(-365 * 86_400)
                let recent = try receipt().filter {
                    $0.event == .extend && $0.reference == original && $0.purchaseDate > yearAgo
                }
                guard recent.count < Self.extensionsPerYear else {
                    result = .maximumReached
                    return []
                }
                let date = state.expiresDate.addingTimeInterval(TimeInterval(terms.days * 86_400))
                var line = ReceiptEntry(
                    transactionID: id, account: account, productID: state.productID, kind: .autoRenewableSubscription,
                    purchaseDate: now, device: "app-store-server", event: .extend, group: state.group,
                    expiresDate: date,
                    reference: state.originalTransactionID
                )
                line.note = "extended \(terms.days) days (reason \(terms.reason), request \(terms.requestIdentifier))"
                result = .extended(state, date)
                return [line]
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(path: server.location, reason: "\(error)")
        }
        return result
    }

    /// Extend a Subscription Renewal Date (RENEWAL_EXTENDED follows).
    func extend(_ original: String, _ request: APIRequest) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(original) else {
            return .error(APIErrorCode.invalidOriginalTransactionID, "\"\(original)\" is not a transaction id")
        }
        let terms: ExtensionTerms
        switch Self.extensionRequest(request) {
        case .success(let value): terms = value.1
        case .failure(let refusal): return refusal
        }
        guard let line = try server.receiptEntry(transactionID: original), line.kind == .autoRenewableSubscription,
            try server.plans(account: line.account).values.contains(where: { $0.originalTransactionID == original })
        else { return .error(APIErrorCode.originalTransactionIDNotFound, "no plan started by \(original)") }
        let state: PlanState
        let date: Date
        switch try extendPlan(account: line.account, original: original, terms: terms) {
        case .extended(let extended, let until): (state, date) = (extended, until)
        case .ineligible:
            return .error(
                APIErrorCode.subscriptionExtensionIneligible, "the subscription is not active, or is in billing retry")
        case .maximumReached:
            return .error(
                APIErrorCode.subscriptionMaxExtension,
                "the subscription was extended twice in the last 365 days already")
        }
        deliver()
        return .json(
            ExtendRenewalDateResponse(
                originalTransactionId: original,
                webOrderLineItemId: SignedUnits.webOrderLineItemID(state.transactionID),
                success: true, effectiveDate: SignedUnits.milliseconds(date)))
    }
}

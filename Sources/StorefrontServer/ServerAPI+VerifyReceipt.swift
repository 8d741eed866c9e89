// verifyReceipt (V10): the legacy receipt validation a backend like RW Selfies' SelfieService
// still calls. `POST /verifyReceipt` answers for the store's own environment; Apple's two hosts
// are the paths `/production/verifyReceipt` and `/sandbox/verifyReceipt`, each refusing the
// other environment's receipts (21007, 21008) so that a backend's "production, then sandbox" is
// tested. Every answer is HTTP 200 with a `status`, as Apple's.
import Foundation
import Hummingbird
import StoreCore

/// Where a receipt is sent, and which receipts that place validates.
enum ReceiptHost: String, CaseIterable {
    case store = "verifyReceipt"
    case production = "production/verifyReceipt"
    case sandbox = "sandbox/verifyReceipt"
}

/// verifyReceipt's statuses (Apple's `status`), those this server answers.
enum ReceiptStatus: Int {
    case valid = 0
    /// A GET, or a body that is not a JSON object.
    case unreadable = 21000
    /// `receipt-data` missing, or not a receipt.
    case malformed = 21002
    /// A receipt this store did not sign.
    case unauthenticated = 21003
    /// A wrong shared secret for a receipt with auto-renewable subscriptions.
    case wrongSecret = 21004
    case unavailable = 21005
    /// A sandbox receipt sent to production.
    case sandboxReceipt = 21007
    /// A production receipt sent to the sandbox.
    case productionReceipt = 21008
    case dataAccess = 21009
    /// The receipt's customer has no account here.
    case noAccount = 21010

    var response: APIResponse { .json(["status": rawValue]) }
}

extension ServerApplication {
    /// verifyReceipt at its three paths: a POST validates, a GET is 21000.
    static func addReceiptValidation(_ api: ServerAPI, to router: Router<CallerContext>) {
        for host in ReceiptHost.allCases {
            router.post(RouterPath(host.rawValue)) { request, _ -> Response in
                let body = try await request.body.collect(upTo: ServerAPI.maximumBody)
                return await api.verifyReceipt(Data(buffer: body), host: host).response
            }
            router.get(RouterPath(host.rawValue)) { _, _ -> Response in ReceiptStatus.unreadable.response.response }
        }
    }
}

extension ServerAPI {
    /// The answer to a receipt posted to `host`.
    func verifyReceipt(_ body: Data, host: ReceiptHost) async -> APIResponse {
        guard let request = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return ReceiptStatus.unreadable.response
        }
        do {
            if let error = try server.simulatedErrors()?[.verifyReceipt], let status = Int(error.name) {
                return .json(["status": status])
            }
            guard let text = request["receipt-data"] as? String,
                let der = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
            else {
                return ReceiptStatus.malformed.response
            }
            let contents: AppReceipt.Contents
            switch await AppReceipt.check(der, root: authority.rootDER, at: clock.now()) {
            case .malformed: return ReceiptStatus.malformed.response
            case .unauthenticated: return ReceiptStatus.unauthenticated.response
            case .valid(let read): contents = read
            }
            let identity = try identity()
            let isProductionReceipt = contents.environment == .production
            let isProductionHost = host == .production || host == .store && identity.environment == .production
            if isProductionHost && !isProductionReceipt { return ReceiptStatus.sandboxReceipt.response }
            if !isProductionHost && isProductionReceipt { return ReceiptStatus.productionReceipt.response }
            let password = request["password"] as? String
            let onlyNewest =
                request["exclude-old-transactions"] as? Bool
                ?? (request["exclude-old-transactions"] as? String == "true")
            return try validation(contents, identity: identity, password: password, onlyNewest: onlyNewest)
        } catch {
            logger.error("verifyReceipt: \(error)")
            return ReceiptStatus.dataAccess.response
        }
    }

    /// Status 0: the receipt as posted (`receipt`, its `in_app` as the store has them now), and for
    /// a customer with auto-renewable subscriptions who sent the shared secret, the latest of
    /// everything (`latest_receipt_info` newest first, `latest_receipt`, `pending_renewal_info`).
    private func validation(
        _ contents: AppReceipt.Contents, identity: AppIdentity, password: String?, onlyNewest: Bool
    ) throws(StoreError) -> APIResponse {
        var account: String?
        if let id = contents.appTransactionID {
            guard let found = try server.account(appTransactionID: id) else { return ReceiptStatus.noAccount.response }
            settle(found)
            account = found
        }
        let receipt = try account.map { name throws(StoreError) in try server.receipt(account: name) } ?? []
        let builder = try builder(identity, account: account ?? "")
        let lines = receipt.filter { $0.isTransaction && $0.kind != .consumable }
        let payloads = lines.map { builder.transaction(line: $0, receipt: receipt) }
        let hasPlans = lines.contains { $0.kind == .autoRenewableSubscription }
        if hasPlans, let password, !passwordAccepted(password) { return ReceiptStatus.wrongSecret.response }
        let fields = LegacyReceiptFields()
        let now = clock.now()
        var app: [String: Any] = [
            "receipt_type": contents.environment == .production ? "Production" : "ProductionSandbox",
            "adam_id": identity.appAppleID ?? 0, "app_item_id": identity.appAppleID ?? 0, "download_id": 0,
            "version_external_identifier": 0,
            "bundle_id": contents.bundleID ?? "", "application_version": contents.applicationVersion ?? "",
            "original_application_version": contents.originalApplicationVersion ?? "",
        ]
        let created = contents.created.map(SignedData.milliseconds)
        fields.date("receipt_creation_date", created, into: &app)
        fields.date("request_date", SignedData.milliseconds(now), into: &app)
        fields.date(
            "original_purchase_date", receipt.map(\.purchaseDate).min().map(SignedData.milliseconds) ?? created,
            into: &app)
        let byID = Dictionary(payloads.map { ($0.transactionId ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        app["in_app"] = contents.transactionIDs.compactMap { byID[$0] }.map(fields.transaction)
        var body: [String: Any] = [
            "status": 0, "environment": contents.environment == .production ? "Production" : "Sandbox", "receipt": app,
        ]
        guard hasPlans, password != nil, let account else { return .json(body) }
        // Newest first; of two at the same instant, the one recorded later.
        var latest = payloads.enumerated().sorted {
            ($0.element.purchaseDate ?? 0, $0.offset) > ($1.element.purchaseDate ?? 0, $1.offset)
        }.map(\.element)
        if onlyNewest {
            var seen = Set<String>()
            latest = latest.filter { seen.insert($0.originalTransactionId ?? $0.transactionId ?? "").inserted }
        }
        body["latest_receipt_info"] = latest.map(fields.transaction)
        let renewals = try renewals(
            account: account, receipt: receipt, builder: try pricedBuilder(identity, account: account, now: now),
            now: now)
        body["pending_renewal_info"] = renewals.map { fields.renewal($0.info) }
        body["latest_receipt"] = try SignedData.appReceipt(receipt: receipt, builder: builder, authority: authority)
            .base64EncodedString()
        return .json(body)
    }

    /// A builder whose renewal info says the price a plan renews at: the one the developer set (O6).
    func pricedBuilder(_ identity: AppIdentity, account: String, now: Date) throws(StoreError) -> PayloadBuilder {
        PayloadBuilder(
            catalog: try catalog.priced(by: server), identity: identity, now: now, account: account,
            appAccountTokens: try server.appAccountTokens())
    }

    /// Each of the account's plans by subscription group, with its renewal info as `builder`
    /// signs it.
    func renewals(
        account: String, receipt: [ReceiptEntry], builder: PayloadBuilder, now: Date
    ) throws(StoreError) -> [(group: String, plan: PlanStatus, info: RenewalInfoPayload)] {
        let planLines = receipt.filter { $0.kind == .autoRenewableSubscription }
        return try server.plans(account: account).sorted(by: { $0.key < $1.key }).map { group, state in
            let plan = PlanStatus(state, catalog: catalog, now: now)
            return (group, plan, builder.renewalInfo(plan, planLines: planLines))
        }
    }
}

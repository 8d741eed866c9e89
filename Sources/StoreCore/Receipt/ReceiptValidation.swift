// verifyReceipt (V10) as the App Store answers it, over the store's own records: what `storefront
// serve` answers at its three paths, and what a scenario's SelfieService is told. A request is read
// (`prepare`), its receipt checked (`AppReceipt.check`, the one step that waits for the CMS
// verifier), and the answer made from the receipt's customer as the records have them now
// (`answer`). Every transaction is made from the payload Get Transaction Info signs for its id.
import Foundation
import StoreModel

/// Where a receipt is sent, and which receipts that place validates: `/verifyReceipt` the store's
/// own environment's, and Apple's two hosts as two paths.
package enum ReceiptHost: String, CaseIterable, Sendable {
    case store = "verifyReceipt"
    case production = "production/verifyReceipt"
    case sandbox = "sandbox/verifyReceipt"
}

/// verifyReceipt's statuses (Apple's `status`), those this store answers.
package enum ReceiptStatus: Int, Sendable {
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

    package var answer: ReceiptValidation.Answer { ["status": rawValue] }
}

package struct ReceiptValidation {
    /// verifyReceipt's JSON answer.
    package typealias Answer = [String: Any]

    /// An answer's body as verifyReceipt sends it: compact JSON, keys sorted.
    package static func body(_ answer: Answer) -> Data { Data(CompactJSON.encode(answer)) }

    /// A request read: the receipt to check and what was asked with it.
    package struct Request {
        package var receipt: Data
        package var password: String?
        package var onlyNewest: Bool
    }

    let server: any AccountServer
    let catalog: Catalog
    let authority: CertificateAuthority
    let clock: any StoreClock
    /// Writes the renewals the clock has passed for an account before it is read.
    let settle: (String) -> Void
    /// Whether a `password` is one of the app's shared secrets.
    let passwordAccepted: (String) -> Bool

    package init(
        server: any AccountServer, catalog: Catalog, authority: CertificateAuthority, clock: any StoreClock,
        settle: @escaping (String) -> Void = { _ in }, passwordAccepted: @escaping (String) -> Bool
    ) {
        self.server = server
        self.catalog = catalog
        self.authority = authority
        self.clock = clock
        self.settle = settle
        self.passwordAccepted = passwordAccepted
    }

    /// The request in `body`, or the status that answers it before any receipt is checked.
    package func prepare(_ body: Data) throws(StoreError) -> Result<Request, ReceiptStatusAnswer> {
        guard let request = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return .failure(ReceiptStatusAnswer(.unreadable))
        }
        if let error = try server.simulatedErrors()?[.verifyReceipt], let status = Int(error.name) {
            return .failure(ReceiptStatusAnswer(answer: ["status": status]))
        }
        guard let text = request["receipt-data"] as? String,
            let der = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
        else { return .failure(ReceiptStatusAnswer(.malformed)) }
        let newest = request["exclude-old-transactions"]
        return .success(
            Request(
                receipt: der, password: request["password"] as? String,
                onlyNewest: newest as? Bool ?? (newest as? String == "true")))
    }

    /// The time a receipt's signature is checked at, and the root it must chain to.
    package var checkTime: Date { clock.now() }
    package var root: Data { authority.rootDER }

    /// The answer to `request` posted to `host`, its receipt checked as `check` says.
    package func answer(_ request: Request, check: AppReceipt.Check, host: ReceiptHost) throws(StoreError) -> Answer {
        let contents: AppReceipt.Contents
        switch check {
        case .malformed: return ReceiptStatus.malformed.answer
        case .unauthenticated: return ReceiptStatus.unauthenticated.answer
        case .valid(let read): contents = read
        }
        let identity = try AppIdentity.current(server: server, catalog: catalog)
        let isProductionReceipt = contents.environment == .production
        let isProductionHost = host == .production || host == .store && identity.environment == .production
        if isProductionHost && !isProductionReceipt { return ReceiptStatus.sandboxReceipt.answer }
        if !isProductionHost && isProductionReceipt { return ReceiptStatus.productionReceipt.answer }
        return try validation(contents, identity: identity, password: request.password, onlyNewest: request.onlyNewest)
    }

    /// Status 0: the receipt as posted (`receipt`, its `in_app` as the store has them now), and for
    /// a customer with auto-renewable subscriptions who sent the shared secret, the latest of
    /// everything (`latest_receipt_info` newest first, `latest_receipt`, `pending_renewal_info`).
    private func validation(
        _ contents: AppReceipt.Contents, identity: AppIdentity, password: String?, onlyNewest: Bool
    ) throws(StoreError) -> Answer {
        var account: String?
        if let id = contents.appTransactionID {
            guard let found = try server.account(appTransactionID: id) else { return ReceiptStatus.noAccount.answer }
            settle(found)
            account = found
        }
        let receipt = try account.map { name throws(StoreError) in try server.receipt(account: name) } ?? []
        let now = clock.now()
        let builder = PayloadBuilder(
            catalog: catalog, identity: identity, now: now, account: account ?? "",
            appTransactionID: try account.flatMap { name throws(StoreError) in
                try server.appTransactionID(account: name)
            },
            appAccountTokens: try server.appAccountTokens())
        let lines = receipt.filter { $0.isTransaction && $0.kind != .consumable }
        let payloads = lines.map { builder.transaction(line: $0, receipt: receipt) }
        let hasPlans = lines.contains { $0.kind == .autoRenewableSubscription }
        if hasPlans, let password, !passwordAccepted(password) { return ReceiptStatus.wrongSecret.answer }
        let fields = LegacyReceiptFields()
        var app: [String: Any] = [
            "receipt_type": contents.environment == .production ? "Production" : "ProductionSandbox",
            "adam_id": identity.appAppleID ?? 0, "app_item_id": identity.appAppleID ?? 0, "download_id": 0,
            "version_external_identifier": 0, "bundle_id": contents.bundleID ?? "",
            "application_version": contents.applicationVersion ?? "",
            "original_application_version": contents.originalApplicationVersion ?? "",
        ]
        let created = contents.created.map(SignedUnits.milliseconds)
        fields.date("receipt_creation_date", created, into: &app)
        fields.date("request_date", SignedUnits.milliseconds(now), into: &app)
        let firstPurchase = receipt.map(\.purchaseDate).min().map(SignedUnits.milliseconds)
        fields.date("original_purchase_date", firstPurchase ?? created, into: &app)
        let byID = Dictionary(payloads.map { ($0.transactionId ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        app["in_app"] = contents.transactionIDs.compactMap { byID[$0] }.map(fields.transaction)
        var body: Answer = [
            "status": 0, "environment": contents.environment == .production ? "Production" : "Sandbox", "receipt": app,
        ]
        guard hasPlans, password != nil, let account else { return body }
        // Newest first; of two at the same instant, the one recorded later.
        var latest = payloads.enumerated()
            .sorted { ($0.element.purchaseDate ?? 0, $0.offset) > ($1.element.purchaseDate ?? 0, $1.offset) }
            .map(\.element)
        if onlyNewest {
            var seen = Set<String>()
            latest = latest.filter { seen.insert($0.originalTransactionId ?? $0.transactionId ?? "").inserted }
        }
        body["latest_receipt_info"] = latest.map(fields.transaction)
        let priced = PayloadBuilder(
            catalog: try catalog.priced(by: server), identity: identity, now: now, account: account,
            appTransactionID: builder.appTransactionID, appAccountTokens: builder.appAccountTokens)
        let renewals = priced.renewals(try server.plans(account: account), catalog: catalog, receipt: receipt)
        body["pending_renewal_info"] = renewals.map { fields.renewal($0.info) }
        body["latest_receipt"] = try SignedData.appReceipt(receipt: receipt, builder: builder, authority: authority)
            .base64EncodedString()
        return body
    }
}

/// A status that answers a request before its receipt is checked.
package struct ReceiptStatusAnswer: Error {
    package let answer: ReceiptValidation.Answer

    init(_ status: ReceiptStatus) { answer = status.answer }
    init(answer: ReceiptValidation.Answer) { self.answer = answer }
}

extension PayloadBuilder {
    /// Each of `plans` by subscription group, its status at the builder's time (by `catalog`) and
    /// its renewal info as this builder signs it.
    package func renewals(
        _ plans: [String: PlanState], catalog: Catalog, receipt: [ReceiptEntry]
    ) -> [(group: String, plan: PlanStatus, info: RenewalInfoPayload)] {
        let planLines = receipt.filter { $0.kind == .autoRenewableSubscription }
        return plans.sorted { $0.key < $1.key }.map { group, state in
            let plan = PlanStatus(state, catalog: catalog, now: now)
            return (group, plan, renewalInfo(plan, planLines: planLines))
        }
    }
}

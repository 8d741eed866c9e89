// The App Store Server API: Send Consumption Information (O7), versions 1 and 2.
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerAPI {
    /// Send Consumption Information, versions 1 and 2.
    static let consumptionRoutes = APIArea(
        group: "inApps",
        routes: [
            APIRoute(.put, "v1/transactions/consumption/:id") { api, request, path, _ in
                try api.consumption(path.require("id"), request, version: 1)
            },
            APIRoute(.put, "v2/transactions/consumption/:id") { api, request, path, _ in
                try api.consumption(path.require("id"), request, version: 2)
            },
        ])

    /// The developer's answer to a CONSUMPTION_REQUEST: checked field by field with Apple's codes,
    /// kept on the receipt beside the refund request (202, no body). Version 1 takes consumables
    /// only, with numbered fields; version 2 any purchase, with named ones.
    func consumption(_ id: String, _ request: APIRequest, version: Int) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else {
            return .error(APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id")
        }
        let sent: any Encodable
        if version == 1 {
            guard let body = request.decodedBody(ConsumptionRequestV1.self) else {
                return .error(APIErrorCode.generalBadRequest, "the body is not a JSON object")
            }
            if let refusal = Self.check(body) { return refusal }
            sent = body
        } else {
            guard let body = request.decodedBody(ConsumptionRequest.self) else {
                return .error(APIErrorCode.generalBadRequest, "the body is not a JSON object")
            }
            if let refusal = Self.check(body) { return refusal }
            sent = body
        }
        guard let purchase = try server.receiptEntry(transactionID: id), purchase.isTransaction else {
            return .error(APIErrorCode.transactionIDNotFound, "no transaction \(id)")
        }
        if version == 1, purchase.kind != .consumable {
            return .error(APIErrorCode.invalidTransactionNotConsumable, "\(id) is not a consumable (use version 2)")
        }
        let receipt = try server.receipt(account: purchase.account)
        guard let request = RefundRequest.current(of: id, in: RefundRequest.all(in: receipt)), request.state == .pending
        else {
            return .error(
                APIErrorCode.generalBadRequest, "no refund request of \(id) is waiting for consumption information")
        }
        // The line names the request it answers (its `reference`); the JSON as sent is its note.
        let line = ReceiptEntry(
            transactionID: TransactionID.make(UInt64.random(in: 0...UInt64.max)), account: purchase.account,
            productID: purchase.productID,
            kind: purchase.kind, purchaseDate: clock.now(), device: "app-store-server", event: .consumptionInfo,
            group: purchase.group, reference: request.requestID,
            note: ReceiptNote.consumptionInfo(json: Self.noteJSON(sent)).words
        )
        try server.add(line)
        deliver()
        return APIResponse(status: 202, body: Data())
    }

    /// The answer as sent, keys sorted, for the receipt line's note.
    static func noteJSON(_ sent: any Encodable) -> String {
        String(decoding: PayloadFields.compactJSON(sent), as: UTF8.self)
    }

    /// Apple's checks of the fields both versions share; nil when they pass.
    static func checkConsent(_ consented: BodyField<Bool>, sample: BodyField<Bool>) -> APIResponse? {
        guard consented.value == true else {
            return .error(APIErrorCode.invalidCustomerConsented, "customerConsented must be true")
        }
        guard sample.value != nil else {
            return .error(APIErrorCode.invalidSampleContentProvided, "sampleContentProvided must be true or false")
        }
        return nil
    }

    /// Apple's checks of a version 2 body; nil when it passes.
    static func check(_ body: ConsumptionRequest) -> APIResponse? {
        if let refusal = checkConsent(body.customerConsented, sample: body.sampleContentProvided) { return refusal }
        let delivery = [
            "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
            "UNDELIVERED_OTHER",
        ]
        guard let status = body.deliveryStatus.value, delivery.contains(status) else {
            return .error(
                APIErrorCode.invalidDeliveryStatus, "deliveryStatus must be one of \(delivery.joined(separator: ", "))")
        }
        if body.consumptionPercentage.isSent, !(0...100_000).contains(body.consumptionPercentage.value ?? -1) {
            return .error(
                APIErrorCode.generalBadRequest,
                "consumptionPercentage must be a whole number from 0 to 100000 (milliunits)")
        }
        if body.refundPreference.isSent,
            !["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(body.refundPreference.value ?? "")
        {
            return .error(
                APIErrorCode.generalBadRequest, "refundPreference must be DECLINE, GRANT_FULL or GRANT_PRORATED")
        }
        return nil
    }

    /// Apple's checks of a version 1 body; nil when it passes.
    static func check(_ body: ConsumptionRequestV1) -> APIResponse? {
        if let refusal = checkConsent(body.customerConsented, sample: body.sampleContentProvided) { return refusal }
        let numbered: [(String, BodyField<Int>, ClosedRange<Int>, APIErrorCode)] = [
            ("consumptionStatus", body.consumptionStatus, 0...3, APIErrorCode.invalidConsumptionStatus),
            ("platform", body.platform, 0...2, APIErrorCode.invalidPlatform),
            ("deliveryStatus", body.deliveryStatus, 0...5, APIErrorCode.invalidDeliveryStatus),
            ("accountTenure", body.accountTenure, 0...7, APIErrorCode.invalidAccountTenure),
            ("playTime", body.playTime, 0...7, APIErrorCode.invalidPlayTime),
            (
                "lifetimeDollarsRefunded", body.lifetimeDollarsRefunded, 0...7,
                APIErrorCode.invalidLifetimeDollarsRefunded
            ),
            (
                "lifetimeDollarsPurchased", body.lifetimeDollarsPurchased, 0...7,
                APIErrorCode.invalidLifetimeDollarsPurchased
            ),
            ("userStatus", body.userStatus, 0...4, APIErrorCode.invalidUserStatus),
        ]
        for (key, field, range, code) in numbered where !range.contains(field.value ?? -1) {
            return .error(code, "\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        if body.appAccountToken.isSent {
            let token = body.appAccountToken.value
            guard token == "" || token.flatMap(UUID.init(uuidString:)) != nil else {
                return .error(APIErrorCode.invalidAppAccountToken, "appAccountToken must be a UUID or empty")
            }
        }
        return nil
    }

    /// Extend Renewal Dates for All Active Subscribers of a product; a RENEWAL_EXTENSION SUMMARY
    /// notification says how it went.
    func massExtend(_ request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        let body: ExtendRenewalDateRequest
        let terms: ExtensionTerms
        switch Self.extensionRequest(request) {
        case .success(let value): (body, terms) = value
        case .failure(let refusal): return refusal
        }
        guard let productID = body.productId.value, catalog.product(productID)?.autoRenew != nil else {
            return .error(APIErrorCode.generalBadRequest, "productId must be an auto-renewable product of the catalog")
        }
        if case .wrongType = body.storefrontCountryCodes {
            return .error(APIErrorCode.generalBadRequest, "storefrontCountryCodes must be a list of storefront codes")
        }
        var succeeded = 0
        var failed = 0
        var failures: [ServerNotification] = []
        for account in try server.accountsWithPlans() {
            settle(account)
            for state in try server.plans(account: account).values
            where state.productID == productID && state.endedAt == nil {
                if case .extended = try extendPlan(
                    account: account, original: state.originalTransactionID, terms: terms)
                {
                    succeeded += 1
                } else {
                    // Apple tells each subscriber's extension that failed: RENEWAL_EXTENSION (FAILURE).
                    failed += 1
                    failures.append(
                        ServerNotification(
                            key: "mass:\(terms.requestIdentifier):\(state.originalTransactionID)", account: account,
                            type: "RENEWAL_EXTENSION",
                            subtype: "FAILURE", transactionID: state.transactionID, group: state.group,
                            createdAt: clock.now()
                        ))
                }
            }
        }
        let summary = MassExtensionSummary(
            requestIdentifier: terms.requestIdentifier, productId: productID, succeededCount: succeeded,
            failedCount: failed, storefrontCountryCodes: body.storefrontCountryCodes.value ?? [],
            completeDate: SignedUnits.milliseconds(clock.now()))
        var notification = ServerNotification(
            key: "mass:\(terms.requestIdentifier)", account: "", type: "RENEWAL_EXTENSION", subtype: "SUMMARY",
            createdAt: clock.now()
        )
        notification.summary = summary.stored
        try server.enqueue(failures + [notification])
        deliver()
        return .json(MassExtendRenewalDateResponse(requestIdentifier: terms.requestIdentifier))
    }

    /// Get Status of Subscription Renewal Date Extensions: read back from the SUMMARY notification.
    func massStatus(productID: String, requestIdentifier: String) throws(StoreError) -> APIResponse {
        guard
            let notification = try server.notifications(account: nil).first(where: {
                $0.key == "mass:\(requestIdentifier)"
            }),
            let text = notification.summary,
            let summary = try? JSONDecoder().decode(MassExtensionSummary.self, from: Data(text.utf8)),
            summary.productId == productID
        else {
            return .error(APIErrorCode.statusRequestNotFound, "no mass extension \(requestIdentifier) for \(productID)")
        }
        return .json(
            MassExtendRenewalDateStatusResponse(
                requestIdentifier: requestIdentifier, complete: true, completeDate: summary.completeDate,
                succeededCount: summary.succeededCount, failedCount: summary.failedCount))
    }
}

/// A mass extension's outcome as the SUMMARY notification keeps it: Apple's summary fields, and
/// when it completed (for Get Status of Subscription Renewal Date Extensions).
struct MassExtensionSummary: Codable, Sendable {
    var requestIdentifier: String
    var productId: String
    var succeededCount: Int
    var failedCount: Int
    var storefrontCountryCodes: [String]
    var completeDate: Int64

    /// Keys sorted, as the summary is stored.
    var stored: String { String(decoding: PayloadFields.compactJSON(self), as: UTF8.self) }
}

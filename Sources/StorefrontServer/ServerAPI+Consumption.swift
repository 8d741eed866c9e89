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
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
            return .error(APIErrorCode.generalBadRequest, "the body is not a JSON object")
        }
        if let refusal = Self.checkConsumption(object, version: version) { return refusal }
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
            note: ReceiptNote.consumptionInfo(json: String(decoding: CompactJSON.encode(object), as: UTF8.self)).words
        )
        try server.add(line)
        deliver()
        return APIResponse(status: 202, body: Data())
    }

    /// Apple's checks of a consumption request body; nil when it passes.
    static func checkConsumption(_ object: [String: Any], version: Int) -> APIResponse? {
        func isBool(_ key: String) -> Bool { object[key].map(CompactJSON.isBoolean) ?? false }
        func integer(_ key: String, in range: ClosedRange<Int>) -> Bool {
            guard let number = object[key] as? NSNumber, !CompactJSON.isBoolean(object[key]!) else { return false }
            return range.contains(number.intValue) && Double(number.intValue) == number.doubleValue
        }
        guard isBool("customerConsented"), object["customerConsented"] as? Bool == true else {
            return .error(APIErrorCode.invalidCustomerConsented, "customerConsented must be true")
        }
        guard isBool("sampleContentProvided") else {
            return .error(APIErrorCode.invalidSampleContentProvided, "sampleContentProvided must be true or false")
        }
        if version == 2 {
            let delivery = [
                "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
                "UNDELIVERED_OTHER",
            ]
            guard let status = object["deliveryStatus"] as? String, delivery.contains(status) else {
                return .error(
                    APIErrorCode.invalidDeliveryStatus,
                    "deliveryStatus must be one of \(delivery.joined(separator: ", "))")
            }
            if let percentage = object["consumptionPercentage"], !integer("consumptionPercentage", in: 0...100_000) {
                return .error(
                    APIErrorCode.generalBadRequest,
                    "consumptionPercentage \(percentage) must be 0 to 100000 (milliunits)")
            }
            if let preference = object["refundPreference"] as? String,
                !["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(preference)
            {
                return .error(
                    APIErrorCode.generalBadRequest, "refundPreference must be DECLINE, GRANT_FULL or GRANT_PRORATED")
            }
            return nil
        }
        let numbered: [(String, ClosedRange<Int>, APIErrorCode)] = [
            ("consumptionStatus", 0...3, APIErrorCode.invalidConsumptionStatus),
            ("platform", 0...2, APIErrorCode.invalidPlatform),
            ("deliveryStatus", 0...5, APIErrorCode.invalidDeliveryStatus),
            ("accountTenure", 0...7, APIErrorCode.invalidAccountTenure),
            ("playTime", 0...7, APIErrorCode.invalidPlayTime),
            ("lifetimeDollarsRefunded", 0...7, APIErrorCode.invalidLifetimeDollarsRefunded),
            ("lifetimeDollarsPurchased", 0...7, APIErrorCode.invalidLifetimeDollarsPurchased),
            ("userStatus", 0...4, APIErrorCode.invalidUserStatus),
        ]
        for (key, range, code) in numbered where !integer(key, in: range) {
            return .error(code, "\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        if let token = object["appAccountToken"] as? String, !token.isEmpty, UUID(uuidString: token) == nil {
            return .error(APIErrorCode.invalidAppAccountToken, "appAccountToken must be a UUID or empty")
        }
        return nil
    }

    /// Extend Renewal Dates for All Active Subscribers of a product; a RENEWAL_EXTENSION SUMMARY
    /// notification says how it went.
    func massExtend(_ request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        let object: [String: Any]
        let terms: ExtensionTerms
        switch Self.extensionRequest(request.body) {
        case .success(let value): (object, terms) = value
        case .failure(let refusal): return refusal
        }
        guard let productID = object["productId"] as? String, catalog.product(productID)?.autoRenew != nil else {
            return .error(APIErrorCode.generalBadRequest, "productId must be an auto-renewable product of the catalog")
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
        let countries = (object["storefrontCountryCodes"] as? [Any])?.compactMap { $0 as? String } ?? []
        let summary: [String: Any] = [
            "requestIdentifier": terms.requestIdentifier, "productId": productID, "succeededCount": succeeded,
            "failedCount": failed,
            "storefrontCountryCodes": countries, "completeDate": SignedUnits.milliseconds(clock.now()),
        ]
        var notification = ServerNotification(
            key: "mass:\(terms.requestIdentifier)", account: "", type: "RENEWAL_EXTENSION", subtype: "SUMMARY",
            createdAt: clock.now()
        )
        notification.summary = String(decoding: CompactJSON.encode(summary), as: UTF8.self)
        try server.enqueue(failures + [notification])
        deliver()
        return .json(["requestIdentifier": terms.requestIdentifier])
    }

    /// Get Status of Subscription Renewal Date Extensions: read back from the SUMMARY notification.
    func massStatus(productID: String, requestIdentifier: String) throws(StoreError) -> APIResponse {
        guard
            let notification = try server.notifications(account: nil).first(where: {
                $0.key == "mass:\(requestIdentifier)"
            }),
            let text = notification.summary,
            let summary = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
            summary["productId"] as? String == productID
        else {
            return .error(APIErrorCode.statusRequestNotFound, "no mass extension \(requestIdentifier) for \(productID)")
        }
        return .json([
            "requestIdentifier": requestIdentifier, "complete": true, "completeDate": summary["completeDate"] ?? 0,
            "succeededCount": summary["succeededCount"] ?? 0, "failedCount": summary["failedCount"] ?? 0,
        ])
    }
}

// verifyReceipt's JSON (V10), made from the payloads the signed data is made from, so that each
// transaction says what Get Transaction Info signs for the same id: Apple's legacy field names,
// every number and flag a string, and each date three times (`…` in Etc/GMT, `…_ms`, `…_pst`).
import Foundation

package struct LegacyReceiptFields {
    private let utc: DateFormatter
    private let pacific: DateFormatter

    package init() {
        func formatter(_ zone: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: zone)
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss '\(zone)'"
            return formatter
        }
        utc = formatter("Etc/GMT")
        pacific = formatter("America/Los_Angeles")
    }

    /// `name`, `name_ms` and `name_pst` for the instant `milliseconds`; nothing when it is nil.
    package func date(_ name: String, _ milliseconds: Int64?, into object: inout [String: Any]) {
        guard let milliseconds else { return }
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        object[name] = utc.string(from: date)
        object[name + "_ms"] = String(milliseconds)
        object[name + "_pst"] = pacific.string(from: date)
    }

    /// One entry of `receipt.in_app` and `latest_receipt_info`.
    package func transaction(_ payload: TransactionPayload) -> [String: Any] {
        let isFreeTrial = payload.offerDiscountType == "FREE_TRIAL"
        var object: [String: Any] = [
            "quantity": String(payload.quantity ?? 1), "product_id": payload.productId ?? "",
            "transaction_id": payload.transactionId ?? "",
            "original_transaction_id": payload.originalTransactionId ?? "",
            "in_app_ownership_type": payload.inAppOwnershipType ?? "PURCHASED",
            "is_trial_period": String(isFreeTrial),
            "is_in_intro_offer_period": String(payload.offerType == 1 && !isFreeTrial),
        ]
        date("purchase_date", payload.purchaseDate, into: &object)
        date("original_purchase_date", payload.originalPurchaseDate, into: &object)
        date("expires_date", payload.expiresDate, into: &object)
        if let revoked = payload.revocationDate {
            date("cancellation_date", revoked, into: &object)
            object["cancellation_reason"] = String(payload.revocationReason ?? 0)
        }
        object["web_order_line_item_id"] = payload.webOrderLineItemId
        object["subscription_group_identifier"] = payload.subscriptionGroupIdentifier
        object["app_account_token"] = payload.appAccountToken
        if payload.isUpgraded == true { object["is_upgraded"] = "true" }
        offer(type: payload.offerType, identifier: payload.offerIdentifier, into: &object)
        return object
    }

    /// One entry of `pending_renewal_info`: a plan's renewal, as its signed renewal info says.
    package func renewal(_ payload: RenewalInfoPayload) -> [String: Any] {
        var object: [String: Any] = [
            "original_transaction_id": payload.originalTransactionId ?? "", "product_id": payload.productId ?? "",
            "auto_renew_product_id": payload.autoRenewProductId ?? "",
            "auto_renew_status": String(payload.autoRenewStatus ?? 0),
        ]
        object["expiration_intent"] = payload.expirationIntent.map(String.init)
        object["is_in_billing_retry_period"] = payload.isInBillingRetryPeriod.map { $0 ? "1" : "0" }
        date("grace_period_expires_date", payload.gracePeriodExpiresDate, into: &object)
        // Apple's two names for whether the customer agreed to a price increase.
        object["price_increase_status"] = payload.priceIncreaseStatus.map(String.init)
        object["price_consent_status"] = payload.priceIncreaseStatus.map(String.init)
        offer(type: payload.offerType, identifier: payload.offerIdentifier, into: &object)
        return object
    }

    /// An offer code's reference name, or a promotional offer's id, where the offer is one.
    private func offer(type: Int?, identifier: String?, into object: inout [String: Any]) {
        switch type {
        case 2: object["promotional_offer_id"] = identifier
        case 3: object["offer_code_ref_name"] = identifier
        default: break
        }
    }
}

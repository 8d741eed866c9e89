// Apple's decoded payloads built from the store's records (S2): transactions, renewal info, the
// app transaction and notifications. Knows the catalog, the app identity and the time, nothing of
// devices, so that whoever signs — a device showing its history, a deliverer of notifications on
// its own thread — builds the same fields the same way.
import Foundation

package struct PayloadBuilder {
    let catalog: Catalog
    let identity: AppIdentity
    let now: Date
    /// The account the data is about ("" for a guest).
    let account: String

    package init(catalog: Catalog, identity: AppIdentity, now: Date, account: String) {
        self.catalog = catalog
        self.identity = identity
        self.now = now
        self.account = account
    }

    typealias Units = SignedData

    /// The fields every signed payload shares.
    func common() -> [String: Any] {
        var payload: [String: Any] = [
            "bundleId": identity.bundleID, "environment": identity.environment.rawValue, "signedDate": Units.milliseconds(now),
            "storefront": catalog.storefront, "storefrontId": Storefronts.appleID(catalog.storefront),
            "appTransactionId": Units.appTransactionID(account),
        ]
        if let appleID = identity.appAppleID { payload["appAppleId"] = appleID }
        return payload
    }

    // MARK: Transactions

    /// A transaction that delivered content; nil for one that did not. `receipt` is its account's.
    func transaction(_ transaction: StoreTransaction, receipt: [ReceiptEntry]) -> [String: Any]? {
        guard transaction.state.deliversContent, let purchaseDate = transaction.purchaseDate else { return nil }
        var payload = common()
        payload["transactionId"] = transaction.id
        payload["productId"] = transaction.productID
        payload["purchaseDate"] = Units.milliseconds(purchaseDate)
        payload["quantity"] = 1
        payload["inAppOwnershipType"] = "PURCHASED"
        payload["currency"] = catalog.currencyCode
        payload["transactionReason"] = transaction.isRenewal ? "RENEWAL" : "PURCHASE"
        payload["type"] = Units.typeName(transaction.kind)
        var original = transaction.originalID ?? transaction.id
        var originalPurchaseDate = purchaseDate
        var price = catalog.product(transaction.productID)?.price
        let line = receipt.first { $0.transactionID == transaction.id }
        if transaction.kind == .autoRenewableSubscription, let line {
            price = line.price ?? price
            original = originalTransaction(of: line, in: receipt)
            if let expires = line.expiresDate { payload["expiresDate"] = Units.milliseconds(expires) }
            if let group = line.group { payload["subscriptionGroupIdentifier"] = group }
            payload["webOrderLineItemId"] = Units.webOrderLineItemID(transaction.id)
            if let offer = line.offer, let type = line.soldOn {
                payload["offerType"] = type.rawValue
                payload["offerDiscountType"] = Units.discountType(offer)
                if type != .introductory, let id = line.offerID { payload["offerIdentifier"] = id }
                if let terms = catalog.product(line.productID)?.autoRenew?.terms(of: type, id: line.offerID) {
                    payload["offerPeriod"] = Units.offerPeriod(terms)
                }
            }
            // Replaced by an upgrade: a later purchase in the group credited this period.
            payload["isUpgraded"] = receipt.contains { $0.event == .credit && $0.reference == transaction.id }
        }
        if let first = receipt.first(where: { $0.transactionID == original }) { originalPurchaseDate = first.purchaseDate }
        if ReceiptEntry.revoked(in: receipt).contains(transaction.id),
           let refund = receipt.last(where: { $0.event == .refund && $0.reference == transaction.id }) {
            payload["revocationDate"] = Units.milliseconds(refund.purchaseDate)
            payload["revocationReason"] = 0
        }
        // O5: a family member's own transaction for the organizer's purchase.
        if let line, line.event == .familyShare {
            payload["inAppOwnershipType"] = "FAMILY_SHARED"
            payload["transactionReason"] = "PURCHASE"
            original = line.reference ?? original
            price = 0
            if let revoke = receipt.last(where: { $0.event == .familyRevoke && $0.reference == transaction.id }) {
                payload["revocationDate"] = Units.milliseconds(revoke.purchaseDate)
                payload["revocationReason"] = 0
            }
        }
        payload["originalTransactionId"] = original
        payload["originalPurchaseDate"] = Units.milliseconds(originalPurchaseDate)
        payload["price"] = Units.milliunits(price ?? 0)
        return payload
    }

    /// The transaction a receipt line stands for (a period another device paid for, a line a
    /// notification reports).
    package func transaction(line: ReceiptEntry, receipt: [ReceiptEntry]) -> [String: Any] {
        let made = StoreTransaction(
            id: line.transactionID, user: line.account, productID: line.productID, kind: line.kind, quantity: 0,
            months: 0, bonusDays: 0, state: .purchased, reason: nil, createdAt: line.purchaseDate, purchaseDate: line.purchaseDate,
            dueAt: nil, dueApproves: nil, isFinished: true, originalID: line.event == .renewal ? line.reference : nil, steps: []
        )
        return transaction(made, receipt: receipt) ?? [:]
    }

    /// The purchase that started a plan line's plan: a renewal's reference, an upgrade's earlier
    /// purchase in the group, followed back to the first (S3).
    func originalTransaction(of line: ReceiptEntry, in receipt: [ReceiptEntry]) -> String {
        var current = line
        var seen: Set<String> = []
        while !seen.contains(current.transactionID) {
            seen.insert(current.transactionID)
            if current.event == .renewal, let reference = current.reference, let next = receipt.first(where: { $0.transactionID == reference }) {
                current = next
                continue
            }
            // An upgrade or crossgrade: the credit line of the replaced period points at it.
            if current.event == .purchase,
               let credit = receipt.first(where: { $0.event == .credit && $0.group == current.group && $0.purchaseDate == current.purchaseDate }),
               let replaced = credit.reference, let next = receipt.first(where: { $0.transactionID == replaced }) {
                current = next
                continue
            }
            break
        }
        return current.transactionID
    }

    // MARK: Renewal info

    package func renewalInfo(_ plan: PlanStatus, planLines: [ReceiptEntry], eligibleWinBackOfferIDs: [String] = []) -> [String: Any] {
        var payload = common()
        if !eligibleWinBackOfferIDs.isEmpty { payload["eligibleWinBackOfferIds"] = eligibleWinBackOfferIDs }
        payload["originalTransactionId"] = plan.originalTransactionID
        payload["productId"] = plan.productID
        payload["autoRenewProductId"] = plan.nextProductID ?? plan.productID
        payload["autoRenewStatus"] = plan.autoRenew ? 1 : 0
        payload["isInBillingRetryPeriod"] = plan.phase == .billingRetry || plan.phase == .gracePeriod
        if let grace = plan.graceUntil, plan.billingFailedAt != nil { payload["gracePeriodExpiresDate"] = Units.milliseconds(grace) }
        payload["renewalDate"] = Units.milliseconds(plan.expiresDate)
        payload["currency"] = catalog.currencyCode
        let renewing = catalog.product(plan.nextProductID ?? plan.productID)
        payload["renewalPrice"] = Units.milliunits(renewing?.price ?? 0)
        // The offer the next period is sold on: one bought for the next renewal, or the rest of a
        // pay-as-you-go offer.
        let next: (OfferType, String?)? = plan.pendingOffer.map { ($0.type, $0.id) }
            ?? (plan.offer == .payAsYouGo && plan.offerPeriodsLeft > 0 && plan.nextProductID == nil
                ? (plan.offerType ?? .introductory, plan.offerID) : nil)
        if let (type, id) = next, let terms = renewing?.autoRenew?.terms(of: type, id: id) {
            payload["offerType"] = type.rawValue
            if type != .introductory, let id { payload["offerIdentifier"] = id }
            payload["offerDiscountType"] = Units.discountType(terms.mode)
            payload["offerPeriod"] = Units.offerPeriod(terms)
            payload["renewalPrice"] = Units.milliunits(terms.price)
        }
        if plan.phase == .expired {
            // 1 cancelled, 2 billing error, 3 did not agree to a price increase, 5 other (Apple's expirationIntent).
            payload["expirationIntent"] = plan.endReason == ReceiptEntry.priceIncreaseNotAccepted ? 3
                : plan.endReason?.contains("billing") == true ? 2 : !plan.autoRenew ? 1 : 5
        }
        // O6: 0 while the subscriber has not agreed to an increase, 1 once they have (or need not).
        if let increase = plan.priceIncrease, plan.phase != .expired {
            payload["priceIncreaseStatus"] = increase.renews ? 1 : 0
        }
        if let start = planLines.first(where: { $0.transactionID == plan.originalTransactionID })?.purchaseDate {
            payload["recentSubscriptionStartDate"] = Units.milliseconds(start)
        }
        return payload
    }

    // MARK: App transaction

    func appTransaction(device: String, firstPurchase: Date?) -> [String: Any] {
        var payload: [String: Any] = [
            "receiptType": identity.environment.rawValue, "bundleId": identity.bundleID, "applicationVersion": "1",
            "versionExternalIdentifier": 0, "receiptCreationDate": Units.milliseconds(now), "originalApplicationVersion": "1",
            "originalPurchaseDate": Units.milliseconds(firstPurchase ?? now),
            "deviceVerification": Data(Units.digest("\(device)/\(account)").utf8).base64EncodedString(),
            "deviceVerificationNonce": Units.uuid(from: "\(device)/\(account)"), "appTransactionId": Units.appTransactionID(account),
            "originalPlatform": "iOS",
        ]
        if let appleID = identity.appAppleID { payload["appAppleId"] = appleID }
        return payload
    }

    // MARK: Notifications

    /// The decoded `signedPayload` of a notification (ResponseBodyV2DecodedPayload): its data
    /// carries the app, the environment, the plan's status and the signed transaction and renewal
    /// info, signed with `sign`.
    func notification(
        _ notification: ServerNotification, receipt: [ReceiptEntry], plan: PlanStatus?, sign: ([String: Any]) throws(StoreError) -> String
    ) throws(StoreError) -> [String: Any] {
        var data: [String: Any] = [
            "environment": identity.environment.rawValue, "bundleId": identity.bundleID, "bundleVersion": "1",
        ]
        if let appleID = identity.appAppleID { data["appAppleId"] = appleID }
        if let id = notification.transactionID, let line = receipt.first(where: { $0.transactionID == id }) {
            // A refund line (and a refund request, decline or reversal) reports the transaction it is about.
            let aboutAnother: Set<ReceiptEvent> = [.refund, .refundRequest, .refundDeclined, .refundReversed, .consumptionInfo]
            let reported = aboutAnother.contains(line.event) ? receipt.first { $0.transactionID == line.reference } ?? line : line
            data["signedTransactionInfo"] = try sign(transaction(line: reported, receipt: receipt))
            if notification.type == "CONSUMPTION_REQUEST" { data["consumptionRequestReason"] = line.note ?? "OTHER" }
        }
        if let summary = notification.summary, let object = (try? JSONSerialization.jsonObject(with: Data(summary.utf8))) as? [String: Any] {
            data = ["summary": object.merging(["environment": identity.environment.rawValue, "bundleId": identity.bundleID]) { a, _ in a }]
        }
        if let plan {
            let planLines = receipt.filter { $0.kind == .autoRenewableSubscription }
            data["signedRenewalInfo"] = try sign(renewalInfo(plan, planLines: planLines))
            data["status"] = Self.status(plan, refunded: notification.type == "REFUND")
        }
        var payload: [String: Any] = [
            "notificationType": notification.type, "notificationUUID": notification.uuid, "version": "2.0",
            "signedDate": Units.milliseconds(now), "data": data,
        ]
        if let subtype = notification.subtype { payload["subtype"] = subtype }
        return payload
    }

    /// Apple's `status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    package static func status(_ plan: PlanStatus, refunded: Bool = false) -> Int {
        if refunded || plan.endReason?.contains("refund") == true { return 5 }
        switch plan.phase {
        case .expired: return 2
        case .billingRetry: return 3
        case .gracePeriod: return 4
        default: return 1
        }
    }
}

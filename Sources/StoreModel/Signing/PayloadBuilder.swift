// Apple's decoded payloads built from the store's records (S2): transactions, renewal info, the
// app transaction and notifications. Knows the catalog, the app identity and the time, nothing of
// devices, so that whoever signs — a device showing its history, a deliverer of notifications on
// its own thread — builds the same fields the same way.
import Foundation

package struct PayloadBuilder {
    let catalog: Catalog
    package let identity: AppIdentity
    package let now: Date
    /// The account the data is about ("" for a guest).
    package let account: String
    /// Set App Account Token's tokens, by original transaction id (M3).
    package let appAccountTokens: [String: String]
    /// The account's app transaction id, as the records keep it (W18); nil for a guest.
    package let appTransactionID: String?

    package init(
        catalog: Catalog, identity: AppIdentity, now: Date, account: String, appTransactionID: String?,
        appAccountTokens: [String: String] = [:]
    ) {
        // Lines are signed from the catalog's own storefront, or the one each was bought in.
        self.catalog = catalog.isHome ? catalog : catalog.seen(in: catalog.homeStorefront) ?? catalog
        self.identity = identity
        self.now = now
        self.account = account
        self.appAccountTokens = appAccountTokens
        self.appTransactionID = appTransactionID
    }

    /// M3: the app account token of a purchase and everything after it in its subscription: the
    /// one Set App Account Token gave its original transaction, else the one the original purchase
    /// was made with.
    func appAccountToken(original: String, receipt: [ReceiptEntry], own: String?) -> String? {
        appAccountTokens[original] ?? receipt.first { $0.transactionID == original }?.appAccountToken ?? own
    }

    typealias Units = SignedUnits

    /// F3: the catalog as the storefront a line was bought in sold it (nil: the catalog's own).
    func sold(in storefront: String?) -> Catalog {
        guard let storefront, storefront != catalog.homeStorefront else { return catalog }
        return catalog.seen(in: storefront) ?? catalog
    }

    /// The fields a transaction and renewal info share; `sold` names the storefront.
    func common<P: SharedFields>(_ payload: inout P, sold: Catalog) {
        payload.bundleId = identity.bundleID
        payload.environment = identity.environment.rawValue
        payload.signedDate = Units.milliseconds(now)
        payload.storefront = sold.storefront
        payload.storefrontId = sold.storefrontID
        payload.appTransactionId = appTransactionID
        payload.appAppleId = identity.appAppleID
    }

    // MARK: Transactions

    /// A transaction that delivered content; nil for one that did not. `receipt` is its account's.
    package func transaction(_ transaction: StoreTransaction, receipt: [ReceiptEntry]) -> TransactionPayload? {
        guard transaction.state.deliversContent, let purchaseDate = transaction.purchaseDate else { return nil }
        var payload = TransactionPayload()
        let line = receipt.first { $0.transactionID == transaction.id }
        // Signed in the storefront it was bought in, in its currency and at its price there.
        let sold = sold(in: line?.storefront)
        common(&payload, sold: sold)
        payload.transactionId = transaction.id
        payload.productId = transaction.productID
        payload.purchaseDate = Units.milliseconds(purchaseDate)
        payload.quantity = 1
        payload.inAppOwnershipType = "PURCHASED"
        payload.currency = sold.currencyCode
        payload.transactionReason = transaction.isRenewal ? "RENEWAL" : "PURCHASE"
        payload.type = Units.typeName(transaction.kind)
        var original = transaction.originalID ?? transaction.id
        var originalPurchaseDate = purchaseDate
        var price = line?.storefront == nil ? sold.product(transaction.productID)?.price : line?.price
        if transaction.kind == .autoRenewableSubscription, let line {
            price = line.price ?? price
            original = originalTransaction(of: line, in: receipt)
            payload.expiresDate = expiresDate(of: line, in: receipt).map(Units.milliseconds)
            payload.subscriptionGroupIdentifier = line.group
            payload.webOrderLineItemId = Units.webOrderLineItemID(transaction.id)
            if let offer = line.offer, let type = line.soldOn {
                payload.offerType = type.rawValue
                payload.offerDiscountType = Units.discountType(offer)
                if type != .introductory, let id = line.offerID { payload.offerIdentifier = id }
                if let terms = catalog.product(line.productID)?.autoRenew?.terms(
                    of: type, id: line.offerID, billingPlan: line.offerBillingPlan)
                {
                    payload.offerPeriod = Units.offerPeriod(terms)
                }
            }
            // Replaced by an upgrade: a later purchase in the group credited this period.
            payload.isUpgraded = receipt.contains { $0.event == .credit && $0.reference == transaction.id }
            Self.billing(of: line, into: &payload)
        }
        if let first = receipt.first(where: { $0.transactionID == original }) {
            originalPurchaseDate = first.purchaseDate
        }
        if let revoked = ReceiptEntry.revocationDates(in: receipt)[transaction.id] {
            payload.revocationDate = Units.milliseconds(revoked)
            payload.revocationReason = 0
        }
        // O5: a family member's own transaction for the organizer's purchase.
        if let line, line.event == .familyShare {
            payload.inAppOwnershipType = "FAMILY_SHARED"
            payload.transactionReason = "PURCHASE"
            original = line.reference ?? original
            price = 0
        }
        payload.originalTransactionId = original
        // A family member's own transaction carries none of the organizer's.
        if line?.event != .familyShare,
            let token = appAccountToken(
                original: original, receipt: receipt, own: line?.appAccountToken ?? transaction.appAccountToken)
        {
            payload.appAccountToken = token
        }
        payload.originalPurchaseDate = Units.milliseconds(originalPurchaseDate)
        payload.price = Units.milliunits(price ?? 0)
        return payload
    }

    /// The transaction a receipt line stands for (a period another device paid for, a line a
    /// notification reports).
    package func transaction(line: ReceiptEntry, receipt: [ReceiptEntry]) -> TransactionPayload {
        let made = StoreTransaction(
            id: line.transactionID, user: line.account, productID: line.productID, kind: line.kind, quantity: 0,
            months: 0, bonusDays: 0, state: .purchased, reason: nil, createdAt: line.purchaseDate,
            purchaseDate: line.purchaseDate,
            dueAt: nil, dueApproves: nil, isFinished: true, originalID: line.event == .renewal ? line.reference : nil,
            steps: []
        )
        return transaction(made, receipt: receipt) ?? TransactionPayload()
    }

    /// The purchase that started the account's subscription in a plan line's group (S3): StoreKit's
    /// `originalID`, kept through renewals, upgrades, downgrades and resubscribes. Each plan line
    /// names it in `reference`; a line that names none (the group's first purchase) is its own.
    package func originalTransaction(of line: ReceiptEntry, in receipt: [ReceiptEntry]) -> String {
        guard [.purchase, .renewal, .change].contains(line.event), let reference = line.reference,
            receipt.contains(where: { $0.transactionID == reference })
        else { return line.transactionID }
        return reference
    }

    /// The transaction a notification about `line` carries, always one Get Transaction
    /// Info answers: a refund, a refund request and its answers carry the purchase they are about;
    /// a REVOKE, the member's FAMILY_SHARED transaction; an event of a plan that is not a
    /// transaction (auto-renew off or on, a price increase, a billing failure, an expiry, an
    /// extension), the subscription's most recent transaction at that moment.
    package func reported(_ line: ReceiptEntry, in receipt: [ReceiptEntry]) -> ReceiptEntry {
        switch line.event {
        case .refund, .refundRequest, .refundDeclined, .refundReversed, .consumptionInfo, .familyRevoke:
            return receipt.first { $0.transactionID == line.reference } ?? line
        case .purchase, .renewal, .familyShare:
            return line
        case .cancel, .renewOn, .credit, .expire, .billingFailure, .billingRecovered, .change, .extend, .priceIncrease,
            .priceConsent:
            guard line.kind == .autoRenewableSubscription, !line.isTransaction else { return line }
            // Lines of one second are not read back in the order written: of the periods that
            // started last before the event, the one of the event's product (an upgrade's purchase
            // over the renewal it replaced the same second).
            let periods = receipt.filter {
                ($0.event == .purchase || $0.event == .renewal) && $0.group == line.group
                    && $0.kind == .autoRenewableSubscription
                    && $0.purchaseDate <= line.purchaseDate
            }
            return periods.max { a, b in
                (a.purchaseDate, a.productID == line.productID ? 1 : 0) < (
                    b.purchaseDate, b.productID == line.productID ? 1 : 0
                )
            } ?? line
        }
    }

    // MARK: Renewal info

    package func renewalInfo(_ plan: PlanStatus, planLines: [ReceiptEntry], eligibleWinBackOfferIDs: [String] = [])
        -> RenewalInfoPayload
    {
        var payload = RenewalInfoPayload()
        // The storefront the plan's period was bought in: it cannot change while a plan runs.
        let sold = sold(in: planLines.first { $0.transactionID == plan.transactionID }?.storefront)
        common(&payload, sold: sold)
        if !eligibleWinBackOfferIDs.isEmpty { payload.eligibleWinBackOfferIds = eligibleWinBackOfferIDs }
        payload.originalTransactionId = plan.originalTransactionID
        if plan.familySharedBy == nil {
            payload.appAccountToken = appAccountToken(
                original: plan.originalTransactionID, receipt: planLines, own: nil)
        }
        payload.productId = plan.productID
        payload.autoRenewProductId = plan.nextProductID ?? plan.productID
        payload.autoRenewStatus = plan.autoRenew ? 1 : 0
        payload.isInBillingRetryPeriod = plan.phase == .billingRetry || plan.phase == .gracePeriod
        if let grace = plan.graceUntil, plan.billingFailedAt != nil {
            payload.gracePeriodExpiresDate = Units.milliseconds(grace)
        }
        payload.renewalDate = Units.milliseconds(plan.expiresDate)
        payload.currency = sold.currencyCode
        let renewing = sold.product(plan.nextProductID ?? plan.productID)
        payload.renewalPrice = Units.milliunits(renewing?.price ?? 0)
        // The offer the next period is sold on: one bought for the next renewal, or the rest of a
        // pay-as-you-go offer; none for a month of a commitment (an offer waits for its end).
        let inCommitment = plan.commitment?.hasMonthsLeft == true && plan.phase != .expired
        let next: (OfferType, String?)? =
            inCommitment
            ? nil
            : plan.pendingOffer.map { ($0.type, $0.id) }
                ?? (plan.offer == .payAsYouGo && plan.offerPeriodsLeft > 0 && plan.nextProductID == nil
                    ? (plan.offerType ?? .introductory, plan.offerID) : nil)
        if let (type, id) = next, let terms = renewing?.autoRenew?.terms(of: type, id: id) {
            payload.offerType = type.rawValue
            if type != .introductory, let id { payload.offerIdentifier = id }
            payload.offerDiscountType = Units.discountType(terms.mode)
            payload.offerPeriod = Units.offerPeriod(terms)
            payload.renewalPrice = Units.milliunits(terms.price)
        }
        renewalBilling(plan, sold: sold, into: &payload)
        if plan.phase == .expired {
            // 1 cancelled, 2 billing error, 3 did not agree to a price increase, 5 other (Apple's expirationIntent).
            payload.expirationIntent =
                plan.ended == .priceIncreaseNotAccepted
                ? 3 : plan.ended?.isBillingError == true ? 2 : !plan.autoRenew ? 1 : 5
        }
        // O6: 0 while the subscriber has not agreed to an increase, 1 once they have (or need not).
        if let increase = plan.priceIncrease, plan.phase != .expired {
            payload.priceIncreaseStatus = increase.renews ? 1 : 0
        }
        if let start = planLines.first(where: { $0.transactionID == plan.originalTransactionID })?.purchaseDate {
            payload.recentSubscriptionStartDate = Units.milliseconds(start)
        }
        return payload
    }

    /// The billing plan of the next period, for every auto-renewable plan (BILLED_UPFRONT where no
    /// monthly commitment is offered); within a commitment, its next month (same product, its
    /// monthly price) and what its end renews into.
    func renewalBilling(_ plan: PlanStatus, sold: Catalog, into payload: inout RenewalInfoPayload) {
        let next = sold.product(plan.nextProductID ?? plan.productID)
        guard let commitment = plan.commitment, plan.phase != .expired else {
            guard let monthly = next?.autoRenew?.monthlyCommitmentPrice else {
                payload.renewalBillingPlanType = BillingPlan.billedUpfront.rawValue
                return
            }
            // Ended within a commitment (cancelled, its current month refunded, billing retry run
            // out): the plan as it last stood, monthly at its month's price, which is what a
            // resubscription to it would bill; not the year up front she never chose.
            if plan.phase == .expired, let last = plan.commitment {
                payload.renewalBillingPlanType = BillingPlan.monthly.rawValue
                payload.renewalPrice = Units.milliunits(last.price)
                return
            }
            // A change to the monthly plan starts a commitment at the next renewal, unless an
            // offer is sold for it.
            if plan.nextBillingPlan == .monthly, payload.offerType == nil, plan.phase != .expired {
                payload.renewalBillingPlanType = BillingPlan.monthly.rawValue
                payload.renewalPrice = Units.milliunits(monthly)
            } else {
                payload.renewalBillingPlanType = BillingPlan.billedUpfront.rawValue
            }
            return
        }
        // A commitment renews into another on the same product, if it still offers one, unless the
        // customer chose to be billed up front; into the product a change chose, or an offer bought
        // in it, billed up front (or monthly, if the change chose that).
        let offer = plan.pendingOffer.flatMap { next?.autoRenew?.terms(of: $0.type, id: $0.id) }
        let sameProduct = plan.nextProductID == nil || plan.nextProductID == plan.productID
        let monthlyNext = plan.nextBillingPlan.map { $0 == .monthly } ?? sameProduct
        let recommits = monthlyNext && offer == nil ? next?.autoRenew?.monthlyCommitmentPrice : nil
        var info = RenewalCommitmentInfo()
        info.commitmentAutoRenewProductId = plan.nextProductID ?? plan.productID
        info.commitmentAutoRenewStatus = commitment.renews ? 1 : 0
        info.commitmentRenewalBillingPlanType = (recommits == nil ? BillingPlan.billedUpfront : .monthly).rawValue
        info.commitmentRenewalDate = Units.milliseconds(commitment.ends)
        info.commitmentRenewalPrice = Units.milliunits(recommits ?? offer?.price ?? next?.price ?? 0)
        payload.commitmentInfo = info
        if commitment.hasMonthsLeft {
            payload.autoRenewProductId = plan.productID
            payload.renewalBillingPlanType = BillingPlan.monthly.rawValue
            payload.renewalPrice = Units.milliunits(commitment.price)
        } else {
            payload.renewalBillingPlanType = info.commitmentRenewalBillingPlanType
            payload.renewalPrice = info.commitmentRenewalPrice
        }
    }

    // MARK: App transaction

    /// The app's version, and the one first bought, as the app transaction and the app receipt
    /// name them: one version of the app here.
    package static let applicationVersion = "1"

    package func appTransaction(device: String, firstPurchase: Date?) -> AppTransactionPayload {
        var payload = AppTransactionPayload()
        payload.receiptType = identity.environment.rawValue
        payload.appAppleId = identity.appAppleID
        payload.bundleId = identity.bundleID
        payload.applicationVersion = Self.applicationVersion
        payload.versionExternalIdentifier = 0
        payload.receiptCreationDate = Units.milliseconds(now)
        payload.originalApplicationVersion = Self.applicationVersion
        payload.originalPurchaseDate = Units.milliseconds(firstPurchase ?? now)
        payload.deviceVerification = Data(Units.digest("\(device)/\(account)").utf8).base64EncodedString()
        payload.deviceVerificationNonce = Units.uuid(from: "\(device)/\(account)")
        payload.appTransactionId = appTransactionID
        payload.originalPlatform = "iOS"
        return payload
    }

    // MARK: Notifications

    /// The decoded `signedPayload` of a notification (ResponseBodyV2DecodedPayload): its data
    /// carries the app, the environment, the plan's status and the signed transaction and renewal
    /// info, signed with `sign`.
    package func notification(
        _ notification: ServerNotification, receipt: [ReceiptEntry], plan: PlanStatus?,
        sign: (any SignedPayload) throws(StoreError) -> String
    ) throws(StoreError) -> NotificationPayload {
        var data = NotificationData()
        data.environment = identity.environment.rawValue
        data.bundleId = identity.bundleID
        data.bundleVersion = "1"
        data.appAppleId = identity.appAppleID
        if let id = notification.transactionID, let line = receipt.first(where: { $0.transactionID == id }) {
            data.signedTransactionInfo = try sign(transaction(line: reported(line, in: receipt), receipt: receipt))
            if notification.type == "CONSUMPTION_REQUEST" {
                var reason = "OTHER"
                if case .refundReason(let given) = line.meaning { reason = given }
                data.consumptionRequestReason = reason
            }
        }
        if let plan {
            let planLines = receipt.filter { $0.kind == .autoRenewableSubscription }
            data.signedRenewalInfo = try sign(renewalInfo(plan, planLines: planLines))
            // A REFUND says what Get All Subscription Statuses says at that moment: a past month's
            // refund leaves the customer subscribed (1), only the current period's revokes (5).
            data.status = Self.status(plan)
        }
        var payload = NotificationPayload()
        payload.notificationType = notification.type
        payload.subtype = notification.subtype
        payload.notificationUUID = notification.uuid
        payload.version = "2.0"
        payload.signedDate = Units.milliseconds(now)
        payload.data = data
        // A mass extension's SUMMARY has `summary` in place of `data`, naming the app as `data` does.
        if let stored = notification.summary,
            var summary = try? JSONDecoder().decode(NotificationSummary.self, from: Data(stored.utf8))
        {
            summary.environment = summary.environment ?? identity.environment.rawValue
            summary.bundleId = summary.bundleId ?? identity.bundleID
            summary.appAppleId = summary.appAppleId ?? identity.appAppleID
            payload.summary = summary
            payload.data = nil
        }
        // A withdrawal of consent names the app and the customer (their app transaction, as Get
        // App Transaction Info signs it), in `appData` in place of `data`.
        if notification.type == "RESCIND_CONSENT" {
            var app = NotificationAppData()
            app.appAppleId = identity.appAppleID
            app.bundleId = identity.bundleID
            app.environment = identity.environment.rawValue
            let firstPurchase = receipt.filter(\.isTransaction).map(\.purchaseDate).min()
            app.signedAppTransactionInfo = try sign(
                appTransaction(device: "app-store-server", firstPurchase: firstPurchase))
            payload.appData = app
            payload.data = nil
        }
        return payload
    }

    /// Apple's `status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    package static func status(_ plan: PlanStatus) -> Int {
        if plan.ended == .refunded { return 5 }
        switch plan.phase {
        case .expired: return 2
        case .billingRetry: return 3
        case .gracePeriod: return 4
        default: return 1
        }
    }
}

/// The fields a signed transaction and signed renewal info both carry.
protocol SharedFields {
    var bundleId: String? { get set }
    var environment: String? { get set }
    var signedDate: Int64? { get set }
    var storefront: String? { get set }
    var storefrontId: String? { get set }
    var appTransactionId: String? { get set }
    var appAppleId: Int64? { get set }
}

extension TransactionPayload: SharedFields {}
extension RenewalInfoPayload: SharedFields {}

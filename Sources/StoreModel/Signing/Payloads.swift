// The payloads Storefront signs, typed as Apple's models type them (the App Store Server
// Library's JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload, AppTransaction,
// ResponseBodyV2DecodedPayload and DecodedRealtimeRequestBody): dates in milliseconds and prices in
// milliunits as Int64, counts and Apple's numbered enums as Int, flags as Bool. A field left nil is
// not written.
// PayloadBuilder fills them; CertificateAuthority signs them through PayloadFields and CompactJSON.
import Foundation

/// A payload that is signed as a JWS.
public protocol SignedPayload: Codable, Sendable, Equatable {}

extension SignedPayload {
    /// The payload as the plain object CompactJSON writes.
    package var fields: [String: Any] {
        // Every payload is a struct of strings, whole numbers, flags, lists and structs of those:
        // encoding it cannot fail.
        (try? PayloadFields.object(self)) ?? [:]
    }
}

/// A signed transaction (JWSTransactionDecodedPayload).
public struct TransactionPayload: SignedPayload {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Int64?
    public var originalPurchaseDate: Int64?
    public var expiresDate: Int64?
    public var quantity: Int?
    /// "Consumable", "Non-Consumable", "Non-Renewing Subscription", "Auto-Renewable Subscription".
    public var type: String?
    public var appAccountToken: String?
    /// "PURCHASED" or "FAMILY_SHARED".
    public var inAppOwnershipType: String?
    public var signedDate: Int64?
    /// 0: another reason, 1: an issue in the app.
    public var revocationReason: Int?
    public var revocationDate: Int64?
    public var isUpgraded: Bool?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    public var offerIdentifier: String?
    public var environment: String?
    public var storefront: String?
    public var storefrontId: String?
    /// "PURCHASE" or "RENEWAL".
    public var transactionReason: String?
    public var currency: String?
    public var price: Int64?
    /// "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT".
    public var offerDiscountType: String?
    public var appTransactionId: String?
    public var offerPeriod: String?
    /// "BILLED_UPFRONT" or "MONTHLY", for a plan that offers a monthly commitment.
    public var billingPlanType: String?
    public var commitmentInfo: TransactionCommitmentInfo?
    /// Not in Apple's transaction; Storefront has always written it, and Apple's library ignores it.
    public var appAppleId: Int64?

    public init() {}
}

/// A monthly period's place in its commitment (TransactionCommitmentInfo).
public struct TransactionCommitmentInfo: Codable, Sendable, Equatable {
    /// 1 to 12.
    public var billingPeriodNumber: Int?
    public var totalBillingPeriods: Int?
    public var commitmentExpiresDate: Int64?
    /// The twelve payments together, in milliunits.
    public var commitmentPrice: Int64?

    public init() {}
}

/// What happens when a commitment ends (RenewalCommitmentInfo).
public struct RenewalCommitmentInfo: Codable, Sendable, Equatable {
    public var commitmentAutoRenewProductId: String?
    /// 0 off, 1 on.
    public var commitmentAutoRenewStatus: Int?
    public var commitmentRenewalBillingPlanType: String?
    public var commitmentRenewalDate: Int64?
    public var commitmentRenewalPrice: Int64?

    public init() {}
}

/// Signed renewal info (JWSRenewalInfoDecodedPayload).
public struct RenewalInfoPayload: SignedPayload {
    /// 1 cancelled, 2 billing error, 3 price increase not agreed to, 4 product unavailable, 5 other.
    public var expirationIntent: Int?
    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    /// 0 off, 1 on.
    public var autoRenewStatus: Int?
    public var isInBillingRetryPeriod: Bool?
    /// 0 not yet agreed to, 1 agreed to (or need not be).
    public var priceIncreaseStatus: Int?
    public var gracePeriodExpiresDate: Int64?
    public var offerType: Int?
    public var offerIdentifier: String?
    public var signedDate: Int64?
    public var environment: String?
    public var recentSubscriptionStartDate: Int64?
    public var renewalDate: Int64?
    public var currency: String?
    public var renewalPrice: Int64?
    public var offerDiscountType: String?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var offerPeriod: String?
    /// The billing plan of the next period, for a plan that offers a monthly commitment.
    public var renewalBillingPlanType: String?
    /// Only within a commitment.
    public var commitmentInfo: RenewalCommitmentInfo?
    /// Not in Apple's renewal info, as in TransactionPayload.
    public var bundleId: String?
    public var storefront: String?
    public var storefrontId: String?
    public var appAppleId: Int64?

    public init() {}
}

/// The app transaction (AppTransaction).
public struct AppTransactionPayload: SignedPayload {
    public var receiptType: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int?
    public var receiptCreationDate: Int64?
    public var originalPurchaseDate: Int64?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var appTransactionId: String?
    /// "iOS", "macOS", "tvOS", "visionOS".
    public var originalPlatform: String?

    public init() {}
}

/// A notification's `data` (Data).
public struct NotificationData: Codable, Sendable, Equatable {
    public var environment: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
    /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    public var consumptionRequestReason: String?

    public init() {}
}

/// A mass renewal-date extension's `summary` (Summary).
public struct NotificationSummary: Codable, Sendable, Equatable {
    public var environment: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var requestIdentifier: String?
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int?
    public var failedCount: Int?

    public init() {}
}

/// A RESCIND_CONSENT notification's `appData` (AppData): the app and the customer's signed app
/// transaction, in place of `data`.
public struct NotificationAppData: Codable, Sendable, Equatable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: String?
    public var signedAppTransactionInfo: String?

    public init() {}
}

/// A notification's decoded `signedPayload` (ResponseBodyV2DecodedPayload).
public struct NotificationPayload: SignedPayload {
    public var notificationType: String?
    public var subtype: String?
    public var notificationUUID: String?
    public var data: NotificationData?
    public var summary: NotificationSummary?
    public var appData: NotificationAppData?
    public var version: String?
    public var signedDate: Int64?

    public init() {}
}

/// The App Store's signed call to the developer's Get Retention Message endpoint
/// (DecodedRealtimeRequestBody): every field present.
public struct RealtimeRequestPayload: SignedPayload {
    public var originalTransactionId: String
    public var appAppleId: Int64
    public var productId: String
    public var userLocale: String
    /// A lowercase UUID, new for each call.
    public var requestIdentifier: String
    public var signedDate: Int64
    public var environment: String

    public init(
        originalTransactionId: String, appAppleId: Int64, productId: String, userLocale: String,
        requestIdentifier: String,
        signedDate: Int64, environment: String
    ) {
        self.originalTransactionId = originalTransactionId
        self.appAppleId = appAppleId
        self.productId = productId
        self.userLocale = userLocale
        self.requestIdentifier = requestIdentifier
        self.signedDate = signedDate
        self.environment = environment
    }
}

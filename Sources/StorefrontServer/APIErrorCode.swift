// Apple's error codes for the App Store Server API's refusals (V5, V9), the HTTP status each
// comes with, and when this server answers it.
import Foundation

/// Apple's error codes for every refusal these routes give (`APIError` in app-store-server-library):
/// the one table of them, with the HTTP status each comes with and when. docs/server-api.md lists
/// the same rows (DocsTests checks that it does).
package enum APIErrorCode: Int, CaseIterable {
    case generalBadRequest = 4_000_000
    case invalidRevision = 4_000_005
    case invalidTransactionID = 4_000_006
    case invalidOriginalTransactionID = 4_000_008
    case invalidExtendByDays = 4_000_009
    case invalidExtendReasonCode = 4_000_010
    case invalidRequestIdentifier = 4_000_011
    case startDateAfterEndDate = 4_000_013
    case invalidPaginationToken = 4_000_014
    case invalidStartDate = 4_000_015
    case invalidEndDate = 4_000_016
    case invalidNotificationType = 4_000_018
    case invalidSort = 4_000_021
    case invalidProductType = 4_000_022
    case invalidInAppOwnershipType = 4_000_026
    case invalidRevoked = 4_000_030
    case invalidStatus = 4_000_031
    case invalidAccountTenure = 4_000_032
    case invalidAppAccountToken = 4_000_033
    case invalidConsumptionStatus = 4_000_034
    case invalidCustomerConsented = 4_000_035
    case invalidDeliveryStatus = 4_000_036
    case invalidLifetimeDollarsPurchased = 4_000_037
    case invalidLifetimeDollarsRefunded = 4_000_038
    case invalidPlatform = 4_000_039
    case invalidPlayTime = 4_000_040
    case invalidSampleContentProvided = 4_000_041
    case invalidUserStatus = 4_000_042
    case invalidTransactionNotConsumable = 4_000_043
    case invalidImage = 4_000_161
    case headerTooLong = 4_000_162
    case bodyTooLong = 4_000_163
    case invalidLocale = 4_000_164
    case altTextTooLong = 4_000_175
    case invalidAppAccountTokenUUID = 4_000_183
    case familyTransactionNotSupported = 4_000_185
    case transactionIDIsNotOriginalTransactionID = 4_000_187
    case invalidPerformanceTestRequest = 4_000_211
    case invalidPerformanceTestRequestID = 4_000_212
    case existingPerformanceTestRun = 4_000_213
    case invalidRealtimeURL = 4_000_215
    case invalidImageSize = 4_000_216
    case tooManyBulletPoints = 4_000_218
    case bulletPointTextTooLong = 4_000_219
    case aboveImageRequiresAnImage = 4_000_224
    case unauthorized = 4_010_000
    case subscriptionExtensionIneligible = 4_030_004
    case subscriptionMaxExtension = 4_030_005
    case maximumNumberOfImagesReached = 4_030_014
    case messageNotApproved = 4_030_017
    case imageNotApproved = 4_030_018
    case imageInUse = 4_030_019
    case notFound = 4_040_000
    case originalTransactionIDNotFound = 4_040_005
    case testNotificationNotFound = 4_040_008
    case statusRequestNotFound = 4_040_009
    case transactionIDNotFound = 4_040_010
    case imageNotFound = 4_040_014
    case messageNotFound = 4_040_015
    case performanceTestRunNotFound = 4_040_018
    case appTransactionDoesNotExist = 4_040_019
    case defaultMessageNotFound = 4_040_020
    case realtimeURLNotFound = 4_040_021
    case imageAlreadyExists = 4_090_000
    case messageAlreadyExists = 4_090_001
    case generalInternal = 5_000_000

    /// The HTTP status the code comes with.
    package var status: Int {
        switch self {
        case .bodyTooLong: 413
        case .unauthorized: 401
        case .subscriptionExtensionIneligible: 403
        case .subscriptionMaxExtension: 403
        case .maximumNumberOfImagesReached, .messageNotApproved, .imageNotApproved, .imageInUse: 403
        case .imageNotFound, .messageNotFound, .performanceTestRunNotFound, .defaultMessageNotFound,
            .realtimeURLNotFound:
            404
        case .imageAlreadyExists, .messageAlreadyExists: 409
        case .notFound: 404
        case .originalTransactionIDNotFound: 404
        case .testNotificationNotFound: 404
        case .statusRequestNotFound: 404
        case .transactionIDNotFound: 404
        case .appTransactionDoesNotExist: 404
        case .generalInternal: 500
        default: 400
        }
    }

    /// When the server answers it, in words.
    package var meaning: String {
        switch self {
        case .generalBadRequest: "a malformed body or a value out of range (no more precise code applies)"
        case .invalidRevision: "a `revision` this server did not give"
        case .invalidTransactionID: "a transaction id that is not 1–20 digits"
        case .invalidOriginalTransactionID: "an original transaction id that is not 1–20 digits"
        case .invalidExtendByDays: "`extendByDays` not 1–90"
        case .invalidExtendReasonCode: "`extendReasonCode` not 0–3"
        case .invalidRequestIdentifier: "`requestIdentifier` not 1–128 characters"
        case .startDateAfterEndDate: "`startDate` after `endDate`"
        case .invalidPaginationToken: "a notification history `paginationToken` this server did not give"
        case .invalidStartDate: "`startDate` missing (notification history) or not milliseconds"
        case .invalidEndDate: "`endDate` not milliseconds"
        case .invalidNotificationType: "a `notificationType` that is not one"
        case .invalidSort: "`sort` not ASCENDING or DESCENDING"
        case .invalidProductType: "`productType` not AUTO_RENEWABLE, NON_RENEWABLE, CONSUMABLE or NON_CONSUMABLE"
        case .invalidInAppOwnershipType: "`inAppOwnershipType` not PURCHASED or FAMILY_SHARED"
        case .invalidRevoked: "`revoked` not true or false"
        case .invalidStatus: "`status` not 1–5"
        case .invalidAccountTenure: "consumption `accountTenure` out of range"
        case .invalidAppAccountToken: "consumption `appAccountToken` not a UUID or empty"
        case .invalidConsumptionStatus: "consumption `consumptionStatus` out of range"
        case .invalidCustomerConsented: "consumption `customerConsented` not true"
        case .invalidDeliveryStatus: "consumption `deliveryStatus` out of range"
        case .invalidLifetimeDollarsPurchased: "consumption `lifetimeDollarsPurchased` out of range"
        case .invalidLifetimeDollarsRefunded: "consumption `lifetimeDollarsRefunded` out of range"
        case .invalidPlatform: "consumption `platform` out of range"
        case .invalidPlayTime: "consumption `playTime` out of range"
        case .invalidSampleContentProvided: "consumption `sampleContentProvided` not a boolean"
        case .invalidUserStatus: "consumption `userStatus` out of range"
        case .invalidTransactionNotConsumable: "consumption information for a transaction that is not a consumable (v1)"
        case .invalidImage:
            "Upload Image: not a PNG, a PNG that can be transparent, or a FULL_SIZE image not 3840 wide and 160–2160 high"
        case .headerTooLong: "Upload Message: `header` over 66 characters"
        case .bodyTooLong:
            "a request body over 1 MB (Storefront's own limit, status 413); Upload Message: `body` over 144 characters (status 400)"
        case .invalidLocale: "Configure Default Message: a locale that is not a language and region, as en-US"
        case .altTextTooLong: "Upload Message: an image's or a bullet point's `altText` over 150 characters"
        case .invalidPerformanceTestRequest:
            "Initiate Performance Test: `originalTransactionId` not an auto-renewable plan's original transaction"
        case .invalidPerformanceTestRequestID: "Get Performance Test Results: a `requestId` that is not a UUID"
        case .existingPerformanceTestRun: "Initiate Performance Test: a test is still running"
        case .invalidRealtimeURL: "Configure Realtime URL: `realtimeURL` not an http(s) URL of at most 256 characters"
        case .invalidImageSize:
            "Upload Image: `imageSize` not FULL_SIZE or BULLET_POINT; Upload Message: an image of the other size"
        case .tooManyBulletPoints: "Upload Message: more than 5 bullet points"
        case .bulletPointTextTooLong: "Upload Message: a bullet point's `text` over 66 characters"
        case .aboveImageRequiresAnImage: "Upload Message: `headerPosition` ABOVE_IMAGE without an image"
        case .maximumNumberOfImagesReached: "Upload Image: 2,000 images are uploaded already"
        case .messageNotApproved: "Configure Default Message: the message is not APPROVED"
        case .imageNotApproved: "Configure Default Message: the message's image is not APPROVED"
        case .imageInUse: "Delete Image: a message shows the image"
        case .imageNotFound: "no uploaded image with that identifier"
        case .messageNotFound: "no uploaded message with that identifier"
        case .performanceTestRunNotFound: "no performance test with that `requestId`"
        case .defaultMessageNotFound: "no default message for that product and locale"
        case .realtimeURLNotFound:
            "no realtime URL is configured (Get or Delete Realtime URL, Initiate Performance Test)"
        case .imageAlreadyExists: "Upload Image: an image with that identifier is uploaded already"
        case .messageAlreadyExists: "Upload Message: a message with that identifier is uploaded already"
        case .invalidAppAccountTokenUUID: "Set App Account Token: `appAccountToken` not a UUID"
        case .familyTransactionNotSupported: "Set App Account Token: a family member's (FAMILY_SHARED) transaction"
        case .transactionIDIsNotOriginalTransactionID:
            "Set App Account Token: a transaction that is not an original transaction"
        case .unauthorized:
            "no token, a forged or expired one, one living over 60 minutes, an unknown or revoked key, another bundle"
        case .subscriptionExtensionIneligible: "the plan cannot be extended now (no access, in billing retry)"
        case .subscriptionMaxExtension: "the plan was extended twice in the last 365 days"
        case .notFound: "no such route"
        case .originalTransactionIDNotFound: "no plan started by that original transaction id"
        case .testNotificationNotFound: "no test notification with that token"
        case .statusRequestNotFound: "no mass extension with that request identifier and product"
        case .transactionIDNotFound: "no transaction with that id"
        case .appTransactionDoesNotExist: "Get App Transaction Info: no customer with that transaction"
        case .generalInternal: "the store could not be read or written, or the server is stopping"
        }
    }
}

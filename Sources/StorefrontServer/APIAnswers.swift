// The App Store Server API's answers as Encodable types, named and shaped as Apple's
// app-store-server-library declares them (HistoryResponse, StatusResponse, …). They are written
// through the same encoder as the signed payloads (`PayloadFields` into `CompactJSON`): keys
// sorted, a nil optional left out, integers never booleans.
import Foundation
import StoreModel

/// An answer's body: the bytes `CompactJSON` writes for `value`.
extension APIResponse {
    static func json(_ value: some Encodable, status: Int = 200) -> APIResponse {
        APIResponse(status: status, body: Data(PayloadFields.compactJSON(value)))
    }
}

/// A refusal (Apple's ErrorPayload).
struct ErrorPayload: Encodable {
    var errorCode: Int
    var errorMessage: String
}

/// Get Transaction History (HistoryResponse).
struct HistoryResponse: Encodable {
    var bundleId: String
    var environment: String
    var appAppleId: Int64?
    var signedTransactions: [String]
    var revision: String
    var hasMore: Bool
}

/// Get All Subscription Statuses (StatusResponse).
struct StatusResponse: Encodable {
    struct LastTransactionsItem: Encodable {
        var status: Int
        var originalTransactionId: String
        var signedRenewalInfo: String
        var signedTransactionInfo: String?
    }
    struct SubscriptionGroupIdentifierItem: Encodable {
        var subscriptionGroupIdentifier: String
        var lastTransactions: [LastTransactionsItem]
    }
    var bundleId: String
    var environment: String
    var appAppleId: Int64?
    var data: [SubscriptionGroupIdentifierItem]
}

/// Get Refund History (RefundHistoryResponse).
struct RefundHistoryResponse: Encodable {
    var signedTransactions: [String]
    var revision: String
    var hasMore: Bool
}

/// Get Transaction Info (TransactionInfoResponse).
struct TransactionInfoResponse: Encodable {
    var signedTransactionInfo: String
}

/// Get App Transaction Info (AppTransactionInfoResponse).
struct AppTransactionInfoResponse: Encodable {
    var signedAppTransactionInfo: String
}

/// Look Up Order ID (OrderLookupResponse): status 0 valid, 1 invalid.
struct OrderLookupResponse: Encodable {
    var status: Int
    var signedTransactions: [String]
}

/// Request a Test Notification (SendTestNotificationResponse).
struct SendTestNotificationResponse: Encodable {
    var testNotificationToken: String
}

/// One notification with its attempts: Notification History's item (NotificationHistoryResponseItem)
/// and Get Test Notification Status (CheckTestNotificationResponse) share the shape.
struct NotificationHistoryResponseItem: Encodable {
    struct SendAttemptItem: Encodable {
        var attemptDate: Int64
        var sendAttemptResult: String
    }
    var signedPayload: String
    var sendAttempts: [SendAttemptItem]
}

/// Get Notification History (NotificationHistoryResponse).
struct NotificationHistoryResponse: Encodable {
    var notificationHistory: [NotificationHistoryResponseItem]
    var hasMore: Bool
    var paginationToken: String?
}

/// Extend a Subscription Renewal Date (ExtendRenewalDateResponse).
struct ExtendRenewalDateResponse: Encodable {
    var originalTransactionId: String
    var webOrderLineItemId: String
    var success: Bool
    var effectiveDate: Int64
}

/// Extend Renewal Dates for All Active Subscribers (MassExtendRenewalDateResponse).
struct MassExtendRenewalDateResponse: Encodable {
    var requestIdentifier: String
}

/// Get Status of Subscription Renewal Date Extensions (MassExtendRenewalDateStatusResponse).
struct MassExtendRenewalDateStatusResponse: Encodable {
    var requestIdentifier: String
    var complete: Bool
    var completeDate: Int64
    var succeededCount: Int
    var failedCount: Int
}

/// The Retention Messaging API's lists and single answers.
struct RetentionImageList: Encodable {
    struct Item: Encodable {
        var imageIdentifier: String
        var imageState: String
        var imageSize: String
    }
    var imageIdentifiers: [Item]
}

struct RetentionMessageList: Encodable {
    struct Item: Encodable {
        var messageIdentifier: String
        var messageState: String
    }
    var messageIdentifiers: [Item]
}

struct DefaultMessageResponse: Encodable {
    var messageIdentifier: String
}

struct RealtimeURLResponse: Encodable {
    var realtimeURL: String
}

/// Initiate Performance Test and its results (PerformanceTestConfig, PerformanceTestResponse,
/// PerformanceTestResultResponse).
struct PerformanceTestConfig: Encodable {
    var maxConcurrentRequests: Int
    var totalRequests: Int
    var totalDuration: Int
    var responseTimeThreshold: Int
    var successRateThreshold: Int
}

struct PerformanceTestResponse: Encodable {
    var config: PerformanceTestConfig
    var requestId: String
}

struct PerformanceTestResultResponse: Encodable {
    struct ResponseTimes: Encodable {
        var average, p50, p90, p95, p99: Int
    }
    var config: PerformanceTestConfig
    var target: String
    var result: String
    var numPending: Int
    var successRate: Int?
    var responseTimes: ResponseTimes?
    var failures: [String: Int]?
}

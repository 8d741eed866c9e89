// The App Store Server API: Test notifications and notification history (N6, V3).
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerAPI {
    /// Request a Test Notification, Get Test Notification Status, Get Notification History.
    static let notificationRoutes = APIArea(
        group: "inApps/v1/notifications",
        routes: [
            APIRoute(.post, "test") { api, _, _, _ in try api.requestTest() },
            APIRoute(.get, "test/:token") { api, _, path, _ in try api.testStatus(path.require("token")) },
            APIRoute(.post, "history") { api, request, _, _ in try api.notificationHistory(request) },
        ])

    func requestTest() throws(StoreError) -> APIResponse {
        let uuid = UUID().uuidString.lowercased()
        try server.enqueue([
            ServerNotification(key: "test:\(uuid)", account: "", type: "TEST", createdAt: clock.now(), uuid: uuid)
        ])
        deliver()
        return .json(
            SendTestNotificationResponse(testNotificationToken: "\(uuid)_\(SignedUnits.milliseconds(realNow()))"))
    }

    func testStatus(_ token: String) throws(StoreError) -> APIResponse {
        let uuid = String(token.prefix { $0 != "_" })
        guard !uuid.isEmpty,
            let notification = try server.notifications(account: nil).first(where: {
                $0.uuid == uuid && $0.type == "TEST"
            })
        else {
            return .error(APIErrorCode.testNotificationNotFound, "no test notification \(token)")
        }
        return .json(try historyItem(notification))
    }

    /// One notification as Notification History and Get Test Notification Status give it.
    func historyItem(_ notification: ServerNotification) throws(StoreError) -> NotificationHistoryResponseItem {
        var notification = notification
        if notification.signedPayload == nil {
            // As the courier signs it: at a moment the account's renewals have reached.
            let now = clock.now()
            if notification.group != nil { settle(notification.account) }
            notification.signedPayload = try NotificationCourier.sign(
                notification, server: server, catalog: catalog, authority: authority, identity: try identity(),
                now: now
            )
            try server.updateNotification(notification)
        }
        return NotificationHistoryResponseItem(
            signedPayload: notification.signedPayload ?? "",
            sendAttempts: notification.attempts.map { attempt in
                .init(attemptDate: SignedUnits.milliseconds(attempt.at), sendAttemptResult: Self.result(attempt))
            })
    }

    /// Apple's `sendAttemptResult` for an attempt, by the kind of failure it met.
    static func result(_ attempt: DeliveryAttempt) -> String {
        if attempt.status == 200 { return "SUCCESS" }
        if attempt.status != nil { return "UNSUCCESSFUL_HTTP_RESPONSE_CODE" }
        guard let problem = attempt.problem else { return legacyResult(attempt.error ?? "") }
        switch problem {
        case .timedOut: return "TIMED_OUT"
        case .refused, .unresolved: return "NO_RESPONSE"
        case .closed: return "PREMATURE_CLOSE"
        case .untrusted, .wrongHost, .notTLS, .tls, .caFile: return "TLS_ISSUE"
        case .unsupported, .answered, .failed: return "OTHER"
        }
    }

    /// An attempt an earlier version recorded kept only its words, which were its own and fixed
    /// (the socket client's "timed out …", "Connection refused", "cannot resolve …").
    static func legacyResult(_ words: String) -> String {
        if words.hasPrefix("timed out") { return "TIMED_OUT" }
        if words == "Connection refused" || words.hasPrefix("cannot resolve") { return "NO_RESPONSE" }
        return "OTHER"
    }

    /// Get Notification History: a body with startDate and endDate (ms), and optionally a type,
    /// subtype, transactionId or onlyFailures; 20 a page, `paginationToken` the next.
    func notificationHistory(_ request: APIRequest) throws(StoreError) -> APIResponse {
        guard let asked = request.decodedBody(NotificationHistoryRequest.self) else {
            return .error(APIErrorCode.generalBadRequest, "the body is not a JSON object")
        }
        guard let start = asked.startDate.value else {
            return .error(APIErrorCode.invalidStartDate, "startDate is required, in milliseconds since 1970")
        }
        guard let end = asked.endDate.value else {
            return .error(APIErrorCode.invalidEndDate, "endDate is required, in milliseconds since 1970")
        }
        if start > end { return .error(APIErrorCode.startDateAfterEndDate, "startDate is after endDate") }
        var notifications = try server.notifications(account: nil).filter {
            let at = SignedUnits.milliseconds($0.createdAt)
            return at >= start && at < end
        }
        if asked.notificationType.isSent {
            let type = asked.notificationType.value ?? ""
            guard !type.isEmpty, type.allSatisfy({ $0.isUppercase || $0 == "_" }) else {
                return .error(APIErrorCode.invalidNotificationType, "\"\(type)\" is not a notification type")
            }
            notifications = notifications.filter { $0.type == type }
        }
        if let subtype = asked.notificationSubtype.value {
            notifications = notifications.filter { $0.subtype == subtype }
        }
        if asked.transactionId.isSent {
            let id = asked.transactionId.value ?? ""
            guard Self.isTransactionID(id) else {
                return .error(APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id")
            }
            notifications = notifications.filter { $0.transactionID == id }
        }
        if asked.onlyFailures.value == true {
            notifications = notifications.filter { $0.state != .delivered }
        }
        guard let (page, next, hasMore) = Self.page(notifications, token: request.value("paginationToken")) else {
            return .error(APIErrorCode.invalidPaginationToken, "the pagination token is not one this server gave")
        }
        return .json(
            NotificationHistoryResponse(
                notificationHistory: try page.map { notification throws(StoreError) in try historyItem(notification) },
                hasMore: hasMore, paginationToken: hasMore ? next : nil))
    }
}

// Delivers the outbox (N3–N5): each due notification is signed once (its payload then kept, so
// that a retry sends the same bytes with the same UUID), POSTed to the webhook with a short
// timeout, and recorded: a 200 is delivered, anything else waits for the next attempt of Apple's
// schedule on the store clock, then fails. One deliverer at a time per state folder (a lock file
// taken without waiting: a busy deliverer is left to it). Nothing here can fail a purchase: the
// purchase was committed before delivery starts.
import Foundation
import StoreModel

/// POSTs a JSON body; the HTTP status, or why there is none.
public protocol WebhookPosting: Sendable {
    func post(_ body: Data, to url: URL, timeout: TimeInterval) -> Result<Int, HTTPProblem>
}

public struct DeliveryReport: Sendable, Equatable {
    public var delivered: [String] = []
    public var retrying: [String] = []
    public var failed: [String] = []
    /// Another process was delivering: nothing was tried.
    public var busy = false

    public var isEmpty: Bool { delivered.isEmpty && retrying.isEmpty && failed.isEmpty }
}

public final class NotificationCourier: Sendable {
    let outbox: any DeliveryQueue
    /// What a notification's signed data is built from.
    let records: any AccountServer
    let authority: CertificateAuthority
    let catalog: Catalog
    let clock: any StoreClock
    let lockPath: String
    let poster: any WebhookPosting
    let timeout: TimeInterval
    let crashPoints: @Sendable (CrashPoint) throws(StoreError) -> Void
    /// Writes the renewals the clock has passed for an account (a team server's settling); a
    /// plan's notification is signed only after them, so its status is the one a read would see.
    let settle: @Sendable (String) -> Void

    init(
        outbox: any DeliveryQueue, records: any AccountServer, authority: CertificateAuthority, catalog: Catalog,
        clock: any StoreClock, lockPath: String,
        poster: any WebhookPosting, timeout: TimeInterval,
        crashPoints: @escaping @Sendable (CrashPoint) throws(StoreError) -> Void,
        settle: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.outbox = outbox
        self.records = records
        self.authority = authority
        self.catalog = catalog
        self.clock = clock
        self.lockPath = lockPath
        self.poster = poster
        self.timeout = timeout
        self.crashPoints = crashPoints
        self.settle = settle
    }

    /// Attempts every notification that is due, if a webhook is set and nobody else is delivering,
    /// until `stop` says to stop (asked before each one: those left are due the next time).
    @discardableResult
    public func deliverDue(until stop: () -> Bool = { false }) throws(StoreError) -> DeliveryReport {
        try deliverDue(to: try outbox.webhook(), until: stop)
    }

    /// The same, to a webhook the caller has just read.
    func deliverDue(to webhook: Webhook?, until stop: () -> Bool = { false }) throws(StoreError) -> DeliveryReport {
        guard let webhook, let url = URL(string: webhook.url) else { return DeliveryReport() }
        let now = clock.now()
        guard let lock = TryLock(path: lockPath) else { return DeliveryReport(busy: true) }
        defer { lock.release() }
        var report = DeliveryReport()
        let identity = try identity()
        // Read under the lock: another deliverer may have just sent some.
        for var notification in try outbox.dueNotifications(at: now) {
            if stop() { break }
            if notification.signedPayload == nil {
                // Kept with the attempt's outcome, in one write: a crash before that write signs
                // it again next time (the same UUID; only the signature's bytes differ).
                notification.signedPayload = try signedPayload(notification, identity: identity)
                try crashPoints(.notificationSigned)
            }
            let body = Data(#"{"signedPayload":"\#(notification.signedPayload ?? "")"}"#.utf8)
            let posted = poster.post(body, to: url, timeout: timeout)
            if case .success(200) = posted { try crashPoints(.notificationPosted) }
            let attempt =
                switch posted {
                case .success(let status): DeliveryAttempt(at: clock.now(), status: status)
                case .failure(let problem): DeliveryAttempt(at: clock.now(), problem: problem)
                }
            notification.attempts.append(attempt)
            if attempt.succeeded {
                notification.state = .delivered
                notification.nextAttemptAt = nil
                report.delivered.append(notification.uuid)
            } else if let next = NotificationRules.nextAttempt(after: notification.attempts, once: webhook.once) {
                notification.nextAttemptAt = next
                report.retrying.append(notification.uuid)
            } else {
                notification.state = .failed
                notification.nextAttemptAt = nil
                report.failed.append(notification.uuid)
            }
            try outbox.updateNotification(notification)
        }
        return report
    }

    /// The notification's `signedPayload` JWS, as it will be sent.
    public func signedPayload(_ notification: ServerNotification) throws(StoreError) -> String {
        try signedPayload(notification, identity: identity())
    }

    private func identity() throws(StoreError) -> AppIdentity {
        try AppIdentity.current(server: records, catalog: catalog)
    }

    func signedPayload(_ notification: ServerNotification, identity: AppIdentity) throws(StoreError) -> String {
        if let signed = notification.signedPayload { return signed }
        // Signed as of a moment the account's renewals have reached: the time is read before
        // settling, so a clock moved on meanwhile cannot show a period ended and not yet renewed.
        let now = clock.now()
        if notification.group != nil { settle(notification.account) }
        return try Self.sign(
            notification, server: records, catalog: catalog, authority: authority, identity: identity, now: now)
    }

    /// Signs a notification as it is sent (and as the Server API's histories show it): its data
    /// built from the account server's records at `now`.
    package static func sign(
        _ notification: ServerNotification, server: any AccountServer, catalog: Catalog,
        authority: CertificateAuthority,
        identity: AppIdentity, now: Date
    ) throws(StoreError) -> String {
        let builder = PayloadBuilder(
            catalog: try catalog.priced(by: server), identity: identity, now: now, account: notification.account,
            appTransactionID: try server.appTransactionID(account: notification.account),
            appAccountTokens: try server.appAccountTokens()
        )
        // A plan's notification needs its plan lines (original purchases, refunds, upgrades); a
        // one-time charge only its own line.
        let receipt: [ReceiptEntry]
        if notification.account.isEmpty {
            receipt = []
        } else if notification.type == "RESCIND_CONSENT" {
            // The customer's app transaction, whose original purchase date is their first purchase.
            receipt = try server.receipt(account: notification.account)
        } else if notification.group != nil {
            receipt = try server.planLines(account: notification.account)
        } else {
            // A refund request, decline or reversal (O7) reports the purchase it is about, and the
            // purchase's signed form says whether it stands revoked.
            let line = try notification.transactionID.flatMap { id throws(StoreError) in
                try server.receiptEntry(transactionID: id)
            }
            if let line, let reference = line.reference, line.event != .purchase {
                receipt = try server.receipt(account: notification.account).filter {
                    $0.transactionID == reference || $0.reference == reference
                }
            } else {
                receipt = line.map { [$0] } ?? []
            }
        }
        let plan = try notification.group.flatMap { group throws(StoreError) in
            try server.plans(account: notification.account)[group].map { PlanStatus($0, catalog: catalog, now: now) }
        }
        let payload = try builder.notification(notification, receipt: receipt, plan: plan) {
            payload throws(StoreError) in
            try authority.sign(payload)
        }
        return try authority.sign(payload)
    }
}

/// An exclusive lock taken only if it is free (flock, LOCK_NB).
final class TryLock {
    private let descriptor: Int32

    init?(path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

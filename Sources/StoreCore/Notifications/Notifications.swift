// The notifications role (N3, N6, N7): the webhook, the history of every notification, resending,
// TEST notifications, and delivery through a courier.
import Foundation
import StoreModel

public final class Notifications: SessionRole {
    let session: DeviceSession
    /// How long a POST may take before it counts as a failed attempt (N5).
    public var timeout: TimeInterval = 2
    public var poster: any WebhookPosting = WebhookPoster()

    init(session: DeviceSession) { self.session = session }

    public func webhook() throws(StoreError) -> Webhook? { try outbox.webhook() }
    public func setWebhook(_ webhook: Webhook?) throws(StoreError) { try outbox.setWebhook(webhook) }

    /// Every notification of the state folder, oldest first.
    public func all() throws(StoreError) -> [ServerNotification] { try outbox.notifications(account: nil) }

    /// One by its UUID or a unique prefix of 4+ characters.
    public func notification(_ id: String) throws(StoreError) -> ServerNotification {
        let all = try all()
        if let exact = all.first(where: { $0.uuid == id }) { return exact }
        let matches = id.count >= 4 ? all.filter { $0.uuid.hasPrefix(id.lowercased()) } : []
        guard matches.count == 1 else {
            if matches.count > 1 { throw StoreError.ambiguousTransaction(id, matches: matches.map(\.uuid)) }
            throw StoreError.unknownNotification(id)
        }
        return matches[0]
    }

    /// Apple's "Request a Test Notification": a TEST notification, delivered like any other.
    @discardableResult
    public func test() throws(StoreError) -> ServerNotification {
        let uuid = UUID().uuidString.lowercased()
        let notification = ServerNotification(
            key: "test:\(uuid)", account: try currentUser() ?? "", type: "TEST", createdAt: now(), uuid: uuid)
        // A team server makes its own (W9): the one it wrote is the one to show.
        return try outbox.enqueue([notification]).first ?? notification
    }

    /// Sends one again, with its UUID and payload, at the next delivery.
    @discardableResult
    public func resend(_ id: String) throws(StoreError) -> ServerNotification {
        let outbox = try deliveryQueue(for: "resend a notification")
        var notification = try notification(id)
        notification.state = .pending
        notification.nextAttemptAt = now()
        try outbox.updateNotification(notification)
        return notification
    }

    /// The notification's signed payload (made now and kept if it has none yet); on a team, the
    /// server's (S1).
    public func signedPayload(_ notification: ServerNotification) throws(StoreError) -> String {
        if let signed = notification.signedPayload { return signed }
        switch keeper {
        case .team(let team):
            guard !notification.account.isEmpty,
                let signed = try team.signed([.notification(uuid: notification.uuid)], account: notification.account)
                    .first ?? nil
            else {
                throw StoreError.unknownNotification(notification.uuid)
            }
            return signed
        case .here(let keeper):
            var updated = notification
            let signed = try courier(keeper).signedPayload(notification)
            updated.signedPayload = signed
            try keeper.updateNotification(updated)
            return signed
        }
    }

    /// The outbox this process delivers; a team device's is the server's to deliver.
    private func deliveryQueue(for action: String) throws(StoreError) -> any RecordKeeping {
        switch keeper {
        case .here(let keeper): return keeper
        case .team(let team): throw StoreError.serverKeeps(server: team.location, action: action)
        }
    }

    /// A courier for this state folder; it holds nothing of the device, so the screen may run it
    /// on a thread of its own.
    /// `settle` writes an account's due renewals before its plan's notification is signed: a
    /// server's courier signs on a thread of its own while the developer moves the clock.
    public func courier(settle: @escaping @Sendable (String) -> Void = { _ in }) throws(StoreError)
        -> NotificationCourier
    {
        try courier(try deliveryQueue(for: "deliver notifications"), settle: settle)
    }

    private func courier(_ keeper: any RecordKeeping, settle: @escaping @Sendable (String) -> Void = { _ in })
        throws(StoreError) -> NotificationCourier
    {
        let hook = session.crashPoints
        let box = CrashHookBox(hook)
        return NotificationCourier(
            outbox: keeper, records: keeper, authority: try session.authority(), catalog: catalog, clock: session.clock,
            lockPath: session.stateDirectory.url.appendingPathComponent("notifications.lock").path, poster: poster,
            timeout: timeout, crashPoints: { point throws(StoreError) in try box.call(point) }, settle: settle
        )
    }

    /// Delivers what is due now (N3): by the command that made it, the screen's tick, or
    /// `storefront notifications deliver`.
    @discardableResult
    public func deliverDue() throws(StoreError) -> DeliveryReport {
        // A team's server delivers its own. Most commands have no webhook to send to: look before
        // opening the authority.
        guard case .here(let keeper) = keeper, let webhook = try keeper.webhook() else {
            return DeliveryReport()
        }
        return try courier(keeper).deliverDue(to: webhook)
    }
}

/// The device's crash hook, carried into a courier that may outlive the call that made it.
private final class CrashHookBox: @unchecked Sendable {
    let hook: (CrashPoint) throws(StoreError) -> Void
    init(_ hook: @escaping (CrashPoint) throws(StoreError) -> Void) { self.hook = hook }
    func call(_ point: CrashPoint) throws(StoreError) { try hook(point) }
}

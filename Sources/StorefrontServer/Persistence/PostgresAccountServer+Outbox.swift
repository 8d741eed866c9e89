// The notifications outbox (N1–N7) in PostgreSQL, and the webhook it delivers to.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: DeliveryQueue {
    func insert(_ connection: PostgresConnection, _ notification: ServerNotification) throws -> Bool {
        try !query(
            connection,
            """
            INSERT INTO notification (uuid, eventKey, accountKey, state, nextAttemptAt, value)
            VALUES (
                \(notification.uuid), \(notification.key), \(Self.key(notification.account)), \(notification.state.rawValue),
                \(notification.nextAttemptAt.map(Self.seconds)), \(Self.json(notification))
            )
            ON CONFLICT DO NOTHING RETURNING uuid
            """
        ).isEmpty
    }

    func notifications(_ rows: [PostgresRow]) throws -> [ServerNotification] {
        try rows.map { try Self.decode(ServerNotification.self, $0, "value", of: "notification") }
    }

    @discardableResult
    public func enqueue(_ notifications: [ServerNotification]) throws(StoreError) -> [ServerNotification] {
        guard !notifications.isEmpty else { return [] }
        return try transaction { connection in try notifications.filter { try insert(connection, $0) } }
    }

    public func hasNotification(key: String) throws(StoreError) -> Bool {
        try read { connection in try !query(connection, "SELECT uuid FROM notification WHERE eventKey = \(key)").isEmpty
        }
    }

    public func notifications(account: String?) throws(StoreError) -> [ServerNotification] {
        try read { connection in
            if let account {
                return try notifications(
                    query(
                        connection,
                        """
                        SELECT value FROM notification
                        WHERE accountKey = \(Self.key(account))
                        ORDER BY sequence
                        """
                    ))
            }
            return try notifications(query(connection, "SELECT value FROM notification ORDER BY sequence"))
        }
    }

    public func dueNotifications(at now: Date) throws(StoreError) -> [ServerNotification] {
        try read { connection in
            try notifications(
                query(
                    connection,
                    """
                    SELECT value FROM notification
                    WHERE state = 'pending' AND nextAttemptAt <= \(Self.seconds(now))
                    ORDER BY sequence
                    """
                ))
        }
    }

    public func updateNotification(_ notification: ServerNotification) throws(StoreError) {
        try transaction { connection in
            try query(
                connection,
                """
                UPDATE notification SET state = \(notification.state.rawValue), nextAttemptAt = \(notification.nextAttemptAt.map(Self.seconds)),
                value = \(Self.json(notification)) WHERE uuid = \(notification.uuid)
                """
            )
        }
    }

    public func webhook() throws(StoreError) -> Webhook? { try setting("webhook") }

    public func setWebhook(_ webhook: Webhook?) throws(StoreError) { try setSetting("webhook", webhook) }
}

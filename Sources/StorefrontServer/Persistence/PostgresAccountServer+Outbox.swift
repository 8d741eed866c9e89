// The notifications outbox (N1–N7) in PostgreSQL, and the webhook it delivers to.
import Foundation
import PostgresNIO
import StoreCore

extension PostgresAccountServer: Outbox {
    func insert(_ connection: PostgresConnection, _ notification: ServerNotification) throws -> Bool {
        try !query(
            connection, """
                INSERT INTO notification (uuid, eventKey, accountKey, state, nextAttemptAt, value) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT DO NOTHING RETURNING uuid
                """,
            [Self.text(notification.uuid), Self.text(notification.key), Self.key(notification.account), Self.text(notification.state.rawValue),
             notification.nextAttemptAt.map(Self.seconds) ?? PostgresData.null, try Self.json(notification)]
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
        try read { connection in try !query(connection, "SELECT uuid FROM notification WHERE eventKey = $1", [Self.text(key)]).isEmpty }
    }

    public func notifications(account: String?) throws(StoreError) -> [ServerNotification] {
        try read { connection in
            if let account {
                return try notifications(query(connection, "SELECT value FROM notification WHERE accountKey = $1 ORDER BY sequence", [Self.key(account)]))
            }
            return try notifications(query(connection, "SELECT value FROM notification ORDER BY sequence"))
        }
    }

    public func dueNotifications(at now: Date) throws(StoreError) -> [ServerNotification] {
        try read { connection in
            try notifications(query(
                connection, "SELECT value FROM notification WHERE state = 'pending' AND nextAttemptAt <= $1 ORDER BY sequence", [Self.seconds(now)]
            ))
        }
    }

    public func updateNotification(_ notification: ServerNotification) throws(StoreError) {
        try transaction { connection in
            try query(
                connection, "UPDATE notification SET state = $2, nextAttemptAt = $3, value = $4 WHERE uuid = $1",
                [Self.text(notification.uuid), Self.text(notification.state.rawValue),
                 notification.nextAttemptAt.map(Self.seconds) ?? PostgresData.null, try Self.json(notification)]
            )
        }
    }

    public func webhook() throws(StoreError) -> Webhook? { try setting("webhook") }

    public func setWebhook(_ webhook: Webhook?) throws(StoreError) { try setSetting("webhook", webhook) }
}

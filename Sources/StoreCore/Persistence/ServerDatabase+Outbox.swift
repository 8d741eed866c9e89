// The account server's outbox of App Store Server Notifications (N2): written in the transaction
// that records the line it reports, read and updated by whoever delivers.
import Foundation
import GRDB
import StoreModel

struct NotificationRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "notification"
    enum Columns {
        static let uuid = Column("uuid"), key = Column("eventKey"), account = Column("account"), state = Column("state")
        static let nextAttemptAt = Column("nextAttemptAt")
    }
    var notification: ServerNotification

    init(_ notification: ServerNotification) { self.notification = notification }

    init(row: Row) throws {
        let table = Self.databaseTableName
        notification = ServerNotification(
            key: try row.text("eventKey", of: table), account: try row.text("account", of: table),
            type: try row.text("type", of: table),
            subtype: try row.optionalText("subtype", of: table),
            transactionID: try row.optionalText("transactionID", of: table),
            group: try row.optionalText("groupID", of: table), createdAt: try row.date("createdAt", of: table),
            uuid: try row.text("uuid", of: table)
        )
        notification.state = try row.stored("state", of: table)
        notification.attempts = try row.storedJSON("attempts", of: table, dates: .unixSeconds)
        notification.nextAttemptAt = try row.optionalDate("nextAttemptAt", of: table)
        notification.signedPayload = try row.optionalText("signedPayload", of: table)
        notification.summary = try row.optionalText("summary", of: table)
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["uuid"] = notification.uuid
        container["eventKey"] = notification.key
        container["account"] = notification.account
        container["type"] = notification.type
        container["subtype"] = notification.subtype
        container["transactionID"] = notification.transactionID
        container["groupID"] = notification.group
        container["createdAt"] = notification.createdAt.storeSeconds
        container["state"] = notification.state.rawValue
        container["attempts"] = try StoredJSON.text(notification.attempts, dates: .unixSeconds)
        container["nextAttemptAt"] = notification.nextAttemptAt?.storeSeconds
        container["signedPayload"] = notification.signedPayload
        container["summary"] = notification.summary
    }
}

extension ServerDatabase: DeliveryQueue {
    static func registerNotifications(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4: notifications") { db in
            try db.execute(
                sql: """
                    CREATE TABLE notification (
                        uuid TEXT PRIMARY KEY,
                        eventKey TEXT NOT NULL UNIQUE,
                        account TEXT NOT NULL COLLATE NOCASE,
                        type TEXT NOT NULL,
                        subtype TEXT,
                        transactionID TEXT,
                        groupID TEXT,
                        createdAt INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        attempts TEXT NOT NULL,
                        nextAttemptAt INTEGER,
                        signedPayload TEXT
                    );
                    CREATE INDEX notificationDue ON notification(state, nextAttemptAt);
                    """)
        }
        migrator.registerMigration("v5: mass extension summaries") { db in
            try db.execute(sql: "ALTER TABLE notification ADD COLUMN summary TEXT")
        }
        migrator.registerMigration("v6: served requests") { db in
            try db.execute(
                sql: """
                    CREATE TABLE request (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        at INTEGER NOT NULL,
                        method TEXT NOT NULL,
                        path TEXT NOT NULL,
                        status INTEGER NOT NULL,
                        milliseconds INTEGER NOT NULL
                    );
                    """)
        }
    }

    /// Adds notifications that are not there yet (by their event); returns the ones added.
    @discardableResult
    public func enqueue(_ notifications: [ServerNotification]) throws(StoreError) -> [ServerNotification] {
        guard !notifications.isEmpty else { return [] }
        return try write { db in
            var added: [ServerNotification] = []
            for notification in notifications {
                try NotificationRecord(notification).insert(db, onConflict: .ignore)
                if db.changesCount == 1 { added.append(notification) }
            }
            return added
        }
    }

    public func hasNotification(key: String) throws(StoreError) -> Bool {
        try read { db in try NotificationRecord.filter(NotificationRecord.Columns.key == key).fetchCount(db) > 0 }
    }

    /// Every notification, oldest first; one account's when `account` is given.
    public func notifications(account: String?) throws(StoreError) -> [ServerNotification] {
        try read { db in
            var request = NotificationRecord.all()
            if let account { request = request.filter(NotificationRecord.Columns.account == account) }
            return try request.order(Column.rowID).fetchAll(db).map(\.notification)
        }
    }

    /// Pending notifications whose next attempt is due at `now` (store clock), oldest first.
    public func dueNotifications(at now: Date) throws(StoreError) -> [ServerNotification] {
        try read { db in
            try NotificationRecord.filter(
                NotificationRecord.Columns.state == ServerNotification.State.pending.rawValue
                    && NotificationRecord.Columns.nextAttemptAt <= now.storeSeconds
            ).order(Column.rowID).fetchAll(db).map(\.notification)
        }
    }

    /// A delivery attempt's outcome is written without its own fsync: losing it to a power cut
    /// means sending the notification again, which N4 allows.
    public func updateNotification(_ notification: ServerNotification) throws(StoreError) {
        try lightWrite { db in try NotificationRecord(notification).update(db) }
    }

    public func webhook() throws(StoreError) -> Webhook? { try setting(SettingRecord.webhook) }
    public func setWebhook(_ webhook: Webhook?) throws(StoreError) {
        if let webhook {
            try setSetting(SettingRecord.webhook, webhook)
        } else {
            try removeSetting(SettingRecord.webhook)
        }
    }
}

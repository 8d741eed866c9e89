// App Store Server Notifications on the command line (N3, N6): the webhook, the history of every
// notification with its attempts, resending, TEST, and delivering now.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct WebhookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook",
        abstract: "Where App Store Server Notifications V2 are POSTed (App Store Connect's server URL).",
        subcommands: [Show.self, Set.self, Off.self],
        defaultSubcommand: Show.self
    )

    private struct Shown: Encodable {
        var url: String?
        var once: Bool
    }

    static func show(_ context: Context) throws {
        let webhook = try context.store.notifications.webhook()
        output(
            context,
            json: Shown(url: webhook?.url, once: webhook?.once ?? false),
            text: webhook.map {
                "\($0.url)\($0.once ? " (one attempt, as the sandbox)" : " (retried 1, 12, 24, 48 and 72 hours after the first attempt)")"
            }
                ?? "no webhook: notifications are kept, not sent (`storefront webhook set URL`)"
        )
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The webhook, if one is set.")
        @OptionGroup var common: CommonOptions
        func run() throws { try perform(common) { try WebhookCommand.show($0) } }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "POST notifications to URL; pending ones go at once.")
        @Argument(
            help:
                "An http:// or https:// URL, such as http://127.0.0.1:8000/apple (HOST:PORT/PATH alone is http://; https:// trusts the system's CAs and $STOREFRONT_CA_FILE)."
        ) var url: String
        @Flag(help: "One attempt per notification, as the sandbox does, instead of production's retries.") var once =
            false
        @OptionGroup var common: CommonOptions

        func run() throws {
            try reportingFailures {
                guard let url = Webhook.url(from: url) else {
                    throw CommandFailure(
                        message:
                            "\"\(url)\" is not an http:// or https:// URL with a host (such as http://127.0.0.1:8000/apple)",
                        status: 2)
                }
                try perform(common) { context in
                    try context.store.notifications.setWebhook(Webhook(url: url, once: once))
                    try WebhookCommand.show(context)
                }
            }
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop sending; notifications are still written and kept.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                try context.store.notifications.setWebhook(nil)
                try WebhookCommand.show(context)
            }
        }
    }
}

struct NotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Every App Store Server Notification the store wrote, with its delivery state and attempts (N6).",
        subcommands: [List.self, Show.self, Deliver.self, Resend.self, Test.self],
        defaultSubcommand: List.self
    )

    /// A notification as `--json` writes it, with its delivery state and attempts.
    struct Output: Encodable {
        struct Attempt: Encodable {
            var at: String?
            var status: Int?
            var error: String?
        }

        var uuid, type: String
        var subtype: String?
        var state, account: String
        var transactionId, createdAt, nextAttemptAt: String?
        var attempts: [Attempt]
        var signedPayload: String?

        init(_ notification: ServerNotification, _ context: Context, payload: String? = nil) {
            uuid = notification.uuid
            type = notification.type
            subtype = notification.subtype
            state = notification.state.rawValue
            account = notification.account
            transactionId = notification.transactionID
            createdAt = context.dateText(notification.createdAt)
            nextAttemptAt = context.dateText(notification.nextAttemptAt)
            attempts = notification.attempts.map {
                Attempt(at: context.dateText($0.at), status: $0.status, error: $0.error)
            }
            signedPayload = payload ?? notification.signedPayload
        }
    }

    /// Delivers what is due, then shows where `notification` stands.
    static func deliverAndShow(_ notification: ServerNotification, _ context: Context) throws {
        try context.store.notifications.deliverDue()
        let now = try context.store.notifications.notification(notification.uuid)
        output(context, json: Output(now, context), text: line(now, context))
    }

    static func line(_ notification: ServerNotification, _ context: Context) -> String {
        let last =
            notification.attempts.last.map { attempt in
                " · \(notification.attempts.count) attempt(s), last "
                    + (attempt.status.map { "HTTP \($0)" } ?? attempt.error ?? "no answer")
            } ?? ""
        let next =
            notification.state == .pending
            ? notification.nextAttemptAt.map { " · next \(context.isoText($0))" } ?? "" : ""
        return
            "\(notification.uuid.prefix(8))  \(context.isoText(notification.createdAt))  \(notification.title)  \(notification.state.rawValue)\(last)\(next)"
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every notification, oldest first.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                let all = try context.store.notifications.all()
                output(
                    context, json: all.map { NotificationsCommand.Output($0, context) },
                    text: all.isEmpty
                        ? "no notifications"
                        : all.map { NotificationsCommand.line($0, context) }.joined(separator: "\n"))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One notification: its attempts, its signedPayload and that payload decoded.")
        @Argument(help: "The UUID, or a unique prefix of 4+ characters.") var uuid: String
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                let notification = try context.store.notifications.notification(uuid)
                let payload = try context.store.notifications.signedPayload(notification)
                let decoded = try? JWS.decode(payload)
                struct Shown: Encodable {
                    var notification: NotificationsCommand.Output
                    /// The signed payload, decoded.
                    var payload: Omitted<JSON>
                }
                output(
                    context,
                    json: Shown(
                        notification: NotificationsCommand.Output(notification, context, payload: payload),
                        payload: Omitted(decoded.map { foundationJSON($0.payload) })),
                    text: NotificationsCommand.line(notification, context) + "\n\n\(payload)\n\n"
                        + (decoded.map { foundationJSON($0.payload).rendered() } ?? ""))
            }
        }
    }

    struct Deliver: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "POST every notification that is due now to the webhook.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                struct Delivered: Encodable {
                    var delivered, retrying, failed: [String]
                    var busy: Bool
                }
                let report = try context.store.notifications.deliverDue()
                output(
                    context,
                    json: Delivered(
                        delivered: report.delivered, retrying: report.retrying, failed: report.failed,
                        busy: report.busy),
                    text: report.busy
                        ? "another process is delivering"
                        : "\(report.delivered.count) delivered, \(report.retrying.count) to retry, \(report.failed.count) failed"
                )
            }
        }
    }

    struct Resend: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a notification again (same UUID, same payload).")
        @Argument(help: "The UUID, or a unique prefix of 4+ characters.") var uuid: String
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                try NotificationsCommand.deliverAndShow(try context.store.notifications.resend(uuid), context)
            }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apple's \"Request a Test Notification\": a TEST notification, sent now.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                try NotificationsCommand.deliverAndShow(try context.store.notifications.test(), context)
            }
        }
    }
}

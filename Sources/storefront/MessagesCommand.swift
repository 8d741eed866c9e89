// `storefront messages` (M1): the App Store's review of retention messages and images, played by
// the developer. Uploads through the Retention Messaging API start PENDING; `approve` and `reject`
// decide them, and `review at-once` makes the server approve every upload as it arrives.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct MessagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract:
            "Retention messages and images uploaded through the Retention Messaging API: list them, approve or reject them as App Review would.",
        subcommands: [List.self, Approve.self, Reject.self, Review.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The messages, images, default messages and realtime URL, with their states.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                let setup = try context.store.server.retentionSetup()
                var lines = setup.messages.map { message in
                    "message \(message.id)  \(message.state.rawValue)  \"\(message.header)\""
                        + (message.imageID.map { "  image \($0)" } ?? "")
                }
                lines += setup.images.map {
                    "image   \($0.id)  \($0.state.rawValue)  \($0.size) \($0.width)×\($0.height)"
                }
                lines += setup.defaults.sorted { $0.key < $1.key }.map {
                    "default \($0.key.replacingOccurrences(of: " ", with: " in ")): message \($0.value)"
                }
                lines.append(
                    "realtime URL: "
                        + (setup.realtimeURLs.isEmpty
                            ? "none"
                            : setup.realtimeURLs.sorted { $0.key < $1.key }.map { "\($0.value) (\($0.key))" }.joined(
                                separator: ", ")))
                lines.append(
                    "review: "
                        + (setup.approvesAtOnce
                            ? "uploads are approved at once" : "uploads wait for `storefront messages approve ID`"))
                output(context, json: Setup(setup), text: lines.joined(separator: "\n"))
            }
        }

        /// The retention setup as `--json` writes it.
        struct Setup: Encodable {
            struct Message: Encodable {
                var id, state, header, body: String
                var image: String?
            }

            struct Image: Encodable {
                var id, state, size: String
            }

            var messages: [Message]
            var images: [Image]
            var defaults, realtimeURLs: SortedFields<String>
            var approvesAtOnce: Bool

            init(_ setup: RetentionSetup) {
                messages = setup.messages.map {
                    Message(id: $0.id, state: $0.state.rawValue, header: $0.header, body: $0.body, image: $0.imageID)
                }
                images = setup.images.map { Image(id: $0.id, state: $0.state.rawValue, size: $0.size) }
                defaults = SortedFields(setup.defaults)
                realtimeURLs = SortedFields(setup.realtimeURLs)
                approvesAtOnce = setup.approvesAtOnce
            }
        }
    }

    struct Approve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve an uploaded message or image: customers may be shown it.")
        @Argument(help: "The message's or the image's identifier (a UUID).") var id: String
        @OptionGroup var common: CommonOptions
        func run() throws { try decide(id, .approved, common) }
    }

    struct Reject: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reject an uploaded message or image: customers see the default message instead.")
        @Argument(help: "The message's or the image's identifier (a UUID).") var id: String
        @OptionGroup var common: CommonOptions
        func run() throws { try decide(id, .rejected, common) }
    }

    struct Review: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "How uploads are reviewed: `at-once` approves each as it arrives, `by-hand` leaves it PENDING for approve or reject."
        )
        @Argument(help: "at-once or by-hand.") var mode: String
        @OptionGroup var common: CommonOptions

        func validate() throws {
            guard ["at-once", "by-hand"].contains(mode) else {
                throw ValidationError("review is at-once or by-hand, not \"\(mode)\"")
            }
        }

        func run() throws {
            try perform(common) { context in
                struct Reviewed: Encodable { var approvesAtOnce: Bool }
                let atOnce = mode == "at-once"
                try context.store.server.changeRetention { (setup: inout RetentionSetup) in
                    setup.approvesAtOnce = atOnce
                }
                output(
                    context, json: Reviewed(approvesAtOnce: atOnce),
                    text: atOnce
                        ? "uploads are approved as they arrive" : "uploads wait for `storefront messages approve ID`")
            }
        }
    }

    /// Sets the state of the message or image `given` names; one clear line when it names none.
    static func decide(_ given: String, _ state: ReviewState, _ common: CommonOptions) throws {
        try perform(common) { context in
            guard let id = UUID(uuidString: given)?.uuidString.lowercased() else {
                throw CommandFailure(
                    message: "\"\(given)\" is not a message's or an image's identifier (a UUID)", status: 2)
            }
            let kind = try context.store.server.changeRetention { (setup: inout RetentionSetup) -> String? in
                if let index = setup.messages.firstIndex(where: { $0.id == id }) {
                    setup.messages[index].state = state
                    return "message"
                }
                if let index = setup.images.firstIndex(where: { $0.id == id }) {
                    setup.images[index].state = state
                    return "image"
                }
                return nil
            }
            struct Decided: Encodable { var id, kind, state: String }
            guard let kind else {
                throw CommandFailure(
                    message: "no uploaded message or image \(id) (`storefront messages` lists them)", status: 2)
            }
            output(
                context,
                json: Decided(id: id, kind: kind, state: state.rawValue),
                text: "\(kind) \(id): \(state.rawValue)")
        }
    }
}

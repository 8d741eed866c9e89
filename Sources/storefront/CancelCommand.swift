// `storefront cancel P` (M2): the customer opens their subscription to cancel it. The App Store
// first asks the developer's Get Retention Message endpoint what to show (or shows the default
// message), then the customer cancels, or with --accept-retention takes the plan or the offer shown.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Turn auto-renew off for the plan of PRODUCT's group (access continues to the end of the period), after the retention message the developer's endpoint chooses.",
        discussion:
            "With a realtime URL configured (Retention Messaging API), the endpoint is asked first and what it chose is shown: a message, an alternate plan or a promotional offer; on a failure, a timeout or an unapproved message, the default message for the product and locale. --accept-retention takes the plan or the offer instead of cancelling."
    )
    @Argument(help: "Any product of the plan's subscription group, by id or title.") var product: String
    @Flag(
        name: .customLong("accept-retention"),
        help: "Take the alternate plan or the promotional offer the retention message shows, instead of cancelling.")
    var acceptRetention = false
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let productID = try context.productID(product)
            let desk = RetentionDesk(store: context.store)
            let shown = try desk.offer(for: productID)
            let chosen: String
            if acceptRetention {
                guard shown.hasChoice else {
                    throw CommandFailure(
                        message: "nothing to accept: \(Self.words(shown, context)); the plan is unchanged", status: 1)
                }
                try desk.accept(shown, on: productID)
                chosen = shown.alternateProductID != nil ? "alternateProduct" : "promotionalOffer"
            } else {
                _ = try context.store.plans.perform(.cancel, on: productID)
                chosen = "cancel"
            }
            let plan = try context.store.plans.plan(of: productID)
            let summary = plan.map { $0.summary(calendar: context.calendar, catalog: context.store.catalog) } ?? ""
            output(
                context,
                json: Cancelled(
                    plan: Inline(plan.map { PlanOutput($0, context) }),
                    retention: Cancelled.Retention(shown: Shown(shown), chosen: chosen)),
                text: ((shown.isQuiet ? [] : [Self.words(shown, context)]) + [summary]).filter { !$0.isEmpty }.joined(
                    separator: "\n")
            )
        }
    }

    /// What was shown, in one line.
    static func words(_ shown: RetentionOffer, _ context: Context) -> String {
        var text: String
        switch shown.source {
        case .endpoint: text = "retention message from the developer's endpoint (\(shown.milliseconds ?? 0) ms)"
        case .defaultMessage: text = "the default retention message (\(shown.fallbackReason ?? ""))"
        case .none: return "no retention message (\(shown.fallbackReason ?? ""))"
        }
        if let message = shown.message { text += ": \"\(message.header)\" \(message.body)" }
        if let alternate = shown.alternateProductID {
            text += "; offers to switch to \(context.store.catalog.product(alternate)?.title ?? alternate)"
            if let billing = shown.alternateBillingPlan { text += ", billed \(billing.words)" }
        }
        if let offer = shown.offer { text += "; offers the promotional offer \(offer.offerID)" }
        return text
    }

    /// The plan after the cancel, with the retention message the cancel showed and what was chosen.
    struct Cancelled: Encodable {
        struct Retention: Encodable {
            var shown: Shown
            var chosen: String
        }

        var plan: Inline<PlanOutput>
        var retention: Retention
    }

    /// The retention message shown, where it came from, and why the default stood in.
    struct Shown: Encodable {
        var source: String
        var messageIdentifier, header, body, imageIdentifier, alternateProduct, alternateBillingPlan: String?
        var promotionalOffer, fallbackReason: String?
        var milliseconds: Int?

        init(_ shown: RetentionOffer) {
            source = shown.source.rawValue
            messageIdentifier = shown.message?.id
            header = shown.message?.header
            body = shown.message?.body
            imageIdentifier = shown.message?.imageID
            alternateProduct = shown.alternateProductID
            alternateBillingPlan = shown.alternateBillingPlan?.rawValue
            promotionalOffer = shown.offer?.offerID
            fallbackReason = shown.fallbackReason
            milliseconds = shown.milliseconds
        }
    }
}

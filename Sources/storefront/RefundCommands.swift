// `storefront refund-request` (O7): the customer's refund request sheet, and the answers the App
// Store (a policy) or the developer's side (approve, decline, reverse) give it.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct RefundRequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund-request",
        abstract:
            "Ask for a refund as a customer does, and answer the request: approve, decline, reverse a refund, the policy.",
        discussion:
            "`storefront refund-request ID [--reason unintended|not-received|not-as-expected|legal|other]` asks. A consumable's request sends CONSUMPTION_REQUEST first; `storefront serve` takes the developer's Send Consumption Information.",
        subcommands: [Make.self, Approve.self, Decline.self, Reverse.self, List.self, Policy.self],
        defaultSubcommand: Make.self
    )

    struct Make: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ask", abstract: "Ask for a refund of a purchase or plan period (the refund request sheet).")
        @Argument(help: "The transaction id, or its first 4+ characters (`storefront receipt` lists them).") var id:
            String
        @Option(
            help: ArgumentHelp(
                "Why: \(RefundReason.allCases.map(\.argument).joined(separator: ", ")).", valueName: "reason"))
        var reason = "other"
        @OptionGroup var common: CommonOptions

        func validate() throws {
            guard RefundReason(argument: reason) != nil else {
                throw ValidationError("--reason takes \(RefundReason.allCases.map(\.argument).joined(separator: ", "))")
            }
        }

        func run() throws {
            try perform(common) { context in
                let request = try context.store.refunds.request(id, reason: RefundReason(argument: reason)!)
                output(context, json: RefundOutput(request, context), text: refundLine(request, context))
            }
        }
    }

    struct Approve: RefundDecisionCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refund a waiting request (the developer's side, or Apple's): REFUND.")
        static let approves = true
        @Argument(help: "The purchase's transaction id.") var id: String
        @OptionGroup var common: CommonOptions
    }

    struct Decline: RefundDecisionCommand {
        static let configuration = CommandConfiguration(abstract: "Decline a waiting request: REFUND_DECLINED.")
        static let approves = false
        @Argument(help: "The purchase's transaction id.") var id: String
        @OptionGroup var common: CommonOptions
    }

    struct Reverse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take a refund back: REFUND_REVERSED; the purchase counts again.")
        @Argument(help: "The refunded purchase's transaction id.") var id: String
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                let request = try context.store.refunds.reverse(id)
                struct Reversed: Encodable { var reversed: String }
                output(
                    context,
                    json: request.map { OutputEncoder.encode(RefundOutput($0, context)) }
                        ?? OutputEncoder.encode(Reversed(reversed: id)),
                    text: request.map { refundLine($0, context) } ?? "refund of \(id) taken back")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The signed-in account's refund requests and where each stands.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                let requests = try context.store.refunds.requests()
                let policy = try context.store.refunds.policy()
                struct Listed: Encodable {
                    var requests: [RefundOutput]
                    var policy: String
                }
                output(
                    context,
                    json: Listed(requests: requests.map { RefundOutput($0, context) }, policy: policy.rawValue),
                    text: requests.isEmpty
                        ? "no refund requests" : requests.map { refundLine($0, context) }.joined(separator: "\n")
                )
            }
        }
    }

    struct Policy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "How this device's requests are answered: manual (default: the developer's side decides), approve or decline at once."
        )
        @Argument(help: "manual, approve or decline; none shows it.") var policy: String?
        @OptionGroup var common: CommonOptions

        func validate() throws {
            if let policy, RefundPolicy(rawValue: policy) == nil {
                throw ValidationError("the policy is manual, approve or decline")
            }
        }

        func run() throws {
            try perform(common) { context in
                if let policy { try context.store.refunds.setPolicy(RefundPolicy(rawValue: policy)!) }
                let current = try context.store.refunds.policy()
                output(
                    context, json: PolicyOutput(policy: current.rawValue),
                    text: "refund requests: \(current.rawValue)")
            }
        }
    }
}

/// `refund-request approve` and `decline`: the answer to a waiting request.
protocol RefundDecisionCommand: ParsableCommand {
    static var approves: Bool { get }
    var id: String { get }
    var common: CommonOptions { get }
}

extension RefundDecisionCommand {
    func run() throws {
        try perform(common) { context in
            let request = try context.store.refunds.decide(id, approve: Self.approves)
            output(context, json: RefundOutput(request, context), text: refundLine(request, context))
        }
    }
}

/// A refund request as `--json` writes it.
private struct RefundOutput: Encodable {
    var transaction, request, account, product, kind, reason: String
    var requestedAt: String?
    var state: String
    var decidedAt, consumptionInfo: String?

    init(_ request: RefundRequest, _ context: Context) {
        transaction = request.transactionID
        self.request = request.requestID
        account = request.account
        product = request.productID
        kind = request.kind.rawValue
        reason = request.reason.rawValue
        requestedAt = context.dateText(request.requestedAt)
        state = request.state.rawValue
        decidedAt = context.dateText(request.decidedAt)
        consumptionInfo = request.consumptionInfo
    }
}

private func refundLine(_ request: RefundRequest, _ context: Context) -> String {
    let title = context.store.catalog.product(request.productID)?.title ?? request.productID
    return "\(request.transactionID)  \(title)  refund \(request.state.rawValue) (\(request.reason.argument))"
        + (request.consumptionInfo != nil ? "  consumption information received" : "")
}

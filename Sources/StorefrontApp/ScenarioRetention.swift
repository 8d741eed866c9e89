// M2 in scenarios: a story sets up retention messages and plays the developer's Get Retention
// Message endpoint in process, then cancels (and sees what the App Store showed) or accepts:
//   retention message "Stay for the selfies" "Your team posts every day."   (made and approved, with a picture)
//   retention default "All Access (Monthly)"            the last message is that plan's default
//   retention answer message | switch "PRODUCT" [monthly|upfront] | offer OFFER | slow | fail
//   cancel "All Access (Monthly)"                       asks the endpoint, shows, cancels
//   accept retention "All Access (Monthly)"             asks, and takes the plan or offer instead
//   expect retention message "Stay for the selfies"     what the last cancel or accept showed (or: none)
import Foundation
import StoreCore
import StoreModel
import TerminalUI

public enum RetentionStep: Equatable, Sendable {
    case message(header: String, body: String)
    case defaultFor(String)
    case answer(EndpointAnswer)
    case accept(String)

    /// What the scenario's endpoint answers.
    public enum EndpointAnswer: Equatable, Sendable {
        case message
        case switchTo(String, billing: BillingPlan?)
        case offer(String)
        case slow
        case fail
    }

    static func parse(_ words: [String]) throws(ScenarioParser.Problem) -> RetentionStep {
        func word(_ index: Int, _ what: String) throws(ScenarioParser.Problem) -> String {
            guard index < words.count else {
                throw ScenarioParser.Problem(message: "\"\(words.joined(separator: " "))\": expected \(what)")
            }
            return words[index]
        }
        switch words.count > 1 ? words[1].lowercased() : "" {
        case "message":
            return .message(
                header: try word(2, "the message's header in quotes"), body: try word(3, "its body in quotes"))
        case "default": return .defaultFor(try word(2, "a plan's product"))
        case "answer":
            switch try word(2, "message, switch, offer, slow or fail").lowercased() {
            case "message": return .answer(.message)
            case "switch":
                let product = try word(3, "the plan to switch to")
                guard words.count > 4 else { return .answer(.switchTo(product, billing: nil)) }
                switch words[4].lowercased() {
                case "monthly": return .answer(.switchTo(product, billing: .monthly))
                case "upfront": return .answer(.switchTo(product, billing: .billedUpfront))
                default:
                    throw ScenarioParser.Problem(
                        message: "retention answer switch PRODUCT is followed by monthly, upfront or nothing")
                }
            case "offer": return .answer(.offer(try word(3, "a promotional offer id")))
            case "slow": return .answer(.slow)
            case "fail": return .answer(.fail)
            default:
                throw ScenarioParser.Problem(
                    message: "retention answer is message, switch PRODUCT, offer OFFER, slow or fail")
            }
        default: throw ScenarioParser.Problem(message: "retention is followed by message, default or answer")
        }
    }
}

/// The scenario's own Get Retention Message endpoint: what it answers, and the last message made.
struct ScenarioEndpoint {
    static let url = "http://retention.scenario.invalid/realtime"
    var answer: RetentionStep.EndpointAnswer = .message
    var lastMessage: String?
}

extension ScenarioRunner {
    /// The desk, its endpoint played in process by `endpoint`.
    func retentionDesk() -> RetentionDesk {
        var desk = RetentionDesk(store: store)
        let endpoint = self.endpoint
        let store = self.store
        desk.ask = { _, _ in
            switch endpoint.answer {
            case .slow:
                return RealtimeCall.Outcome(
                    choice: nil, milliseconds: 900, failure: "TIMED_OUT", reason: "it answered after Apple's 700 ms")
            case .fail:
                return RealtimeCall.Outcome(
                    choice: nil, milliseconds: 40, failure: "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
                    reason: "it answered HTTP 500")
            case .message:
                return RealtimeCall.Outcome(
                    choice: endpoint.lastMessage.map { .message(id: $0) }, milliseconds: 40,
                    failure: endpoint.lastMessage == nil ? "INVALID_RESPONSE" : nil)
            case .switchTo(let name, let billing):
                let id = store.catalog.product(named: name)?.id ?? name
                return RealtimeCall.Outcome(
                    choice: .alternateProduct(messageID: endpoint.lastMessage, productID: id, billingPlan: billing),
                    milliseconds: 40)
            case .offer(let offer):
                // Signed as the developer's server signs it, with the state folder's own key.
                let plan = try? store.plans.subscriptions().first
                guard let product = plan?.productID,
                    let signature = try? store.offers.signWithOwnKey(productID: product, offerID: offer)
                else {
                    return RealtimeCall.Outcome(
                        choice: nil, milliseconds: 40, failure: "INVALID_RESPONSE",
                        reason: "no plan to sign an offer for")
                }
                return RealtimeCall.Outcome(
                    choice: .promotionalOffer(
                        messageID: endpoint.lastMessage,
                        offer: PromotionalOfferRequest(offerID: offer, signature: signature)),
                    milliseconds: 40
                )
            }
        }
        return desk
    }

    /// What `cancel` or `accept retention` would show now (the player shows it first).
    public func retentionPreview(of name: String) -> RetentionOffer? {
        guard let product = product(named: name) else { return nil }
        return try? retentionDesk().offer(for: product.id)
    }

    func performRetention(_ step: RetentionStep, line: Int) throws {
        switch step {
        case .message(let header, let body):
            let id = UUID().uuidString.lowercased()
            let image = UUID().uuidString.lowercased()
            // A picture for it, as the comics' placeholders are drawn.
            let png = try PNGCodec.encode(PlaceholderPicture.image(title: header, id: id), layout: .rgb)
            try store.server.setRetentionImage(image, png: png)
            let environment = try AppIdentity.current(server: store.server, catalog: store.catalog).environment.rawValue
            try store.server.changeRetention { (setup: inout RetentionSetup) in
                setup.realtimeURLs[environment] = setup.realtimeURLs[environment] ?? ScenarioEndpoint.url
                setup.images.append(
                    RetentionImage(id: image, size: "FULL_SIZE", state: .approved, width: 3_840, height: 2_160))
                setup.messages.append(
                    RetentionMessage(
                        id: id, header: header, body: body, imageID: image, altText: header, state: .approved))
            }
            endpoint.lastMessage = id
        case .defaultFor(let name):
            let product = try product(name, line: line)
            guard let message = endpoint.lastMessage else {
                throw ScenarioError(file: "", line: line, message: "retention default needs a retention message first")
            }
            try store.server.changeRetention { (setup: inout RetentionSetup) in
                setup.defaults[RetentionSetup.defaultKey(product: product.id, locale: catalog.userLocale)] = message
            }
        case .answer(let answer):
            endpoint.answer = answer
        case .accept(let name):
            let product = try product(name, line: line)
            try attempt {
                let desk = retentionDesk()
                let shown = try desk.offer(for: product.id)
                lastRetention = shown
                guard shown.hasChoice else { throw StoreError.planRefused(.nothingToAccept) }
                lastTransaction = try desk.accept(shown, on: product.id)
            }
        }
    }

    /// `cancel`: the endpoint is asked and what it chose is shown, then the plan is cancelled.
    func cancelWithRetention(_ product: Product) throws {
        try attempt {
            lastRetention = try retentionDesk().offer(for: product.id)
            _ = try store.plans.perform(.cancel, on: product.id)
        }
    }

    func checkRetention(_ expected: String, _ result: inout ExpectationResult) {
        let shown = lastRetention?.message?.header
        result.passed = expected.lowercased() == "none" ? shown == nil : shown == expected
        result.detail = "the last cancel showed " + (shown.map { "\"\($0)\"" } ?? "no message")
    }
}

// M2: the moment of cancel. Before a customer's cancel goes through, the App Store asks the
// developer's Get Retention Message endpoint what to show (a signed request, Apple's 700 ms), and
// shows it: a message (with its picture), an alternate product to switch to, or a promotional
// offer. On an error, a timeout, an unapproved message or no URL it shows the default message for
// the product and locale, if one is configured. The customer may still cancel.
import Foundation
import StoreModel

/// What the customer is shown when they open their subscription to cancel it.
public struct RetentionOffer: Sendable, Equatable {
    public enum Source: String, Sendable {
        case endpoint
        case defaultMessage = "default"
        case none
    }
    public var source: Source
    public var message: RetentionMessage?
    /// A plan of the same group the endpoint suggests switching to.
    public var alternateProductID: String?
    /// The billing plan the endpoint suggests for it (M4); nil for the plan's own.
    public var alternateBillingPlan: BillingPlan?
    /// A promotional offer the endpoint suggests, with its signature.
    public var offer: PromotionalOfferRequest?
    /// Why the endpoint's answer was not shown (no URL, a timeout, an unapproved message, …).
    public var fallbackReason: String?
    public var milliseconds: Int?
    /// The developer's endpoint was asked (a realtime URL is configured).
    public var askedEndpoint = false

    /// Nothing was configured to show: retention messaging is not in use.
    public var isQuiet: Bool { source == .none && !askedEndpoint }

    /// Something the customer can take instead of cancelling.
    public var hasChoice: Bool { alternateProductID != nil || offer != nil }
}

public struct RetentionDesk {
    let store: Store
    /// How the endpoint is asked: over HTTP (a scenario plays the endpoint in process instead).
    public var ask: (URL, Data) -> RealtimeCall.Outcome = { RealtimeCall.ask($0, body: $1) }

    public init(store: Store) { self.store = store }

    var locale: String { store.catalog.userLocale }

    /// Asks the endpoint (if one is set) about the plan of `productID`'s group, and decides what
    /// the customer sees.
    public func offer(for productID: String) throws(StoreError) -> RetentionOffer {
        let setup = try store.server.retentionSetup()
        guard let plan = try store.plans.plan(of: productID) else {
            return fallback(setup, product: productID, reason: "no plan of that group to keep")
        }
        let identity = try AppIdentity.current(server: store.server, catalog: store.catalog)
        guard let text = setup.realtimeURL(identity.environment), let url = URL(string: text) else {
            return fallback(
                setup, product: plan.productID,
                reason: "no realtime URL is configured for \(identity.environment.rawValue)")
        }
        let request = try store.signed.realtimeRequest(plan, locale: locale)
        let outcome = ask(url, request.body)
        guard let choice = outcome.choice else {
            return with(
                outcome,
                fallback(
                    setup, product: plan.productID,
                    reason: "the endpoint failed: \(outcome.failure ?? "") (\(outcome.reason ?? ""))"))
        }
        var shown = RetentionOffer(source: .endpoint, milliseconds: outcome.milliseconds, askedEndpoint: true)
        switch choice {
        case .message(let id):
            guard let message = setup.showable(id) else {
                return with(
                    outcome,
                    fallback(
                        setup, product: plan.productID,
                        reason: "message \(id) is not an approved message with approved images"))
            }
            shown.message = message
        case .alternateProduct(let id, let product, let billing):
            // Another plan of the group, or the plan one has on the other billing plan (M4); a
            // monthly plan only where the product has one.
            let terms = store.catalog.product(product)?.autoRenew
            let switches = product != plan.productID || billing.map { $0 != plan.renewingBillingPlan } ?? false
            guard switches, terms?.group == plan.group, billing != .monthly || terms?.monthlyCommitmentPrice != nil
            else {
                let named = product + (billing.map { " billed \($0.words)" } ?? "")
                return with(
                    outcome,
                    fallback(setup, product: plan.productID, reason: "\(named) is not another plan of the group"))
            }
            shown.alternateProductID = product
            shown.alternateBillingPlan = billing
            shown.message = id.flatMap(setup.showable)
        case .promotionalOffer(let id, let offer):
            guard store.catalog.product(plan.productID)?.autoRenew?.offer(offer.offerID, type: .promotional) != nil
            else {
                return with(
                    outcome,
                    fallback(
                        setup, product: plan.productID,
                        reason: "\(offer.offerID) is not a promotional offer of \(plan.productID)"))
            }
            shown.offer = offer
            shown.message = id.flatMap(setup.showable)
        }
        return shown
    }

    private func with(_ outcome: RealtimeCall.Outcome, _ offer: RetentionOffer) -> RetentionOffer {
        var offer = offer
        offer.milliseconds = outcome.milliseconds
        offer.askedEndpoint = true
        return offer
    }

    /// The default message of `product` in the desk's locale, when it is showable.
    func fallback(_ setup: RetentionSetup, product: String, reason: String) -> RetentionOffer {
        let id = setup.defaults[RetentionSetup.defaultKey(product: product, locale: locale)]
        guard let message = id.flatMap(setup.showable) else {
            return RetentionOffer(source: .none, fallbackReason: reason)
        }
        return RetentionOffer(source: .defaultMessage, message: message, fallbackReason: reason)
    }

    /// The customer takes what was offered: the alternate plan (a switch, by the rules of
    /// upgrades and downgrades) or the promotional offer (its signature checked as at any purchase).
    @discardableResult
    public func accept(_ offer: RetentionOffer, on productID: String) throws(StoreError) -> StoreTransaction? {
        if let alternate = offer.alternateProductID {
            return try store.queue.buy(alternate, billingPlan: offer.alternateBillingPlan)
        }
        if let promotional = offer.offer {
            return try store.queue.buy(try store.plans.plan(of: productID)?.productID ?? productID, offer: promotional)
        }
        return nil
    }
}

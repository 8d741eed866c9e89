// A customer's action on a plan as the App Store takes it (W9): cancel, turn renewal back on,
// expire or renew now (the test session's controls), answer a price increase. Where the records
// are kept the plan rules apply it; a team device asks its server, which applies the same rules
// with its own store, and never writes the plan's lines itself.
import Foundation

public struct PlanAsk: Sendable, Equatable, Codable {
    public enum Action: Sendable, Equatable, Codable {
        case perform(PlanAction)
        case answerPriceIncrease(accept: Bool)
    }

    public var account: String
    /// Any product of the plan's subscription group.
    public var productID: String
    /// The device that asked, named on the lines.
    public var device: String
    public var action: Action

    public init(account: String, productID: String, device: String, action: Action) {
        self.account = account
        self.productID = productID
        self.device = device
        self.action = action
    }

    /// What was tried, for a refusal's words.
    package func attempt(group: String) -> PlanAttempt {
        switch action {
        case .perform(let action): .perform(action, group: group)
        case .answerPriceIncrease(let accept): .answerPriceIncrease(agree: accept, group: group)
        }
    }

    /// The lines the plan rules write for it.
    package func lines(_ rules: AutoRenewal, _ state: PlanState?, at now: Date, context: AutoRenewal.LineContext)
        throws(AutoRenewal.Refusal) -> [ReceiptEntry]
    {
        switch action {
        case .perform(.cancel): return try rules.cancel(state, at: now, context: context)
        case .perform(.renewOn): return try rules.renewOn(state, at: now, context: context)
        case .perform(.expire): return try rules.expire(state, at: now, context: context)
        case .perform(.forceRenew): return try rules.forceRenew(state, at: now, context: context)
        case .answerPriceIncrease(let accept):
            guard let state, state.endedAt == nil else { throw .noPlan }
            guard let increase = state.priceIncrease, increase.consentRequired else { throw .noPriceIncrease }
            guard increase.answer == nil || increase.answer != accept else { return [] }
            var line = ReceiptEntry(
                transactionID: context.makeID(), account: context.account, productID: state.productID,
                kind: .autoRenewableSubscription,
                purchaseDate: now, device: context.device, event: .priceConsent, group: state.group,
                price: increase.price,
                reference: state.originalTransactionID, note: accept ? nil : ReceiptNote.declined.words
            )
            line.until = state.priceChangeSeen
            return [line]
        }
    }
}

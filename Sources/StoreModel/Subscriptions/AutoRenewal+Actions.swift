// Acting on a live plan: cancelling, turning renewal back on, expiring it by hand, renewing it now,
// and refunding one of its periods. Each returns the lines to record; a plan that has ended
// refuses, saying why.
import Foundation

extension AutoRenewal {
    /// Every plan that has access or is in billing retry can be acted on; an ended one cannot.
    public enum Refusal: Error, Equatable, Codable, Sendable {
        case noPlan
        case expired
        case alreadyCancelled
        case alreadyRenewing
        case notAPlanPeriod
        case alreadyRefunded
        case noPriceIncrease
    }

    private func live(_ state: PlanState?, at: Date) throws(Refusal) -> PlanState {
        guard let state else { throw .noPlan }
        guard state.hasAccess(at: at) || (state.endedAt == nil && state.billingFailedAt != nil) else { throw .expired }
        return state
    }

    /// Auto-renew off: access continues to the period's end. In billing retry, the plan ends now.
    public func cancel(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        let state = try live(state, at: at)
        guard state.willRenew else { throw .alreadyCancelled }
        var lines = [line(.cancel, state, productID: state.productID, group: state.group, at: at, context: context)]
        if state.billingFailedAt != nil {
            var expiry = line(.expire, state, productID: state.productID, group: state.group, at: at, context: context)
            expiry.meaning = .ended(.cancelledDuringBillingRetry)
            lines.append(expiry)
        }
        return lines
    }

    public func renewOn(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        let state = try live(state, at: at)
        guard !state.willRenew else { throw .alreadyRenewing }
        return [line(.renewOn, state, productID: state.productID, group: state.group, at: at, context: context)]
    }

    public func expire(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        let state = try live(state, at: at)
        var expiry = line(.expire, state, productID: state.productID, group: state.group, at: at, context: context)
        expiry.meaning = .ended(.byHand)
        return [expiry]
    }

    /// Renews now, whatever is left of the period (Xcode's "renew subscription now"); in billing
    /// retry or grace, the charge succeeds. A new run of periods starts now.
    public func forceRenew(_ state: PlanState?, at: Date, context: LineContext) throws(Refusal) -> [ReceiptEntry] {
        var state = try live(state, at: at)
        var lines: [ReceiptEntry] = []
        if state.billingFailedAt != nil {
            let recovered = line(
                .billingRecovered, state, productID: state.productID, group: state.group, at: at, context: context)
            lines.append(recovered)
            state = PlanState.apply(state, recovered) ?? state
        }
        lines.append(renewal(state, at: at, context: context))
        return lines
    }

    /// Refunds one purchase or renewal line: if it pays for the current period, access ends now.
    public func refund(
        _ refunded: ReceiptEntry, state: PlanState?, receipt: [ReceiptEntry], at: Date, context: LineContext
    ) throws(Refusal) -> [ReceiptEntry] {
        guard refunded.event == .purchase || refunded.event == .renewal else { throw .notAPlanPeriod }
        if ReceiptEntry.revoked(in: receipt).contains(refunded.transactionID) { throw .alreadyRefunded }
        var refund = line(
            .refund, state, productID: refunded.productID, group: refunded.group ?? "", at: at, context: context)
        refund.reference = refunded.transactionID
        refund.price = refunded.price.map { -$0 }
        return [refund]
    }
}

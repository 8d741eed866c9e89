// The App Store's decision on a payment (W9, Q4): the outcome it gives when a purchase is made,
// kept against the transaction, and the answers to one that waits. `settle` then records only a
// payment whose decision allows it.
import Foundation
import StoreModel

extension Checkout {
    /// How far ahead of the App Store's clock a device's clock may be when it settles a delayed
    /// payment that fell due: two clocks on two machines never agree to the second.
    static let dueSkew: TimeInterval = 60

    /// Q4: the outcome of `ask`'s payment: the one it names (the developer's choice), or the
    /// developer's policy, or the catalog's. An approved payment is settled at once, in the same
    /// call, so that a purchase that goes through costs one call. Any other outcome is kept against
    /// the transaction (what it waits for, when it falls due), once: a second decision for it is
    /// refused. A team device asks its server, which runs this.
    public func decide(_ ask: PaymentAsk) throws(StoreError) -> PaymentDecision {
        let keeper: any RecordKeeping
        switch self.keeper {
        case .team(let team): return try team.decidePayment(ask)
        case .here(let here): keeper = here
        }
        let purchase = ask.purchase
        let (id, account) = (purchase.transactionID, purchase.account)
        let inputs = try keeper.paymentDecisionInputs(
            transactionID: id, decided: ClaimKey.payment(transactionID: id, step: .decided, account: account).text)
        let product = try prepare(purchase, recorded: inputs.recorded)
        // Asked again once it was settled (an answer lost on the way): it stands as it was.
        if inputs.recorded != nil { return PaymentDecision(outcome: .approve, settled: true) }
        guard !inputs.decided else {
            throw StoreError.refusedByServer("a payment for transaction \(id): it was decided already")
        }
        var outcome = catalog.defaultPolicy
        if let chosen = ask.outcome {
            outcome = chosen
        } else if let policy = inputs.policy {
            outcome = policy
        }
        if outcome == .approve {
            // Paid now: dated by the App Store's clock, whatever the device's says.
            var paid = purchase
            paid.at = now()
            try record(paid, of: product, keeper: keeper, recorded: false)
            return PaymentDecision(outcome: .approve, settled: true)
        }
        let now = now()
        guard try take(.decided, of: id, account: account, in: keeper, at: now) else {
            throw StoreError.refusedByServer("a payment for transaction \(id): it was decided already")
        }
        var decision = PaymentDecision(outcome: outcome)
        let steps: [PaymentStep]
        switch outcome {
        case .approve, .fail: steps = []
        case .defer: steps = [.asked]
        case .interrupt: steps = [.interrupted]
        case .delayed(let after, let approve):
            let due = after.added(to: now, calendar: calendar).wholeSeconds
            decision.dueAt = due
            steps = approve ? [.delayed, .due(Int(due.timeIntervalSince1970))] : [.delayed]
        }
        for step in steps + [.terms(purchase.terms)] {
            _ = try take(step, of: id, account: account, in: keeper, at: now)
        }
        return decision
    }

    /// An answer to a payment that waits. Approving (Ask to Buy, or any wait cut short) and
    /// declining Ask to Buy or a delay are a parent's: on a team, the developer's (`asParent`).
    /// Resolving or cancelling an interrupted purchase is its buyer's. One answer per payment;
    /// the same answer again (a device that crashed before it settled) is no change.
    public func answer(_ answer: PaymentAnswer, asParent: Bool) throws(StoreError) {
        let keeper: any RecordKeeping
        switch self.keeper {
        case .team(let team): return try team.answerPayment(answer)
        case .here(let here): keeper = here
        }
        try Accounts.validate(accountName: answer.account)
        let (id, account) = (answer.transactionID, answer.account)
        func kept(_ step: PaymentStep) throws(StoreError) -> Bool { try keeper.holds(step, of: id, account: account) }
        let interrupted = try kept(.interrupted)
        var waits = interrupted
        for step in [PaymentStep.asked, .delayed] where !waits { waits = try kept(step) }
        guard waits else {
            throw StoreError.refusedByServer("an answer for transaction \(id): its payment is not waiting")
        }
        switch answer.answer {
        case .resolve:
            guard interrupted else {
                throw StoreError.refusedByServer("resolving transaction \(id): its purchase was not interrupted")
            }
        case .approve, .decline:
            // Cancelling one's own interrupted purchase is the buyer's; anything else, a parent's.
            guard asParent || (answer.answer == .decline && interrupted) else {
                throw StoreError.developerOnly(server: "", action: "answer Ask to Buy")
            }
        }
        let approves = answer.answer != .decline
        let now = now()
        guard try take(.answered, of: id, account: account, in: keeper, at: now) else {
            guard try kept(.paid) == approves else {
                throw StoreError.refusedByServer("an answer for transaction \(id): it was answered already")
            }
            return
        }
        if approves { _ = try take(.paid, of: id, account: account, in: keeper, at: now) }
    }

    /// Whether the App Store lets `ask`'s payment be settled: approved, or due by its clock, for
    /// the terms it was decided for (W18). The date it was paid: when it fell due, else the App
    /// Store's now (W18: never a date the device names).
    func checkPaid(_ ask: PurchaseAsk, keeper: any RecordKeeping) throws(StoreError) -> Date {
        let (id, account) = (ask.transactionID, ask.account)
        let paid = try keeper.holds(.paid, of: id, account: account)
        let due = PaymentStep.due(Int(ask.at.timeIntervalSince1970))
        var fellDue = false
        if !paid { fellDue = try keeper.holds(due, of: id, account: account) }
        guard paid || fellDue else {
            throw StoreError.refusedByServer("transaction \(id): the App Store took no payment for it")
        }
        guard try keeper.holds(.terms(ask.terms), of: id, account: account) else {
            throw StoreError.refusedByServer(
                "transaction \(id): its payment was decided for another product, billing plan or offer")
        }
        guard fellDue else { return now() }
        guard ask.at <= now().addingTimeInterval(Self.dueSkew) else {
            throw StoreError.refusedByServer("transaction \(id): its payment is not due yet")
        }
        return min(ask.at, now())
    }

    private func take(
        _ step: PaymentStep, of transactionID: String, account: String, in keeper: any RecordKeeping, at date: Date
    ) throws(StoreError) -> Bool {
        let key = ClaimKey.payment(transactionID: transactionID, step: step, account: account)
        return try keeper.claim(key.text, account: account, limit: 1, at: date)
    }
}

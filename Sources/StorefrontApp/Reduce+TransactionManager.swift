// The transaction manager's keys: approving and declining what waits, the plan it manages and
// what each key asks of that plan, billing trouble and the grace period.
import Foundation
import StoreCore
import StoreModel

func reduceTransactions(_ state: inout AppState, _ command: Command) -> [Effect] {
    let pending = state.snapshot?.pending ?? []
    let selected = pending.indices.contains(state.pendingSelection) ? pending[state.pendingSelection] : nil
    switch command {
    case .up: state.pendingSelection = clamp(state.pendingSelection - 1, count: pending.count)
    case .down: state.pendingSelection = clamp(state.pendingSelection + 1, count: pending.count)
    case .approve:
        guard let selected else {
            state.banner = Banner("Nothing pending to approve")
            return []
        }
        return [.approve(selected.id)]
    case .decline:
        guard let selected else {
            state.banner = Banner("Nothing pending to decline")
            return []
        }
        return [.decline(selected.id)]
    case .resolve:
        guard let selected, selected.state == .interrupted else {
            state.banner = Banner("Select an interrupted purchase (\(Wording.state(.interrupted))) to resolve")
            return []
        }
        return [.resolve(selected.id)]
    case .nextPolicy, .previousPolicy:
        let current = state.snapshot?.policy ?? .approve
        let index = policyChoices.firstIndex(of: current) ?? 0
        let step = command == .nextPolicy ? 1 : policyChoices.count - 1
        return [.setPolicy(policyChoices[(index + step) % policyChoices.count])]
    case .advance(let duration): return [.advanceClock(duration)]
    case .realTime: return [.realClock]
    case .restore: return [.restore]
    case .plan(let planCommand): return planEffect(&state, planCommand)
    case .nextSimulatedErrors:
        return [.setSimulatedErrors((state.snapshot?.simulatedErrors ?? SimulatedErrors()).nextPreset)]
    case .nextStorefront:
        // F3: the next storefront the catalog names, for the signed-in account.
        guard let snapshot = state.snapshot, snapshot.status.user != nil else {
            state.banner = Banner("Sign in to change the account's storefront (u: account)")
            return []
        }
        let choices = snapshot.storefrontChoices
        // A catalog of one storefront: an account moved away from it (by the command line) moves
        // back; one already in it is told why nothing else is offered, naming the catalog's.
        guard choices.count > 1 || choices.first.map({ $0 != snapshot.storefront }) == true else {
            state.banner = Banner(
                "This catalog sells in \(choices.first ?? snapshot.storefront) only: give products \"prices\" per storefront"
            )
            return []
        }
        let index = choices.firstIndex(of: snapshot.storefront).map { $0 + 1 } ?? 0
        return [.setStorefront(choices[index % choices.count])]
    case .inspect:
        // The newest transaction in the log that delivered something: its signed form (S2).
        guard let event = state.log.last(where: { $0.state == .purchased || $0.state == .restored }) else {
            state.banner = Banner("No purchased or restored transaction in the log to inspect")
            return []
        }
        return [.inspect(event.transactionID)]
    case .requestRefund:
        // The refund request sheet for the newest transaction in the log that delivered something.
        guard let event = state.log.last(where: { $0.state == .purchased || $0.state == .restored }) else {
            state.banner = Banner("No purchased transaction in the log to ask a refund for")
            return []
        }
        return [.requestRefund(event.transactionID)]
    case .answerRefund(let approve):
        guard let request = state.snapshot?.refundRequests.last(where: { $0.state == .pending }) else {
            state.banner = Banner("No refund request is waiting for an answer (F asks for one)")
            return []
        }
        return [.answerRefund(request.transactionID, approve: approve)]
    case .toggleBilling:
        var billing = state.snapshot?.billing ?? BillingSetting()
        billing.failing.toggle()
        return [.setBilling(billing)]
    case .toggleGrace:
        var billing = state.snapshot?.billing ?? BillingSetting()
        billing.graceDays = billing.graceDays == nil ? BillingSetting.defaultGraceDays : nil
        return [.setBilling(billing)]
    case .back: state.route = .products
    default: break
    }
    return []
}

/// The plan the transaction manager acts on: the first that still has access or is in billing
/// retry, else the latest one.
func managedPlan(_ state: AppState) -> PlanStatus? {
    let plans = state.snapshot?.status.plans ?? []
    return plans.first { $0.hasAccess || $0.phase == .billingRetry } ?? plans.last
}

func planEffect(_ state: inout AppState, _ command: PlanCommand) -> [Effect] {
    guard let plan = managedPlan(state) else {
        state.banner = Banner("No auto-renewable plan yet: subscribe to one first")
        return []
    }
    return [.plan(command, productID: plan.productID)]
}

// A customer's action on a plan (PlanAsk), applied where the records are kept (W9).
import Foundation
import StoreModel

extension Plans {
    /// The catalog's product `productID` and its subscription group; a product that is not an
    /// auto-renewable subscription has no plan to act on.
    func plan(ofProduct productID: String) throws(StoreError) -> (product: Product, group: String) {
        let product = try catalog.require(productID)
        guard let group = product.autoRenew?.group else {
            throw StoreError.planRefused(.notAPlan(productID: product.id))
        }
        return (product, group)
    }

    /// Applies a customer's action to the account's plan where the records are kept, after the
    /// renewals the clock has passed; the plan as it is then.
    public func apply(_ ask: PlanAsk) throws(StoreError) -> PlanState {
        let group = try plan(ofProduct: ask.productID).group
        try Accounts.validate(accountName: ask.account)
        try StateDirectory.validate(device: ask.device)
        try settle(account: ask.account)
        let rules = try autoRenewal(account: ask.account)
        let now = now()
        let context = lineContext(account: ask.account, device: ask.device)
        try writePlans(account: ask.account, attempt: ask.attempt(group: group)) { plans, _ in
            try ask.lines(rules, plans[group], at: now, context: context)
        }
        guard let state = try planBook.plans(account: ask.account)[group] else { throw StoreError.planRefused(.noPlan) }
        return state
    }
}

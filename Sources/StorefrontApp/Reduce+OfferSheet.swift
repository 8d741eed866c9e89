// The offer sheet: what it lists for a product (billing plans, offers, the introductory offer
// again) and its keys.
import Foundation
import StoreCore
import StoreModel

/// A line of the offer sheet: a billing plan, an offer, or the introductory offer again.
enum SheetChoice {
    /// M4: twelve monthly payments of `price` (a 12-month commitment), or `price` for a year.
    case billing(BillingPlan, price: Decimal)
    case offer(SubscriptionOffer)
    /// O1: the introductory offer for a lapsed customer who had it, given again by the developer's
    /// signed word (introductoryOfferEligibility).
    case introductoryAgain(IntroductoryOffer)
}

/// What the sheet of `productID` lists: for a plan with a monthly billing plan, the billing plan it
/// does not renew on (monthly, or up front for a subscriber whose plan renews monthly: M4); then
/// promotional offers, then win-back ones, then the introductory offer again for a customer whose
/// plan in the group lapsed after they had it. On a team, the developer's policy (W18) leaves out
/// the promotional offers and the introductory offer again that it does not sign for this customer.
func sheetChoices(_ state: AppState, _ productID: String) -> [SheetChoice] {
    let product = state.snapshot?.product(productID)
    let terms = product?.autoRenew
    let policy = state.snapshot?.offerPolicy
    let account = state.snapshot?.status.user ?? ""
    let offers = (terms?.offers ?? []).filter { offer in
        offer.type != .promotional || policy.map { $0.promotionalUses(offer.id, account: account) > 0 } ?? true
    }
    var billing: [SheetChoice] = []
    if let monthly = terms?.monthlyCommitmentPrice, let product {
        let own = state.snapshot?.status.plans.first { $0.productID == productID && $0.hasAccess }
        billing =
            own?.renewingBillingPlan == .monthly
            ? [.billing(.billedUpfront, price: product.price)] : [.billing(.monthly, price: monthly)]
    }
    var again: [SheetChoice] = []
    if let terms, let intro = terms.introductoryOffer,
        policy.map({ $0.introductoryUses(account: account) > 0 }) ?? true,
        state.snapshot?.status.plans.contains(where: { $0.group == terms.group && $0.introOfferUsed && !$0.hasAccess })
            == true
    {
        again = [.introductoryAgain(intro)]
    }
    return billing
        + (offers.filter { $0.type == .promotional } + offers.filter { $0.type == .winBack }).map(SheetChoice.offer)
        + again
}

/// The offer sheet: ⏎ redeems the typed code, or buys on the chosen offer.
func reduceOffers(_ state: inout AppState, _ command: Command, productID: String) -> [Effect] {
    let offers = sheetChoices(state, productID)
    switch command {
    case .up: state.offerForm.selection = clamp(state.offerForm.selection - 1, count: offers.count)
    case .down: state.offerForm.selection = clamp(state.offerForm.selection + 1, count: offers.count)
    case .erase: if !state.offerForm.code.isEmpty { state.offerForm.code.removeLast() }
    case .back: state.route = .products
    case .choose:
        if !state.offerForm.code.isEmpty {
            let code = state.offerForm.code
            state.route = .products
            state.banner = Banner("Redeeming \(code)…")
            return [.redeem(code)]
        }
        guard offers.indices.contains(state.offerForm.selection) else {
            state.banner = Banner(
                "\(title(productID, in: state)) has no offers of its own: type an offer code", kind: .failure)
            return []
        }
        state.route = .products
        switch offers[state.offerForm.selection] {
        case .billing(let plan, _):
            state.banner = Banner("Purchasing \(title(productID, in: state)) billed \(plan.words)…")
            return [.buyBilled(productID, plan)]
        case .offer(let offer):
            state.banner = Banner("Purchasing \(title(productID, in: state)) on \(offer.id)…")
            return [.buyOffer(productID: productID, offerID: offer.id)]
        case .introductoryAgain:
            state.banner = Banner("Purchasing \(title(productID, in: state)) on its introductory offer again…")
            return [.buyIntro(productID: productID, allow: true)]
        }
    default: break
    }
    return []
}

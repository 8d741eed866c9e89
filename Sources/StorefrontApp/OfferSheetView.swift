// The offer sheet (O1–O4): a plan's offers, signed as the developer's server would sign them.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// The offer sheet (O1–O4): the product's promotional offers (signed for the demo with the state
/// folder's own key, or on a team device the server's), win-back offers and the introductory
/// offer again, and a field for an offer code.
func drawOffers(_ screen: inout Screen, _ state: AppState, _ theme: Theme, _ productID: String, _ area: Rect) {
    let width = min(area.width, 64)
    let x = max(0, (area.width - width) / 2)
    var y = area.y
    let offers = sheetChoices(state, productID)
    let formatter = PriceFormatter(
        currencyCode: state.snapshot?.currencyCode ?? "USD",
        localeIdentifier: state.snapshot?.localeIdentifier ?? "en_US")
    func line(_ text: String, _ style: Style) {
        guard y < area.maxY else { return }
        screen.write(TextWidth.pad(TextWidth.truncate(text, to: width), to: width), x: x, y: y, style: style)
        y += 1
    }
    let listsBilling = offers.contains { if case .billing = $0 { true } else { false } }
    let product = state.snapshot?.product(productID)
    /// The other billing plan's terms, beside a billing plan's line.
    func otherTerms(_ plan: BillingPlan) -> String? {
        guard let product, let monthly = product.autoRenew?.monthlyCommitmentPrice else { return nil }
        let months = Decimal(BillingPlan.commitmentPeriods)
        switch plan {
        case .monthly:
            guard product.autoRenew?.soldUpfront ?? true else { return nil }
            return "or up front — \(formatter.string(for: product.price)) a year"
        case .billedUpfront:
            return
                "instead of \(formatter.string(for: monthly)) a month (\(formatter.string(for: monthly * months)) a year)"
        }
    }
    // Signed with this state folder's key, or on a team device the server's: as the developer's
    // server would sign them.
    line(
        listsBilling
            ? "Billing plans and offers (offers signed as the developer's server would)"
            : "Offers (signed as the developer's server would)", theme.title)
    if offers.isEmpty { line("  none for \(title(productID, in: state))", theme.dim) }
    for (index, choice) in offers.enumerated() {
        let chosen = index == state.offerForm.selection && state.offerForm.code.isEmpty
        let text =
            switch choice {
            case .billing(.monthly, let price):
                "monthly — \(formatter.string(for: price)) a month for \(BillingPlan.commitmentPeriods) months"
                    + " (\(formatter.string(for: price * Decimal(BillingPlan.commitmentPeriods))))"
            case .billing(.billedUpfront, let price):
                "up front — \(formatter.string(for: price)) a year, from the commitment's end"
            case .offer(let offer):
                "\(offer.type == .winBack ? "win-back " : "")\(offer.id) — \(offer.terms.phrase(formattedPrice: formatter.string(for: offer.terms.price)))"
            case .introductoryAgain(let offer):
                "introductory offer again — \(offer.phrase(formattedPrice: formatter.string(for: offer.price))), the developer's word"
            }
        line("\(chosen ? "›" : " ") \(text)", chosen ? theme.selected : .plain)
        // M4: both billing plans' terms and prices, as Apple requires them shown before purchase.
        if case .billing(let plan, _) = choice, let other = otherTerms(plan) { line("    \(other)", theme.dim) }
    }
    y += 1
    guard y < area.maxY else { return }
    let labelEnd = screen.write("Offer code ", x: x, y: y, style: theme.title)
    let box = TextWidth.pad(state.offerForm.code + "_", to: max(1, x + width - labelEnd))
    screen.write(box, x: labelEnd, y: y, style: state.offerForm.code.isEmpty ? Style(underline: true) : theme.selected)
    y += 2
    let buys = listsBilling ? "⏎ buys the chosen line" : "⏎ buys on the chosen offer"
    line(state.offerForm.code.isEmpty ? "\(buys); type a code to redeem it instead" : "⏎ redeems the code", theme.dim)
}

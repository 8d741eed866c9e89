// Every key binding of the screen in one table: where it works, which keys, what it does, and how
// the footer and the help overlay name it. `reduce` looks keys up here; the footers and the help
// overlay are drawn from it, so a key cannot work without being shown or be shown without working.
import StoreCore
import StoreModel
import TerminalUI

/// Where a key is bound: a screen, or the transaction manager's plan keys (shown only when the
/// catalog sells auto-renewable plans).
public enum KeyPlace: String, Sendable, CaseIterable {
    case products, detail, random, transactions, plans, signIn, offers
    /// The product list's keys for auto-renewable plans (shown only when the catalog sells them).
    case planProducts

    /// The section title of the help overlay.
    var title: String {
        switch self {
        case .products: "Product list"
        case .detail: "Comic viewer"
        case .random: "Random viewer"
        case .transactions: "Transaction manager"
        case .plans: "Plans (transaction manager)"
        case .signIn: "Account"
        case .offers: "Offers"
        case .planProducts: "Plans (product list)"
        }
    }
}

/// What a key does, whichever key it is. Scenarios and the player send these too.
public enum Command: Equatable, Sendable {
    case up, down, pageUp, pageDown, top, bottom
    case open, buy, restore, random, transactions, account, help, quit, back
    case nextComic, buyViews
    case approve, decline, resolve, nextPolicy, previousPolicy
    case advance(StoreDuration)
    case realTime
    case plan(PlanCommand)
    case toggleBilling, toggleGrace, nextSimulatedErrors, inspect, nextStorefront
    case nextField, previousField, nextButton, previousButton, choose, erase
    case offers
    case requestRefund
    case answerRefund(approve: Bool)
}

public struct KeyBinding: Sendable {
    public let places: [KeyPlace]
    public let keys: [Key]
    public let command: Command
    /// How the footer names the key and what it does ("b", "buy"); nil where another binding
    /// speaks for it (↓ beside ↑).
    public let key: String?
    public let label: String
    /// The keys as the help overlay lists them ("q Esc").
    public let helpKeys: String

    init(
        _ places: [KeyPlace], _ keys: [Key], _ command: Command, key: String?, _ label: String,
        help helpKeys: String? = nil
    ) {
        self.places = places
        self.keys = keys
        self.command = command
        self.key = key
        self.label = label
        self.helpKeys = helpKeys ?? key ?? ""
    }
}

private func character(_ text: String) -> [Key] { text.map { Key.character($0) } }

public let keyMap: [KeyBinding] = [
    // The product list.
    KeyBinding([.products], [.up] + character("k"), .up, key: "↑↓", "move", help: "↑ ↓ j k"),
    KeyBinding([.products], [.down] + character("j"), .down, key: nil, "move"),
    KeyBinding([.products], [.pageUp], .pageUp, key: nil, "page up", help: "PgUp"),
    KeyBinding([.products], [.pageDown], .pageDown, key: nil, "page down", help: "PgDn"),
    KeyBinding([.products], [.home] + character("g"), .top, key: nil, "first", help: "Home g"),
    KeyBinding([.products], [.end] + character("G"), .bottom, key: nil, "last", help: "End G"),
    KeyBinding([.products], [.enter, .right], .open, key: "⏎", "open", help: "⏎ →"),
    KeyBinding([.products, .detail], character("b"), .buy, key: "b", "buy"),
    KeyBinding([.random], character("b"), .buyViews, key: "b", "buy views"),
    KeyBinding([.random], character("n ") + [.enter, .right], .nextComic, key: "n", "next", help: "n ␣ ⏎"),
    KeyBinding([.products, .detail], character("r"), .restore, key: "r", "restore"),
    KeyBinding([.products], character("n"), .random, key: "n", "random"),
    KeyBinding([.products, .detail, .random], character("t"), .transactions, key: "t", "transactions"),
    KeyBinding([.products], character("u"), .account, key: "u", "account"),
    KeyBinding([.planProducts], character("o"), .offers, key: "o", "offers"),
    // The transaction manager.
    KeyBinding([.transactions], [.up] + character("k"), .up, key: "↑↓", "select", help: "↑ ↓ j k"),
    KeyBinding([.transactions], [.down] + character("j"), .down, key: nil, "select"),
    KeyBinding([.transactions], character("a"), .approve, key: "a", "approve"),
    KeyBinding([.transactions], character("x"), .decline, key: "x", "decline"),
    KeyBinding([.transactions], character("s"), .resolve, key: "s", "resolve"),
    KeyBinding([.transactions], character("p"), .nextPolicy, key: "p", "policy", help: "p P"),
    KeyBinding([.transactions], character("P"), .previousPolicy, key: nil, "policy back"),
    KeyBinding([.transactions], character("d+"), .advance(.days(1)), key: "d", "+1 day"),
    KeyBinding([.transactions], character("m"), .advance(.months(1)), key: "m", "+1 month"),
    KeyBinding([.transactions], character("h"), .advance(.seconds(3600)), key: "h", "+1 hour"),
    KeyBinding([.transactions], character("0"), .realTime, key: "0", "real time"),
    KeyBinding([.transactions], character("r"), .restore, key: "r", "restore"),
    KeyBinding([.transactions], character("i") + [.enter], .inspect, key: "i", "inspect", help: "i ⏎"),
    KeyBinding([.plans], character("c"), .plan(.cancel), key: "c", "cancel"),
    KeyBinding([.plans], character("o"), .plan(.renewOn), key: "o", "renew-on"),
    KeyBinding([.plans], character("w"), .plan(.forceRenew), key: "w", "renew now"),
    KeyBinding([.plans], character("e"), .plan(.expire), key: "e", "expire"),
    KeyBinding([.plans], character("f"), .plan(.refund), key: "f", "refund"),
    // Shown where they apply (the consent prompt, a waiting refund request) and in the help,
    // not in the footer, which stays short enough to spell its words out.
    KeyBinding([.plans], character("y"), .plan(.acceptPrice), key: nil, "agree to price", help: "y"),
    KeyBinding([.plans], character("n"), .plan(.declinePrice), key: nil, "decline price", help: "n"),
    KeyBinding([.plans], character("B"), .toggleBilling, key: "B", "billing"),
    KeyBinding([.plans], character("g"), .toggleGrace, key: "g", "grace"),
    KeyBinding([.transactions], character("E"), .nextSimulatedErrors, key: "E", "StoreKit error"),
    // Said on the storefront's line, where the catalog sells in more than one.
    KeyBinding([.transactions], character("S"), .nextStorefront, key: nil, "storefront", help: "S"),
    KeyBinding([.transactions], character("F"), .requestRefund, key: nil, "ask a refund", help: "F"),
    KeyBinding([.transactions], character("Y"), .answerRefund(approve: true), key: nil, "grant refund", help: "Y"),
    KeyBinding([.transactions], character("N"), .answerRefund(approve: false), key: nil, "refuse refund", help: "N"),
    // Everywhere but the sign-in form.
    KeyBinding([.products, .detail, .random, .transactions], character("?"), .help, key: "?", "help"),
    KeyBinding([.products], character("q") + [.escape], .quit, key: "q", "quit", help: "q Esc"),
    KeyBinding(
        [.detail, .random, .transactions], character("q") + [.escape, .left], .back, key: "q", "back", help: "q Esc ←"),
    // The offer sheet: other keys type the code.
    KeyBinding([.offers], [.up], .up, key: "↑↓", "offer"),
    KeyBinding([.offers], [.down], .down, key: nil, "offer"),
    KeyBinding([.offers], [.enter], .choose, key: "⏎", "buy / redeem"),
    KeyBinding([.offers], [.backspace], .erase, key: nil, "erase", help: "⌫"),
    KeyBinding([.offers], [.escape, .left], .back, key: "Esc", "back", help: "Esc ←"),
    // The sign-in form: other keys type into its fields.
    KeyBinding([.signIn], [.tab, .down], .nextField, key: "Tab", "next", help: "Tab ↓"),
    KeyBinding([.signIn], [.backTab, .up], .previousField, key: nil, "previous", help: "⇧Tab ↑"),
    // The buttons stand in a row: → and ← move along it (in the name and password, nothing).
    KeyBinding([.signIn], [.right], .nextButton, key: nil, "next button", help: "→"),
    KeyBinding([.signIn], [.left], .previousButton, key: nil, "previous button", help: "←"),
    KeyBinding([.signIn], [.enter], .choose, key: "⏎", "choose"),
    KeyBinding([.signIn], [.backspace], .erase, key: nil, "erase", help: "⌫"),
    KeyBinding([.signIn], [.escape], .back, key: "Esc", "back"),
]

/// The places whose keys work on `route`, most specific first.
func keyPlaces(_ route: Route, sellsPlans: Bool) -> [KeyPlace] {
    switch route {
    case .products: sellsPlans ? [.products, .planProducts] : [.products]
    case .detail: [.detail]
    case .random: [.random]
    case .transactions: sellsPlans ? [.transactions, .plans] : [.transactions]
    case .signIn: [.signIn]
    case .offers: [.offers]
    }
}

/// The binding of `key` on `route`, if any.
func binding(for key: Key, on route: Route, sellsPlans: Bool) -> KeyBinding? {
    let places = keyPlaces(route, sellsPlans: sellsPlans)
    return keyMap.first { binding in binding.keys.contains(key) && binding.places.contains { places.contains($0) } }
}

/// What `key` does on `route`, if anything.
func command(for key: Key, on route: Route, sellsPlans: Bool) -> Command? {
    binding(for: key, on: route, sellsPlans: sellsPlans)?.command
}

/// The footer's items for `route`, in the table's order: (key, what it does).
func footerItems(_ route: Route, sellsPlans: Bool) -> [(key: String, label: String)] {
    let places = keyPlaces(route, sellsPlans: sellsPlans)
    var items: [(key: String, label: String)] = []
    for binding in keyMap where binding.places.contains(where: places.contains) {
        guard let key = binding.key, !items.contains(where: { $0.key == key }) else { continue }
        items.append((key, binding.label))
    }
    return items
}

/// The footer that fits `width` cells: every key, and as many of their words as fit, from the left
/// ("↑↓ select  a approve  x s p d m h 0 q").
func footerText(_ items: [(key: String, label: String)], width: Int) -> String {
    func text(spelling count: Int) -> String {
        let spelled = items.prefix(count).map { "\($0.key) \($0.label)" }.joined(separator: "  ")
        let bare = items.dropFirst(count).map(\.key).joined(separator: " ")
        return [spelled, bare].filter { !$0.isEmpty }.joined(separator: "  ")
    }
    var count = 0
    while count < items.count, TextWidth.of(text(spelling: count + 1)) <= width { count += 1 }
    return text(spelling: count)
}

/// The help overlay's lines for `route`: a section for each place whose keys work there, two
/// bindings a line.
func helpLines(_ route: Route, sellsPlans: Bool) -> [String] {
    var lines: [String] = []
    for place in keyPlaces(route, sellsPlans: sellsPlans) {
        let bindings = keyMap.filter { $0.places.contains(place) && !$0.helpKeys.isEmpty && $0.command != .help }
        lines.append(place.title)
        let cells = bindings.map { TextWidth.pad($0.helpKeys, to: 8) + " " + TextWidth.pad($0.label, to: 14) }
        for start in stride(from: 0, to: cells.count, by: 2) {
            lines.append(
                ("  " + cells[start..<min(start + 2, cells.count)].joined(separator: " ")).trimmingTrailingSpaces)
        }
    }
    if route == .products {
        lines.append("Mouse: click selects, click the price buys,")
        lines.append("double-click opens.")
    }
    lines.append("Any key closes this help.")
    return lines
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

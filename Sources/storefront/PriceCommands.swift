// `storefront price` (O6): the developer's side sets a new price for an auto-renewable plan; the
// subscriber's side agrees to or declines an increase, as StoreKit's price consent sheet asks.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct PriceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "price",
        abstract:
            "Price changes of auto-renewable plans: set one (an increase is told to every subscriber), agree to or decline one.",
        subcommands: [List.self, Set.self, Consent.self, Decline.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The prices set since the catalog was written.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                struct Listed: Encodable { var changes: [ChangeOutput] }
                let changes = try context.store.plans.priceChanges()
                output(
                    context,
                    json: Listed(changes: changes.map { ChangeOutput($0, context) }),
                    text: changes.isEmpty
                        ? "the catalog's prices (`storefront price set PRODUCT PRICE` changes one)"
                        : changes.map { change in
                            "\(changeName(change))  \(PriceFormatter.plain(change.previous)) → \(PriceFormatter.plain(change.price))"
                                + "\(change.consentRequired ? "  consent required" : "")  since \(context.isoText(change.at))"
                        }.joined(separator: "\n")
                )
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a new price for an auto-renewable plan: new purchases and renewals pay it.",
            discussion:
                "An increase is told to every subscriber who renews on that billing plan (PRICE_INCREASE). With --consent-required they renew at the new price only after `storefront price consent`, and expire at their next renewal otherwise (EXPIRED, PRICE_INCREASE). With --billing monthly it is the monthly price of the plan with a 12-month commitment: a commitment's months keep their price, and the next commitment pays the new one."
        )
        @Argument(help: "The product: its id or its title.") var product: String
        @Argument(help: "The new price, a decimal such as 7.99.") var price: String
        @Flag(name: .customLong("consent-required"), help: "Subscribers must agree before they pay the increase.")
        var consentRequired = false
        @Option(
            name: .customLong("billing"),
            help: ArgumentHelp(
                "Which price: the one billed up front (the default), or the monthly plan's (billingPlanType).",
                valueName: "upfront|monthly"))
        var billing = "upfront"
        @OptionGroup var common: CommonOptions

        func validate() throws {
            guard PriceText.isPlainDecimal(price), Decimal(string: price) != nil else {
                throw ValidationError("\"\(price)\" is not a price like 7.99")
            }
            guard ["upfront", "monthly"].contains(billing) else {
                throw ValidationError("--billing is upfront or monthly, not \"\(billing)\"")
            }
        }

        func run() throws {
            try perform(common) { context in
                let (change, told) = try context.store.plans.setPrice(
                    Decimal(string: price)!, of: try context.productID(product),
                    billingPlan: billing == "monthly" ? .monthly : .billedUpfront, consentRequired: consentRequired)
                var text =
                    "\(changeName(change)): \(PriceFormatter.plain(change.previous)) → \(PriceFormatter.plain(change.price))"
                if change.isIncrease {
                    text +=
                        "; \(told) subscriber\(told == 1 ? "" : "s") told"
                        + (consentRequired ? ", each must agree (`storefront price consent`)" : "")
                }
                var json = ChangeOutput(change, context)
                json.told = Omitted(told)
                output(context, json: json, text: text)
            }
        }
    }

    struct Consent: PriceAnswerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Agree to the price increase of the plan of PRODUCT's group (the price consent sheet's Agree).")
        static let accepts = true
        @Argument(help: "Any product of the plan's subscription group, by id or title.") var product: String
        @OptionGroup var common: CommonOptions
    }

    struct Decline: PriceAnswerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decline the price increase of the plan of PRODUCT's group: it expires at its next renewal.")
        static let accepts = false
        @Argument(help: "Any product of the plan's subscription group, by id or title.") var product: String
        @OptionGroup var common: CommonOptions
    }
}

/// `price consent` and `price decline`: the subscriber's answer to an increase.
protocol PriceAnswerCommand: ParsableCommand {
    static var accepts: Bool { get }
    var product: String { get }
    var common: CommonOptions { get }
}

extension PriceAnswerCommand {
    func run() throws {
        try perform(common) { context in
            let plan = try context.store.plans.answerPriceIncrease(
                of: try context.productID(product), accept: Self.accepts)
            output(
                context, json: PlanOutput(plan, context),
                text: plan.summary(calendar: context.calendar, catalog: context.store.catalog))
        }
    }
}

/// The price a change is of, for people: the product, and "monthly" for the monthly plan's.
private func changeName(_ change: PriceChange) -> String {
    change.plan == .monthly ? "\(change.productID) monthly" : change.productID
}

/// A price change as `--json` writes it; `price set` adds how many subscribers were told.
private struct ChangeOutput: Encodable {
    var product, billingPlanType, price, previous: String
    var consentRequired: Bool
    var at: String?
    var told = Omitted<Int>(nil)

    init(_ change: PriceChange, _ context: Context) {
        product = change.productID
        billingPlanType = change.plan.rawValue
        price = PriceFormatter.plain(change.price)
        previous = PriceFormatter.plain(change.previous)
        consentRequired = change.consentRequired
        at = context.dateText(change.at)
    }
}

// Auto-renewable subscriptions on the command line: the plans of the signed-in account,
// the actions Xcode's transaction manager offers on them, and how renewals are charged.
import ArgumentParser
import Foundation
import StoreCore

func planTermsJSON(_ terms: AutoRenewTerms, price: Decimal) -> [(String, JSON)] {
    var fields: [(String, JSON)] = [
        ("period", .string(terms.period.description)), ("group", .string(terms.group)), ("rank", .int(terms.rank)),
        ("unlocks", .strings(terms.unlocks)),
    ]
    if let offer = terms.introductoryOffer {
        fields.append(
            (
                "introOffer",
                .object([
                    ("mode", .string(offer.mode.rawValue)), ("period", .string(offer.period.description)),
                    ("periods", .int(offer.periods)), ("price", .string(PriceFormatter.plain(offer.price))),
                ])
            ))
    } else {
        fields.append(("introOffer", .null))
    }
    fields.append(
        ("monthlyCommitmentPrice", terms.monthlyCommitmentPrice.map { .string(PriceFormatter.plain($0)) } ?? .null))
    // O2–O4: the offers a purchase can name (`buy --offer`, `offer-codes create`, `buy --win-back`).
    fields.append(("offers", .array(terms.offers.map(offerJSON))))
    fields.append(("pricingTerms", .array(pricingTermsJSON(terms, price: price))))
    return fields
}

/// M4: each billing plan the product is sold on, as Apple requires them shown before purchase:
/// what is billed and how often, what the commitment comes to and for how long, and that plan's
/// offers (its introductory offer first).
func pricingTermsJSON(_ terms: AutoRenewTerms, price: Decimal) -> [JSON] {
    var plans: [JSON] = []
    func plan(_ type: BillingPlan, billing: Decimal, period: SubscriptionPeriod, commitment: Decimal) -> JSON {
        let intro = terms.introductoryOffer(for: type).map {
            SubscriptionOffer(id: "", type: .introductory, terms: $0, billingPlan: type)
        }
        let offers = (intro.map { [$0] } ?? []) + terms.offers.filter { $0.billingPlan == type }
        return .object([
            ("billingPlanType", .string(type.rawValue)), ("billingPrice", .string(PriceFormatter.plain(billing))),
            ("billingPeriod", .string(period.description)),
            ("commitmentPrice", .string(PriceFormatter.plain(commitment))),
            ("commitmentPeriod", .string(terms.period.description)), ("offers", .array(offers.map(offerJSON))),
        ])
    }
    if terms.soldUpfront {
        plans.append(plan(.billedUpfront, billing: price, period: terms.period, commitment: price))
    }
    if let monthly = terms.monthlyCommitmentPrice {
        plans.append(
            plan(
                .monthly, billing: monthly, period: BillingPlan.commitmentPeriod,
                commitment: monthly * Decimal(BillingPlan.commitmentPeriods)))
    }
    return plans
}

func offerJSON(_ offer: SubscriptionOffer) -> JSON {
    .object([
        ("id", offer.type == .introductory ? .null : .string(offer.id)), ("type", .string(offer.type.key)),
        ("mode", .string(offer.terms.mode.rawValue)), ("period", .string(offer.terms.period.description)),
        ("periods", .int(offer.terms.periods)), ("price", .string(PriceFormatter.plain(offer.terms.price))),
    ])
}

func planJSON(_ plan: PlanStatus, _ context: Context) -> JSON { .object(planFields(plan, context)) }

func planFields(_ plan: PlanStatus, _ context: Context) -> [(String, JSON)] {
    [
        ("group", .string(plan.group)), ("product", .string(plan.productID)), ("title", .string(plan.title)),
        ("phase", .string(plan.phase.rawValue)), ("hasAccess", .bool(plan.hasAccess)),
        ("autoRenew", .bool(plan.autoRenew)),
        ("expires", context.formatDate(plan.expiresDate)), ("renewsAt", context.formatDate(plan.renewsAt)),
        ("graceUntil", context.formatDate(plan.graceUntil)),
        ("billingFailedAt", context.formatDate(plan.billingFailedAt)),
        ("nextProduct", .optional(plan.nextProductID)), ("renewals", .int(plan.renewals)),
        ("offer", .optional(plan.offer?.rawValue)),
        ("offerType", plan.offer == nil ? .null : .int((plan.offerType ?? .introductory).rawValue)),
        ("offerIdentifier", .optional(plan.offerID)), ("pendingOffer", .optional(plan.pendingOffer?.id)),
        ("introOfferUsed", .bool(plan.introOfferUsed)),
        ("unlocks", .strings(plan.unlocks)), ("transaction", .string(plan.transactionID)),
        ("originalTransaction", .string(plan.originalTransactionID)), ("endedAt", context.formatDate(plan.endedAt)),
        ("endReason", .optional(plan.endReason)),
        (
            "commitment",
            plan.commitment.map { commitment in
                .object([
                    ("period", .int(commitment.period)), ("periods", .int(BillingPlan.commitmentPeriods)),
                    ("ends", context.formatDate(commitment.ends)),
                    ("monthlyPrice", .string(PriceFormatter.plain(commitment.price))),
                    ("renews", .bool(commitment.renews)),
                ])
            } ?? .null
        ),
        ("nextBillingPlan", .optional(plan.nextBillingPlan?.rawValue)),
        (
            "priceIncrease",
            plan.priceIncrease.map { increase in
                .object([
                    ("price", .string(PriceFormatter.plain(increase.price))),
                    ("consentRequired", .bool(increase.consentRequired)),
                    ("answer", increase.answer.map { .string($0 ? "agreed" : "declined") } ?? .null),
                ])
            } ?? .null
        ),
    ]
}

private func show(_ plan: PlanStatus, _ context: Context) {
    output(
        context, json: planJSON(plan, context),
        text: plan.summary(calendar: context.calendar, catalog: context.store.catalog))
}

struct Subscriptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "The signed-in account's auto-renewable plans, one per subscription group, after every renewal the clock has passed."
    )
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in
            let plans = try context.store.plans.subscriptions()
            let billing = try context.store.settings.billing()
            let json = JSON.object([
                (
                    "plans",
                    .array(
                        try plans.map { plan in
                            // S2: each plan's renewal info and its latest transaction, signed.
                            guard context.json else { return planJSON(plan, context) }
                            let renewal = try context.store.signed.renewalInfo(plan)
                            let transaction = try context.store.signed.planTransaction(plan)
                            return .object(
                                planFields(plan, context) + [
                                    ("signedRenewalInfo", .string(renewal.jws)),
                                    ("signedTransaction", .optional(transaction?.jws)),
                                ])
                        })
                ),
                ("billing", .string(billing.failing ? "fail" : "ok")),
                ("graceDays", billing.graceDays.map(JSON.int) ?? .null),
            ])
            let lines = plans.map {
                "\($0.group): " + $0.summary(calendar: context.calendar, catalog: context.store.catalog)
            }
            output(context, json: json, text: lines.isEmpty ? "no auto-renewable plans" : lines.joined(separator: "\n"))
        }
    }
}

/// cancel, renew-on, expire and force-renew: one action on the plan of a product's group.
protocol PlanActionCommand: ParsableCommand {
    static var action: PlanAction { get }
    var product: String { get }
    var common: CommonOptions { get }
}

extension PlanActionCommand {
    func run() throws {
        try perform(common) { context in
            show(try context.store.plans.perform(Self.action, on: try context.productID(product)), context)
        }
    }
}

struct RenewOn: PlanActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew-on", abstract: "Turn auto-renew back on for the plan of PRODUCT's group.")
    static let action = PlanAction.renewOn
    @Argument(help: "Any product of the plan's subscription group, by id or title.") var product: String
    @OptionGroup var common: CommonOptions
}

struct Expire: PlanActionCommand {
    static let configuration = CommandConfiguration(abstract: "End the plan of PRODUCT's group now (auto-renew off).")
    static let action = PlanAction.expire
    @Argument(help: "Any product of the plan's subscription group, by id or title.") var product: String
    @OptionGroup var common: CommonOptions
}

struct ForceRenew: PlanActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "force-renew",
        abstract: "Renew the plan of PRODUCT's group now; a new period starts (and a billing retry succeeds)."
    )
    static let action = PlanAction.forceRenew
    @Argument(help: "Any product of the plan's subscription group, by id or title.") var product: String
    @OptionGroup var common: CommonOptions
}

struct Refund: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Refund an auto-renewable purchase or renewal by its receipt id: if it pays for the current period, access ends now."
    )
    @Argument(help: "The id on the receipt (`storefront receipt`), or its first characters.") var id: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in show(try context.store.plans.refund(id), context) }
    }
}

struct Billing: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "How renewals are charged: `ok`, or `fail` (billing retry; with a grace period, access continues for a while).",
        discussion: "With no argument, shows the setting. Renewals already due are settled under the old setting first."
    )
    @Argument(help: "ok or fail.") var setting: String?
    @OptionGroup var common: CommonOptions

    func run() throws {
        try changeBilling(common, setting) { billing, text throws(BillingSetting.ParseError) in
            billing.failing = try BillingSetting.failing(parsing: text)
        }
    }
}

struct Grace: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "The billing grace period: `off`, `on` (\(BillingSetting.defaultGraceDays) days), or a number of days such as 3d, 16d or 28d."
    )
    @Argument(help: "off, on or DAYSd.") var setting: String?
    @OptionGroup var common: CommonOptions

    func run() throws {
        try changeBilling(common, setting) { billing, text throws(BillingSetting.ParseError) in
            billing.graceDays = try BillingSetting.graceDays(parsing: text)
        }
    }
}

/// Shows the billing setting, after changing it with `change` when a setting was given.
private func changeBilling(
    _ common: CommonOptions, _ setting: String?,
    _ change: (inout BillingSetting, String) throws(BillingSetting.ParseError) -> Void
) throws {
    try perform(common) { context in
        var billing = try context.store.settings.billing()
        if let setting {
            do throws(BillingSetting.ParseError) {
                try change(&billing, setting)
            } catch {
                throw CommandFailure(message: error.description, status: 2)
            }
            try context.store.settings.setBilling(billing)
        }
        showBilling(billing, context)
    }
}

private func showBilling(_ billing: BillingSetting, _ context: Context) {
    output(
        context,
        json: .object([
            ("billing", .string(billing.failing ? "fail" : "ok")),
            ("graceDays", billing.graceDays.map(JSON.int) ?? .null),
        ]),
        text: "renewals \(billing.failing ? "fail to charge (billing retry)" : "charge normally"); "
            + (billing.graceDays.map { "grace period \($0) days" } ?? "no grace period")
    )
}

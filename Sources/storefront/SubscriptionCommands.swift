// Auto-renewable subscriptions on the command line: the plans of the signed-in account,
// the actions Xcode's transaction manager offers on them, and how renewals are charged.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

private func show(_ plan: PlanStatus, _ context: Context) {
    output(
        context, json: PlanOutput(plan, context),
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
            struct Listed: Encodable {
                var plans: [PlanOutput]
                var billing: String
                var graceDays: Int?
            }
            // S2: each plan's renewal info and its latest transaction, signed.
            let signed = try plans.map { plan in
                context.json
                    ? PlanOutput(
                        plan, context, signedRenewalInfo: try context.store.signed.renewalInfo(plan).jws,
                        signedTransaction: .some(try context.store.signed.planTransaction(plan)?.jws))
                    : PlanOutput(plan, context)
            }
            let setting = BillingOutput(billing)
            let json = Listed(plans: signed, billing: setting.billing, graceDays: setting.graceDays)
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
        context, json: BillingOutput(billing),
        text: "renewals \(billing.failing ? "fail to charge (billing retry)" : "charge normally"); "
            + (billing.graceDays.map { "grace period \($0) days" } ?? "no grace period")
    )
}

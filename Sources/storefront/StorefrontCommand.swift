// `storefront storefront`: the storefront the signed-in account buys in (F3), and moving it.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

extension StorefrontChangeChoice: ExpressibleByArgument {}

struct StorefrontCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storefront",
        abstract: "The storefront (country) the signed-in account buys in, and moving it to another.",
        discussion: """
            Prices and availability follow the account's storefront; what it bought keeps the storefront \
            it was bought in. As on the App Store, an account with a subscription that has not ended \
            cannot move (F3). On a team server the account's storefront is kept there, for every device.
            """,
        subcommands: [Show.self, Set.self],
        defaultSubcommand: Show.self
    )

    private struct Shown: Encodable {
        var storefront, storefrontId, currency, locale: String
    }

    static func show(_ context: Context) throws {
        // Read afresh; the catalog as the account sees it then follows it.
        _ = try context.store.accounts.storefront()
        let catalog = context.store.catalog
        let shown = Shown(
            storefront: catalog.storefront, storefrontId: catalog.storefrontID, currency: catalog.currencyCode,
            locale: catalog.localeIdentifier)
        output(
            context, json: shown,
            text: "\(shown.storefront) (storefront id \(shown.storefrontId), \(shown.currency), \(shown.locale))")
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the account's storefront.")
        @OptionGroup var common: CommonOptions
        func run() throws { try perform(common) { try StorefrontCommand.show($0) } }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move the signed-in account to another storefront: an alpha-3 code (FRA, GBR, JPN).")
        @Argument(help: "The storefront's alpha-3 country code.") var code: String
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                try context.store.accounts.setStorefront(code)
                try StorefrontCommand.show(context)
            }
        }
    }
}

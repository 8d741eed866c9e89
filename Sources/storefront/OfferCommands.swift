// `storefront offer-codes` and `storefront redeem` (O3): codes for a catalog's code offers, made
// and kept by the account server, redeemed on a device as the offer code redemption sheet does.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct OfferCodes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer-codes",
        abstract:
            "Offer codes for the catalog's code offers (codeOffers): make one-time or custom codes, list them with their uses.",
        subcommands: [List.self, Create.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every code, its offer and how many of its uses are taken.")
        @OptionGroup var common: CommonOptions
        func run() throws {
            try perform(common) { context in
                struct Listed: Encodable {
                    struct Code: Encodable {
                        var code, product, offer: String
                        var custom: Bool
                        var limit, used: Int
                        var createdAt: String?
                    }
                    var codes: [Code]
                }
                let codes = try context.store.offers.codes()
                output(
                    context,
                    json: Listed(
                        codes: codes.map {
                            Listed.Code(
                                code: $0.code.code, product: $0.code.productID, offer: $0.code.offerID,
                                custom: $0.code.isCustom, limit: $0.code.limit, used: $0.used,
                                createdAt: context.dateText($0.code.createdAt))
                        }),
                    text: codes.isEmpty
                        ? "no offer codes (`storefront offer-codes create OFFER`)"
                        : codes.map {
                            "\($0.code.code)  \($0.code.offerID)  \($0.code.productID)  used \($0.used) of \($0.code.limit)"
                        }.joined(separator: "\n")
                )
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make codes for a code offer, named by its reference name.")
        @Argument(help: "The code offer's reference name (`storefront products --json` lists a product's offers).")
        var offer: String
        @Option(help: "How many one-time codes (each good once).") var count = 1
        @Option(
            help: ArgumentHelp("One custom code instead, good --limit times (once per account).", valueName: "code"))
        var custom: String?
        @Option(help: "How many times the custom code can be redeemed.") var limit: Int?
        @OptionGroup var common: CommonOptions

        func validate() throws {
            guard (1...10_000).contains(count) else { throw ValidationError("--count takes 1 to 10000") }
            if let custom {
                guard OfferCode.isValidCustom(custom) else {
                    throw ValidationError("--custom takes 1 to 64 letters, digits, '-' or '_'")
                }
                guard let limit, (1...1_000_000).contains(limit) else {
                    throw ValidationError("--custom needs --limit N (1 to 1000000)")
                }
                if count != 1 { throw ValidationError("--count is for one-time codes; a custom code has --limit") }
            } else if limit != nil {
                throw ValidationError("--limit goes with --custom CODE")
            }
        }

        func run() throws {
            try perform(common) { context in
                struct Made: Encodable {
                    var codes: [String]
                    var offer, product: String
                }
                let codes = try context.store.offers.createCodes(
                    offer: offer, count: count, custom: custom, limit: limit ?? 1)
                output(
                    context,
                    json: Made(codes: codes.map(\.code), offer: offer, product: codes[0].productID),
                    text: codes.map(\.code).joined(separator: "\n")
                )
            }
        }
    }
}

struct Redeem: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Redeem an offer code, as the offer code redemption sheet does: the code's plan on its offer.",
        discussion:
            "Eligibility is the offer's (new, existing or expired subscribers of the group); a one-time code works once, a custom code up to its limit and once per account."
    )
    @Argument(help: "The code.") var code: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try perform(common) { context in try context.report(try context.store.queue.redeem(code: code)) }
    }
}

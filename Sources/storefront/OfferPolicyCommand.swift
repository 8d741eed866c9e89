// `storefront offer-policy` (W18): what a team server signs in the developer's name for a
// customer's own session: promotional offer signatures and introductory offer eligibility that
// gives the offer again. The developer sets it; a customer reads it as it applies to her.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct OfferPolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer-policy",
        abstract: "What a team server signs for a customer's offers in the developer's name (the developer sets it).",
        discussion: """
            In Apple's world promotional offer signatures and introductory offer eligibility tokens come from the developer's own server. \
            A team server stands in for it, and signs for a customer's session only as this policy says; the developer's token signs any. \
            Until it is set: each promotional offer once per account, the introductory offer never again.
            """,
        subcommands: [Show.self, Set.self],
        defaultSubcommand: Show.self
    )

    static func show(_ context: Context) throws {
        struct Shown: Encodable {
            struct Uses: Encodable {
                var offer: String
                var uses: Int
            }
            var promotionalUses, introductoryUses: Int
            var offers: [Uses]
            var customers: [String]?
        }
        let policy = try context.store.server.offerPolicy() ?? .standard
        output(
            context,
            json: Shown(
                promotionalUses: policy.promotionalUses, introductoryUses: policy.introductoryUses,
                offers: policy.offers.keys.sorted().map { Shown.Uses(offer: $0, uses: policy.offers[$0] ?? 0) },
                customers: policy.customers),
            text: policy.words.joined(separator: "\n"))
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the policy.")
        @OptionGroup var common: CommonOptions
        func run() throws { try perform(common) { try OfferPolicyCommand.show($0) } }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the policy; what is not named stays as it was.")
        @Option(help: "Times one account may have each promotional offer signed (0 to 10).")
        var promotionalUses: Int?
        @Option(
            help: "OFFER=N: times one account may have that offer signed, instead of --promotional-uses (repeatable).")
        var offer: [String] = []
        @Option(help: "Times one account may have one product's introductory offer given again (0 to 10).")
        var introductoryUses: Int?
        @Option(help: "The only accounts it signs for, comma-separated.") var customers: String?
        @Flag(help: "Sign for every customer again.") var everyCustomer = false
        @OptionGroup var common: CommonOptions

        func validate() throws {
            for count in [promotionalUses, introductoryUses].compactMap({ $0 })
            where !OfferSigningPolicy.uses.contains(count) {
                throw ValidationError(
                    "a count is 0 to \(OfferSigningPolicy.maximumUses) uses per account, not \(count)")
            }
            if customers != nil && everyCustomer { throw ValidationError("--customers or --every-customer, not both") }
            _ = try counts()
        }

        func counts() throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for item in offer {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, let count = Int(parts[1]),
                    OfferSigningPolicy.uses.contains(count)
                else {
                    throw ValidationError(
                        "--offer \(item): expected OFFER=N, N from 0 to \(OfferSigningPolicy.maximumUses)")
                }
                counts[parts[0]] = count
            }
            return counts
        }

        func run() throws {
            try perform(common) { context in
                var policy = try context.store.server.offerPolicy() ?? .standard
                if let promotionalUses { policy.promotionalUses = promotionalUses }
                if let introductoryUses { policy.introductoryUses = introductoryUses }
                policy.offers.merge(try counts()) { $1 }
                if let customers {
                    policy.customers = customers.split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces).lowercased()
                    }
                }
                if everyCustomer { policy.customers = nil }
                try context.store.server.setOfferPolicy(policy)
                try OfferPolicyCommand.show(context)
            }
        }
    }
}

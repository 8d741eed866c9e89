// What a team server signs for a customer's own session in the developer's name (W18): promotional
// offer signatures and introductory offer eligibility that gives the offer again. In Apple's world
// both are made by the developer's own server with the developer's in-app purchase key; a team
// server stands in for that server, so it signs only as the developer set here. The developer's
// token signs anything.
import Foundation

public struct OfferSigningPolicy: Codable, Equatable, Sendable {
    /// How many times one account may have each promotional offer signed.
    public var promotionalUses: Int
    /// Offers with a count of their own, by offer id (0: never for a customer).
    public var offers: [String: Int]
    /// How many times one account may have the introductory offer of one product given again by an
    /// eligibility token (0: never; the App Store's records decide, once per group).
    public var introductoryUses: Int
    /// The accounts the policy signs for, lowercased; nil: every customer.
    public var customers: [String]?

    /// Until the developer sets one: each promotional offer once per account, the introductory
    /// offer never again.
    public static let standard = OfferSigningPolicy(
        promotionalUses: 1, offers: [:], introductoryUses: 0, customers: nil)

    public init(promotionalUses: Int, offers: [String: Int], introductoryUses: Int, customers: [String]?) {
        self.promotionalUses = promotionalUses
        self.offers = offers
        self.introductoryUses = introductoryUses
        self.customers = customers?.map { $0.lowercased() }
    }

    /// The policy names `account` among the customers it signs for.
    public func signs(for account: String) -> Bool { customers?.contains(account.lowercased()) ?? true }

    /// How many times `account` may have promotional offer `offerID` signed.
    public func promotionalUses(_ offerID: String, account: String) -> Int {
        signs(for: account) ? max(0, offers[offerID] ?? promotionalUses) : 0
    }

    /// How many times `account` may have one product's introductory offer given again.
    public func introductoryUses(account: String) -> Int { signs(for: account) ? max(0, introductoryUses) : 0 }

    /// The policy as one of `accounts` reads it: the other customers it names are not theirs to know.
    public func seen(by accounts: Set<String>) -> OfferSigningPolicy {
        var seen = self
        seen.customers = customers?.filter { accounts.contains($0) }
        return seen
    }

    /// The most uses a policy gives one account of one offer: each use is a claim of its own.
    public static let maximumUses = 10
    /// The counts a policy may give.
    public static let uses = 0...maximumUses

    /// A count below zero, or above the maximum, is a mistake, not a policy.
    public func check() throws(StoreError) {
        let counts = [promotionalUses, introductoryUses] + Array(offers.values)
        guard counts.allSatisfy(Self.uses.contains) else {
            throw StoreError.refusedByServer("an offer policy's counts are 0 to \(Self.maximumUses) uses per account")
        }
    }

    /// One line per rule, as the command line and the offer sheet say it.
    public var words: [String] {
        var lines = [
            "promotional offers: \(Self.times(promotionalUses)) per offer and account",
            "introductory offer again: \(Self.times(introductoryUses)) per product and account",
        ]
        lines += offers.keys.sorted().map { "\($0): \(Self.times(offers[$0] ?? 0)) per account" }
        lines.append("customers: \(customers.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? "every one")")
        return lines
    }

    static func times(_ count: Int) -> String { count == 0 ? "never" : count == 1 ? "once" : "\(count) times" }
}

// Play's ids, as the Play Developer API's discovery document (androidpublisher v3) states them, and
// a product's Play identity derived from its App Store one where the catalog gives none.
import Foundation

public enum PlayIDs {
    /// What a product id may hold, and what a base plan id, offer id or tag may.
    static let productCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789_.")
    static let labelCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")

    /// OneTimeProduct.productId: starts with a lower-case letter or number; lower-case letters,
    /// numbers, underscores and periods. Subscription.productId: the same, 1 to 40 characters.
    public static func productIdProblem(_ id: String, subscription: Bool) -> String? {
        guard let first = id.first else { return "a Play product id is not empty" }
        guard first.isASCII, first.isLowercase || first.isNumber, id.allSatisfy(productCharacters.contains) else {
            return
                "\"\(id)\" is not a Play product id: it starts with a lower-case letter or a number, and holds only lower-case letters, numbers, underscores and periods"
        }
        if subscription, id.count > 40 { return "\"\(id)\" is not a Play subscription id: at most 40 characters" }
        return nil
    }

    /// BasePlan.basePlanId, and offer ids and offer tags likewise (RFC-1034): lower-case letters,
    /// numbers and hyphens, starting with a letter or number; at most 63 characters (a tag, 20).
    public static func labelProblem(_ id: String, what: String, limit: Int = 63) -> String? {
        guard let first = id.first, first != "-", id.allSatisfy(labelCharacters.contains), id.count <= limit else {
            return
                "\"\(id)\" is not a Play \(what): lower-case letters, numbers and hyphens, not starting with a hyphen, at most \(limit) characters"
        }
        return nil
    }

    /// An App Store product id as a Play one: lower-cased, other characters as underscores, and for
    /// a subscription the leading reverse-DNS parts dropped until it fits in 40 characters.
    static func productId(from appleID: String, subscription: Bool) -> String {
        var id = String(appleID.lowercased().map { productCharacters.contains($0) ? $0 : "_" })
        while subscription, id.count > 40, let dot = id.firstIndex(of: ".") {
            id = String(id[id.index(after: dot)...])
        }
        if subscription, id.count > 40 { id = String(id.suffix(40)) }
        while let first = id.first, first == "_" || first == "." { id.removeFirst() }
        return id.isEmpty ? "product" : id
    }

    /// An App Store offer id as a Play label: lower-cased, runs of other characters as one hyphen.
    static func label(from text: String) -> String {
        var label = ""
        for character in text.lowercased() {
            if character.isASCII, character.isLowercase || character.isNumber {
                label.append(character)
            } else if !label.isEmpty, label.last != "-" {
                label.append("-")
            }
        }
        while label.last == "-" { label.removeLast() }
        return label.isEmpty ? "offer" : String(label.prefix(63))
    }

    /// A base plan id for a period: "weekly", "monthly", "yearly", or "every-3-months";
    /// a prepaid one says so: "prepaid-3-months".
    static func basePlanId(_ period: SubscriptionPeriod, prepaid: Bool) -> String {
        let unit = period.unit.rawValue + (period.value == 1 ? "" : "s")
        if prepaid { return "prepaid-\(period.value)-\(unit)" }
        guard period.value == 1 else { return "every-\(period.value)-\(unit)" }
        switch period.unit {
        case .day: return "daily"
        case .week: return "weekly"
        case .month: return "monthly"
        case .year: return "yearly"
        }
    }
}

extension PlayProduct {
    /// `product`'s Play identity: its catalog's `play` entry, the rest derived.
    static func derived(from product: Product) throws(PlayCatalogError) -> PlayProduct {
        let listing = product.play
        // A non-renewing subscription whose duration nobody gave (a `.storekit` file's) extends
        // nothing on the App Store either: on Play it is a one-time product.
        let subscription =
            product.kind == .autoRenewableSubscription
            || (product.kind == .nonRenewingSubscription && (product.duration ?? product.monthsPeriod) != nil)
        let productId = listing.productId ?? PlayIDs.productId(from: product.id, subscription: subscription)
        func check(_ problem: String?) throws(PlayCatalogError) {
            if let problem { throw PlayCatalogError(product: product.id, message: problem) }
        }
        try check(PlayIDs.productIdProblem(productId, subscription: subscription))
        var play = PlayProduct(
            productId: productId, kind: subscription ? .subscription : .oneTime, product: product.id,
            consumable: product.kind == .consumable, basePlans: [], offers: [])
        guard subscription else { return play }
        let prepaid = product.kind == .nonRenewingSubscription
        guard let period = prepaid ? product.duration ?? product.monthsPeriod : product.autoRenew?.period else {
            throw PlayCatalogError(product: product.id, message: "a Play base plan needs the subscription's duration")
        }
        let basePlanId = listing.basePlanId ?? PlayIDs.basePlanId(period, prepaid: prepaid)
        try check(PlayIDs.labelProblem(basePlanId, what: "base plan id"))
        play.basePlans = [
            PlayBasePlan(
                basePlanId: basePlanId, renewal: prepaid ? .prepaid : .autoRenewing, period: period,
                price: product.price)
        ]
        var offers: [(String?, IntroductoryOffer, PlayOffer.Eligibility, [String])] = []
        if let intro = product.autoRenew?.introductoryOffer { offers.append((nil, intro, .newCustomers, [])) }
        for offer in product.autoRenew?.offers ?? [] where offer.type == .promotional || offer.type == .winBack {
            offers.append((offer.id, offer.terms, .developerDetermined, [PlayIDs.label(from: offer.type.key)]))
        }
        for (appleOffer, terms, eligibility, tags) in offers {
            let key = appleOffer ?? PlayListing.introductoryKey
            let offerId = listing.offerIds[key] ?? (appleOffer.map(PlayIDs.label(from:)) ?? "intro")
            try check(PlayIDs.labelProblem(offerId, what: "offer id"))
            if play.offers.contains(where: { $0.offerId == offerId }) {
                throw PlayCatalogError(
                    product: product.id,
                    message: "two of its offers are \"\(offerId)\" on Play: name one in \"play\": {\"offers\": …}")
            }
            let phase: PlayOffer.Phase =
                switch terms.mode {
                case .freeTrial: .init(price: 0, period: terms.period, recurrences: terms.periods)
                case .payAsYouGo: .init(price: terms.price, period: terms.period, recurrences: terms.periods)
                case .payUpFront:
                    .init(
                        price: terms.price,
                        period: SubscriptionPeriod(terms.period.value * terms.periods, terms.period.unit),
                        recurrences: 1)
                }
            play.offers.append(
                PlayOffer(
                    offerId: offerId, basePlanId: basePlanId, eligibility: eligibility, phases: [phase], tags: tags,
                    appleOffer: appleOffer))
        }
        return play
    }
}

extension Product {
    /// A non-renewing subscription's length in months when the catalog gave `months` only.
    var monthsPeriod: SubscriptionPeriod? { months > 0 ? SubscriptionPeriod(months, .month) : nil }
}

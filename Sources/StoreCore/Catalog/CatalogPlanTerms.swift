// An auto-renewable subscription's terms as a catalog file gives them: its period, group and
// level, what it unlocks, its offers, and its monthly billing plan with a 12-month commitment.
import Foundation
import StoreModel

enum CatalogPlanTerms {
    /// period, group, rank, introOffer, unlocks and the offers of an auto-renewable subscription.
    static func terms(_ fields: CatalogFields) throws(CatalogError) -> AutoRenewTerms {
        guard let periodText = try fields.string("period") else {
            throw fields.error("an auto-renewable subscription needs a \"period\" such as \"P1M\"")
        }
        let period: SubscriptionPeriod
        do { period = try SubscriptionPeriod(parsing: periodText) } catch { throw fields.error("period: \(error)") }
        guard let group = try fields.string("group"), !group.isEmpty else {
            throw fields.error("an auto-renewable subscription needs a \"group\"")
        }
        let rank = try fields.integer("rank") ?? 1
        if rank < 1 { throw fields.error("rank \(rank) must be at least 1 (1 is the highest level)") }
        let unlocks = try fields.strings("unlocks", message: "\"unlocks\" must be an array of strings") ?? []
        let offer = try fields.object("introOffer", message: "\"introOffer\" must be an object").map {
            inner throws(CatalogError) in try offerTerms(inner)
        }
        var offers: [SubscriptionOffer] = []
        for (key, type) in [
            ("promotionalOffers", OfferType.promotional), ("codeOffers", .code), ("winBackOffers", .winBack),
        ] {
            let list = try fields.objects(key, message: "\"\(key)\" must be an array of objects") ?? []
            for inner in list {
                guard let id = try inner.string("id"), !id.isEmpty else { throw inner.error("has no \"id\"") }
                if offers.contains(where: { $0.id == id && $0.type == type }) {
                    throw inner.error("offer \"\(id)\" is given twice")
                }
                offers.append(
                    SubscriptionOffer(
                        id: id, type: type, terms: try offerTerms(inner),
                        eligibility: type == .code ? try eligibility(inner) : Set(OfferEligibility.allCases),
                        winBack: type == .winBack ? try winBack(inner) : nil))
            }
        }
        return AutoRenewTerms(
            period: period, group: group, rank: rank, introductoryOffer: offer, unlocks: unlocks, offers: offers)
    }

    /// Who an offer code is for: new, existing and expired subscribers unless the file says.
    private static func eligibility(_ inner: CatalogFields) throws(CatalogError) -> Set<OfferEligibility> {
        let message = "\"eligibility\" must be a list of new, existing, expired"
        guard let names = try inner.strings("eligibility", message: message) else {
            return Set(OfferEligibility.allCases)
        }
        guard !names.isEmpty else { throw inner.error(message) }
        var eligibility: Set<OfferEligibility> = []
        for name in names {
            guard let value = OfferEligibility(rawValue: name) else {
                throw inner.error("eligibility \"\(name)\" is not new, existing or expired")
            }
            eligibility.insert(value)
        }
        return eligibility
    }

    /// Who a win-back offer is for: months paid, and months since the plan lapsed.
    private static func winBack(_ inner: CatalogFields) throws(CatalogError) -> WinBackEligibility {
        let paid = try inner.integer("paidMonths") ?? 1
        if paid < 0 || paid > 120 { throw inner.error("paidMonths \(paid) must be 0 to 120") }
        var lapsed = 0...24
        if inner.hasValue("lapsedMonths") {
            guard let pair = inner.integers("lapsedMonths"), pair.count == 2, pair[0] >= 0, pair[0] <= pair[1] else {
                throw inner.error("\"lapsedMonths\" is [least, most], such as [1, 12]")
            }
            lapsed = pair[0]...pair[1]
        }
        return WinBackEligibility(paidMonths: paid, lapsedMonths: lapsed)
    }

    /// The monthly price of "Monthly with a 12-month commitment": a one-year plan's second billing
    /// plan, whose twelve payments come to at least its price up front and at most 1.5 times it, as
    /// App Store Connect allows.
    static func monthlyCommitmentPrice(_ fields: CatalogFields, terms: AutoRenewTerms?, yearly: Decimal)
        throws(CatalogError) -> Decimal
    {
        guard let terms, terms.period == .year else {
            throw fields.error(
                "\"monthlyCommitmentPrice\" is for an auto-renewable subscription with the period \"P1Y\"")
        }
        guard let text = try fields.priceText(key: "monthlyCommitmentPrice"), let monthly = Decimal(string: text),
            PriceText.isPlainDecimal(text)
        else { throw fields.error("\"monthlyCommitmentPrice\" is not a decimal number like \"0.99\"") }
        let total = monthly * Decimal(BillingPlan.commitmentPeriods)
        guard total >= yearly, total <= yearly * Decimal(string: "1.5")! else {
            throw fields.error(
                "\"monthlyCommitmentPrice\" \(text) makes 12 payments of \(PriceFormatter.plain(total)): they must come to between the price (\(PriceFormatter.plain(yearly))) and 1.5 times it"
            )
        }
        return monthly
    }

    /// The mode, period, count and price of an offer.
    private static func offerTerms(_ inner: CatalogFields) throws(CatalogError) -> IntroductoryOffer {
        guard let modeText = try inner.string("mode"), let mode = IntroductoryOffer.Mode(rawValue: modeText) else {
            let modes = IntroductoryOffer.Mode.allCases.map(\.rawValue).joined(separator: ", ")
            throw inner.error("\"mode\" must be one of \(modes)")
        }
        guard let offerPeriodText = try inner.string("period") else { throw inner.error("has no \"period\"") }
        let offerPeriod: SubscriptionPeriod
        do { offerPeriod = try SubscriptionPeriod(parsing: offerPeriodText) } catch {
            throw inner.error("period: \(error)")
        }
        let periods = try inner.integer("periods") ?? 1
        if periods < 1 || periods > 99 { throw inner.error("periods \(periods) must be between 1 and 99") }
        var offerPrice: Decimal = 0
        if mode != .freeTrial {
            guard let text = try inner.priceText() else { throw inner.error("a paid offer needs a \"price\"") }
            guard let value = Decimal(string: text), value >= 0, PriceText.isPlainDecimal(text) else {
                throw inner.error("price \"\(text)\" is not a decimal number like \"0.99\"")
            }
            offerPrice = value
        }
        return IntroductoryOffer(mode: mode, period: offerPeriod, periods: periods, price: offerPrice)
    }
}

// A .storekit subscription's billing plans (format 5 and later, M4): `billingPlans` says how the
// plan may be paid (BILLED_UPFRONT, MONTHLY with a 12-month commitment, each `isEnabled`), and
// every offer carries the `billingPlanType` it is configured on. As in Xcode's StoreKit Testing,
// the file decides what is sold, whatever the storefront.
import Foundation

extension StoreKitCatalog.ProductReader {
    /// The billing plan an entry names in `billingPlanType`; nil when it names none.
    static func billingPlan(of object: StoreKitCatalog.Object, _ node: StoreKitCatalog.Node) throws(CatalogError)
        -> BillingPlan?
    {
        guard let typeNode = object.child("billingPlanType"), let text = try typeNode.stringOrNil() else { return nil }
        guard let plan = BillingPlan(rawValue: text) else {
            throw typeNode.error("\"\(text)\" is not a billing plan (BILLED_UPFRONT, MONTHLY)")
        }
        return plan
    }

    /// Reads `billingPlans` and the introductory offer of each plan into `terms`.
    func billingPlans(
        _ entry: StoreKitCatalog.Object, node: StoreKitCatalog.Node, productID: String, upfrontPrice: Decimal,
        terms: inout AutoRenewTerms, warnings: inout [CatalogWarning]
    ) throws(CatalogError) {
        for planNode in try entry.child("billingPlans")?.arrayOrNil() ?? [] {
            guard let plan = try planNode.objectOrNil(), let type = try Self.billingPlan(of: plan, planNode) else {
                continue
            }
            let enabled = try plan.child("isEnabled")?.boolean() ?? true
            switch type {
            case .billedUpfront:
                terms.soldUpfront = enabled
                if let text = try plan.child("displayPrice")?.stringOrNil(), let given = Decimal(string: text),
                    given != upfrontPrice
                {
                    warnings.append(
                        CatalogWarning(
                            file: file, entry: planNode.path,
                            message:
                                "the BILLED_UPFRONT plan's \"displayPrice\" \(text) is not the product's \(PriceFormatter.plain(upfrontPrice)): the product's is billed"
                        ))
                }
            case .monthly where !enabled:
                continue
            case .monthly:
                guard terms.period == .year else {
                    warnings.append(
                        CatalogWarning(
                            file: file, entry: planNode.path,
                            message:
                                "a MONTHLY billing plan is for a one-year plan; \(productID) renews every \(terms.period): not sold monthly"
                        ))
                    continue
                }
                let monthly = try price(plan.child("displayPrice"), missing: planNode, warnings: &warnings)
                terms.monthlyCommitmentPrice = monthly
                let total = monthly * Decimal(BillingPlan.commitmentPeriods)
                if let text = try plan.child("commitmentDisplayPrice")?.stringOrNil(),
                    let given = Decimal(string: text),
                    given != total
                {
                    warnings.append(
                        CatalogWarning(
                            file: file, entry: planNode.path,
                            message:
                                "\"commitmentDisplayPrice\" \(text) is not 12 × \(PriceFormatter.plain(monthly)): the commitment is billed \(PriceFormatter.plain(total))"
                        ))
                }
            }
        }
        if !terms.soldUpfront, terms.monthlyCommitmentPrice == nil {
            warnings.append(
                CatalogWarning(
                    file: file, entry: node.path,
                    message: "\(productID) has no billing plan enabled: it cannot be bought"))
        }
        // `introductoryOffers` (format 5): one per billing plan, over the single `introductoryOffer`.
        guard let list = try entry.child("introductoryOffers")?.arrayOrNil(), !list.isEmpty else { return }
        terms.introductoryOffer = nil
        for item in list {
            guard let object = try item.objectOrNil(),
                let offer = try offer(item, productID: productID, period: terms.period, warnings: &warnings)
            else { continue }
            switch try Self.billingPlan(of: object, item) ?? .billedUpfront {
            case .billedUpfront: terms.introductoryOffer = offer
            case .monthly: terms.monthlyIntroductoryOffer = offer
            }
        }
    }
}

// A .storekit subscription's billing plans (format 5 and later, M4): `billingPlans` says how the
// plan may be paid (BILLED_UPFRONT, MONTHLY with a 12-month commitment, each `isEnabled`), and
// every offer carries the `billingPlanType` it is configured on. As in Xcode's StoreKit Testing,
// the file decides what is sold, whatever the storefront.
import Foundation
import StoreModel

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

extension StoreKitCatalog {
    /// What a file has that is not sold here, each said by name: subscription suites and bundles
    /// (format 6), and a monthly plan in a storefront where Apple's App Store does not sell one.
    static func unsold(_ root: Object, catalog: Catalog, storefront: String, file: String) throws(CatalogError)
        -> [CatalogWarning]
    {
        var found: [CatalogWarning] = []
        // Subscription suites and bundles (format 6): not sold here, and said so by name.
        for (key, kind) in [("subscriptionSuiteGroups", "suite"), ("subscriptionBundleGroups", "bundle")] {
            for (groupIndex, groupNode) in (try root.child(key)?.arrayOrNil() ?? []).enumerated() {
                let group = try groupNode.object()
                for (index, node) in (try group.child("subscriptions")?.arrayOrNil() ?? []).enumerated() {
                    let entry = try node.objectOrNil()
                    let id = try entry?.child("productID")?.stringOrNil() ?? "an entry with no productID"
                    found.append(
                        CatalogWarning(
                            file: file, entry: "\(key)[\(groupIndex)].subscriptions[\(index)]",
                            message:
                                "\"\(id)\" is a subscription \(kind): Storefront does not sell subscription \(kind)s, so it is not in this store"
                        ))
                }
            }
        }
        // Apple sells the monthly plan with a 12-month commitment in most storefronts, not all;
        // like Xcode's StoreKit Testing, the file decides here.
        if Storefronts.withoutMonthlyCommitment.contains(storefront),
            let monthly = catalog.products.first(where: { $0.autoRenew?.monthlyCommitmentPrice != nil })
        {
            found.append(
                CatalogWarning(
                    file: file, entry: "settings._storefront",
                    message:
                        "Apple's App Store does not offer monthly plans with a 12-month commitment in the United States or Singapore; this file's (\(monthly.id) and any other) are sold here as Xcode's StoreKit Testing sells them"
                ))
        }
        return found
    }
}

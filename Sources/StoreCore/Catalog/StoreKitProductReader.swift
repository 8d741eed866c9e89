// One product of a .storekit file (C6): its kind, names for the storefront's locale, price,
// period, offers and family sharing, every key optional as Xcode writes it.
import Crypto
import Foundation
import StoreModel

extension StoreKitCatalog {
    /// One product entry of any kind.
    struct ProductReader {
        let locale: String
        let options: StoreKitOptions
        let side: SideFile
        /// The package's `Assets/`, nil for a lone file.
        let assets: PromotionalAssets?
        let file: String

        func product(
            _ node: Node, defaultType: String?, group: (id: String, title: String, position: Int)? = nil,
            warnings: inout [CatalogWarning]
        ) throws(CatalogError) -> Product {
            let entry = try node.object()
            guard let id = try entry.child("productID")?.stringOrNil(), !id.trimmingCharacters(in: .whitespaces).isEmpty
            else {
                throw node.error("has no \"productID\"")
            }
            var typeName = try entry.child("type")?.stringOrNil() ?? defaultType
            if typeName == nil {
                // Every key is optional: an entry of "products" that does not say is a non-consumable.
                typeName = "NonConsumable"
                warnings.append(
                    CatalogWarning(file: file, entry: node.path, message: "has no \"type\"; read as NonConsumable"))
            }
            let kind: ProductKind
            switch typeName {
            case "Consumable": kind = .consumable
            case "NonConsumable": kind = .nonConsumable
            case "NonRenewingSubscription": kind = .nonRenewingSubscription
            case "RecurringSubscription", "AutoRenewableSubscription": kind = .autoRenewableSubscription
            case let other:
                throw (entry.child("type") ?? node).error(
                    "\"\(other ?? "")\" is not a product type (Consumable, NonConsumable, NonRenewingSubscription, RecurringSubscription)"
                )
            }
            if group == nil, kind == .autoRenewableSubscription {
                throw node.error("a RecurringSubscription belongs in a subscription group")
            }
            let price = try self.price(entry.child("displayPrice"), missing: node, warnings: &warnings)
            let (title, description) = try localized(entry.child("localizations"), id: id)
            var duration: SubscriptionPeriod?
            var durationSource: String?
            var terms: AutoRenewTerms?
            switch kind {
            case .nonRenewingSubscription:
                let reference = try entry.child("referenceName")?.stringOrNil()
                if let given = options.durations[id] {
                    (duration, durationSource) = (given, "--duration")
                } else if let given = side.durations[id] {
                    (duration, durationSource) = (given, "side file")
                } else if let (inferred, source) = DurationInference.infer(
                    id: id, names: [reference, title].compactMap { $0 })
                {
                    (duration, durationSource) = (inferred, source)
                } else {
                    durationSource = "unknown: say it with --duration \(id)=P1M or in the side file"
                    warnings.append(
                        CatalogWarning(
                            file: file, entry: node.path,
                            message:
                                "\"\(id)\" states no duration; it cannot be bought until you give one (--duration \(id)=P1M)"
                        ))
                }
            case .autoRenewableSubscription:
                guard let group else { break }
                let periodNode = entry.child("recurringSubscriptionPeriod")
                guard let periodText = try periodNode?.stringOrNil(), let periodNode else {
                    throw node.error("has no \"recurringSubscriptionPeriod\"")
                }
                let period = try Self.period(periodText, periodNode)
                let rank = try entry.child("groupNumber")?.integer() ?? group.position
                if rank < 1 {
                    throw (entry.child("groupNumber") ?? node).error("\(rank) is not a level (1 is the highest)")
                }
                terms = AutoRenewTerms(
                    period: period, group: group.id, rank: rank,
                    introductoryOffer: try offer(
                        entry.child("introductoryOffer"), productID: id, period: period, warnings: &warnings),
                    unlocks: side.unlocks[id] ?? [group.title],
                    offers: try subscriptionOffers(
                        entry.child("adHocOffers"), type: .promotional, productID: id, period: period,
                        warnings: &warnings)
                        + subscriptionOffers(
                            entry.child("codeOffers"), type: .code, productID: id, period: period, warnings: &warnings)
                        + subscriptionOffers(
                            entry.child("winbackOffers"), type: .winBack, productID: id, period: period,
                            warnings: &warnings)
                )
                if var read = terms {
                    try billingPlans(
                        entry, node: node, productID: id, upfrontPrice: price, terms: &read, warnings: &warnings)
                    terms = read
                }
            case .consumable, .nonConsumable:
                break
            }
            let art = try promotionalImage(entry, warnings: &warnings)
            // A product with art of its own shows it once owned too, not a generated picture.
            let generated = kind == .nonConsumable && art == nil ? Placeholder.path(for: id) : nil
            var product = Product(
                id: id, kind: kind, title: title, description: description, price: price,
                image: side.images[id] ?? generated,
                quantity: kind == .consumable ? side.quantities[id] ?? 1 : 0, duration: duration, autoRenew: terms
            )
            product.durationSource = durationSource
            product.promotionalImage = art
            // O5: Family Sharing, for the kinds the App Store shares.
            if kind == .nonConsumable || kind == .autoRenewableSubscription {
                product.isFamilyShareable = try entry.child("familyShareable")?.boolean() ?? false
            }
            return product
        }

        /// A `displayPrice`; missing, null or empty (as Xcode saves a price nobody typed) is
        /// `fallback` (the side file's) or free, with a warning naming the path.
        func price(
            _ node: Node?, missing parent: Node, fallback: Decimal? = nil, warnings: inout [CatalogWarning]
        ) throws(CatalogError) -> Decimal {
            let given = (node?.value as? String)?.trimmingCharacters(in: .whitespaces)
            guard let node, !(node.value is NSNull), given != "" else {
                let path = node?.path ?? parent.path
                let what = node == nil ? "has no \"displayPrice\"" : "\"displayPrice\" is empty"
                if let fallback {
                    warnings.append(
                        CatalogWarning(
                            file: file, entry: path,
                            message: "\(what); the side file's price \(PriceFormatter.plain(fallback)) is used"))
                    return fallback
                }
                warnings.append(CatalogWarning(file: file, entry: path, message: "\(what); it is free"))
                return 0
            }
            let text: String
            if let given {
                text = given
            } else if let number = node.value as? NSNumber, !CompactJSON.isBoolean(number) {
                text = number.stringValue
            } else {
                throw node.error("must be a price such as \"0.99\"")
            }
            guard PriceText.isPlainDecimal(text),
                let price = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            else { throw node.error("\"\(text)\" is not a price such as \"0.99\"") }
            return price
        }

        /// The display name and description for the storefront's locale: the exact locale, then
        /// the same language, then US English, then any English, then the first; empty strings
        /// fall through to the next, and the product id stands in for a name nobody gave.
        func localized(_ node: Node?, id: String) throws(CatalogError) -> (String, String) {
            var entries: [(locale: String, name: String, description: String)] = []
            for item in try node?.arrayOrNil() ?? [] {
                let object = try item.object()
                entries.append(
                    (
                        try object.child("locale")?.stringOrNil() ?? "",
                        try object.child("displayName")?.stringOrNil() ?? "",
                        try object.child("description")?.stringOrNil() ?? ""
                    ))
            }
            func normal(_ text: String) -> String { text.replacingOccurrences(of: "-", with: "_").lowercased() }
            func language(_ text: String) -> String { String(normal(text).split(separator: "_").first ?? "") }
            let wanted = normal(locale)
            let ranked = entries.enumerated().sorted { a, b in
                func rank(_ entry: (locale: String, name: String, description: String)) -> Int {
                    if normal(entry.locale) == wanted { return 0 }
                    if language(entry.locale) == language(wanted) { return 1 }
                    if normal(entry.locale) == "en_us" { return 2 }
                    if language(entry.locale) == "en" { return 3 }
                    return 4
                }
                return (rank(a.element), a.offset) < (rank(b.element), b.offset)
            }.map(\.element)
            let name = ranked.first { !$0.name.trimmingCharacters(in: .whitespaces).isEmpty }?.name ?? id
            let description =
                ranked.first { !$0.description.trimmingCharacters(in: .whitespaces).isEmpty }?.description ?? ""
            return (name, description)
        }

        /// An introductory offer. Every key is optional as Xcode writes it: no payment mode is a
        /// free trial (pay as you go when a price is given), no period is the plan's, no count is
        /// one, and a missing or empty price is the side file's or zero; each of those is a warning
        /// that names its path.
        func offer(
            _ node: Node?, productID: String, period: SubscriptionPeriod, warnings: inout [CatalogWarning]
        ) throws(CatalogError) -> IntroductoryOffer? {
            guard let node, let object = try node.objectOrNil() else { return nil }
            let modeNode = object.child("paymentMode")
            let priceNode = object.child("displayPrice")
            let mode: IntroductoryOffer.Mode
            switch try modeNode?.stringOrNil() {
            case "free", "freeTrial": mode = .freeTrial
            case "payAsYouGo": mode = .payAsYouGo
            case "payUpFront": mode = .payUpFront
            case nil:
                let priced =
                    priceNode.map {
                        !($0.value is NSNull) && ($0.value as? String)?.trimmingCharacters(in: .whitespaces) != ""
                    } ?? false
                mode = priced ? .payAsYouGo : .freeTrial
                warnings.append(
                    CatalogWarning(
                        file: file, entry: node.path,
                        message:
                            "has no \"paymentMode\"; read as \(mode == .freeTrial ? "a free trial" : "pay as you go")"
                    ))
            case let other?:
                throw (modeNode ?? node).error("\"\(other)\" is not a payment mode (free, payAsYouGo, payUpFront)")
            }
            var offerPeriod = period
            if let periodNode = object.child("subscriptionPeriod"), let text = try periodNode.stringOrNil(),
                !text.isEmpty
            {
                offerPeriod = try Self.period(text, periodNode)
            } else {
                warnings.append(
                    CatalogWarning(
                        file: file, entry: node.path,
                        message: "has no \"subscriptionPeriod\"; the plan's period \(period) is used"
                    ))
            }
            let periods = try object.child("numberOfPeriods")?.integer() ?? 1
            if periods < 1 || periods > 99 {
                throw (object.child("numberOfPeriods") ?? node).error("\(periods) periods: expected 1 to 99")
            }
            let price =
                mode == .freeTrial
                ? 0
                : try self.price(priceNode, missing: node, fallback: side.offerPrices[productID], warnings: &warnings)
            return IntroductoryOffer(mode: mode, period: offerPeriod, periods: periods, price: price)
        }

        /// C8: the file `promotionalImageID` names in the package's `Assets/`. A name with no file is a
        /// warning; in a package, the product still points at where the file would be, so that its
        /// detail view says which file is missing.
        func promotionalImage(_ entry: Object, warnings: inout [CatalogWarning]) throws(CatalogError) -> String? {
            guard let node = entry.child("promotionalImageID"), let id = try node.stringOrNil(), !id.isEmpty else {
                return nil
            }
            guard let assets else {
                warnings.append(
                    CatalogWarning(
                        file: file, entry: node.path,
                        message:
                            "\"\(id)\" has no picture here: only a .storekit package (a folder with Assets/) holds one")
                )
                return nil
            }
            let (path, found) = assets.path(for: id)
            if !found {
                warnings.append(
                    CatalogWarning(
                        file: file, entry: node.path,
                        message: "\"\(id)\" names no file in \(assets.folder) (\(id).png or \(id).jpg)"))
            }
            return path
        }

        /// `adHocOffers` (promotional offers, O2, named by `offerID`) or `codeOffers` (offer codes,
        /// O3, named by `referenceName`, with the eligibility App Store Connect gives them: all
        /// three when the file says none), priced as an introductory offer is.
        func subscriptionOffers(
            _ node: Node?, type: OfferType, productID: String, period: SubscriptionPeriod,
            warnings: inout [CatalogWarning]
        ) throws(CatalogError) -> [SubscriptionOffer] {
            guard let node, let list = try node.arrayOrNil() else { return [] }
            let nameKey = type == .code ? "referenceName" : "offerID"
            // Win-back eligibility is App Store Connect's; a file without it gets the defaults
            // (one paid month, lapsed up to two years).
            var offers: [SubscriptionOffer] = []
            for item in list {
                guard let object = try item.objectOrNil() else { continue }
                let nameNode = object.child(nameKey)
                guard let name = try nameNode?.stringOrNil(), !name.isEmpty else {
                    throw item.error("has no \"\(nameKey)\"")
                }
                if offers.contains(where: { $0.id == name }) {
                    throw (nameNode ?? item).error("offer \"\(name)\" is given twice")
                }
                guard let terms = try offer(item, productID: productID, period: period, warnings: &warnings) else {
                    continue
                }
                var eligibility = Set(OfferEligibility.allCases)
                if type == .code, let eligibilityNode = object.child("eligibility"),
                    let names = try eligibilityNode.arrayOrNil(), !names.isEmpty
                {
                    eligibility = []
                    for nameNode in names {
                        let text = try nameNode.stringOrNil() ?? ""
                        guard let value = OfferEligibility(rawValue: text) else {
                            throw nameNode.error("\"\(text)\" is not new, existing or expired")
                        }
                        eligibility.insert(value)
                    }
                }
                offers.append(
                    SubscriptionOffer(
                        id: name, type: type, terms: terms, eligibility: eligibility,
                        billingPlan: try Self.billingPlan(of: object, item) ?? .billedUpfront))
            }
            return offers
        }

        static func period(_ text: String, _ node: Node) throws(CatalogError) -> SubscriptionPeriod {
            do {
                return try SubscriptionPeriod(parsing: text)
            } catch {
                throw node.error("\"\(text)\" is not a period (expected P3D, P1W, P1M, P2M, P3M, P6M or P1Y)")
            }
        }

        /// Months stated in a product's id or names (the duration's months; tests).
        static func inferMonths(id: String, names: [String]) -> (Int, String)? {
            DurationInference.infer(id: id, names: names).map { ($0.0.duration().months, $0.1) }
        }
    }
}

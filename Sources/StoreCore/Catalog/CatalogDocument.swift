// A catalog data file (C1) as a Decodable document, checked as it is read (C5): every refusal
// names the file, the entry its coding path leads to, and what is wrong, in the words
// CatalogFields gives them.
import Foundation
import StoreModel

/// What a catalog file says: the catalog, and what is worth a warning.
struct CatalogDocument: Decodable {
    var catalog = Catalog(products: [])
    var warnings: [CatalogWarning] = []

    static let topKeys: Set = [
        "name", "bundleId", "currency", "locale", "storefront", "bonusDays", "policy", "products", "randomComics",
        "$comment",
    ]
    static let productKeys: Set = [
        "id", "kind", "title", "description", "price", "image", "promotionalImage", "quantity", "months", "duration",
        "period", "group",
        "rank", "introOffer", "promotionalOffers", "codeOffers", "winBackOffers", "unlocks", "familyShareable",
        "monthlyCommitmentPrice", "prices", "availableIn", "play", "$comment",
    ]

    init(from decoder: any Decoder) throws {
        let file = decoder.userInfo[.catalogFile] as? String ?? "catalog"
        func fail(_ entry: String?, _ message: String) -> CatalogError {
            CatalogError(file: file, entry: entry, message: message)
        }
        guard let root = try? decoder.container(keyedBy: CatalogKey.self) else {
            throw fail(nil, "must be a JSON object with a \"products\" array")
        }
        let fields = CatalogFields(root, file: file)
        for key in fields.keys where !Self.topKeys.contains(key) {
            warnings.append(CatalogWarning(file: file, entry: nil, message: "unknown key \"\(key)\" is ignored"))
        }
        catalog.name = try fields.string("name") ?? file
        catalog.bundleID = try fields.string("bundleId")
        catalog.currencyCode = try fields.string("currency") ?? "USD"
        guard catalog.currencyCode.count == 3, catalog.currencyCode.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw fail(nil, "currency \"\(catalog.currencyCode)\" is not a three-letter ISO 4217 code")
        }
        catalog.localeIdentifier = try fields.string("locale") ?? "en_US"
        try Self.storefront(fields, into: &catalog, fail: fail)
        catalog.bonusDays = try fields.integer("bonusDays") ?? 0
        if catalog.bonusDays < 0 { throw fail(nil, "bonusDays \(catalog.bonusDays) is negative") }
        if let policy = try fields.string("policy") {
            do {
                catalog.defaultPolicy = try PurchaseOutcome(parsing: policy)
            } catch {
                throw fail(nil, "policy: \(error)")
            }
        }
        guard fields.has("products") else { throw fail(nil, "has no \"products\" array") }
        guard var products = try? root.nestedUnkeyedContainer(forKey: CatalogKey("products")) else {
            throw fail(nil, "\"products\" must be an array")
        }
        var seen: [String: Int] = [:]
        while !products.isAtEnd {
            let index = products.currentIndex
            guard let object = try? products.nestedContainer(keyedBy: CatalogKey.self) else {
                throw fail("products[\(index)]", "must be an object")
            }
            let product = try Self.product(CatalogFields(object, file: file), warnings: &warnings)
            if let first = seen[product.id] {
                throw fail(
                    "products[\(index)] \"\(product.id)\"", "duplicate identifier (first used by products[\(first)])")
            }
            seen[product.id] = index
            catalog.products.append(product)
        }
        if catalog.products.isEmpty { throw fail(nil, "\"products\" is empty") }
        try Self.checkPlay(catalog, file: file)
        // F2: each product as its own storefront sells it (its "availableIn" may leave it out).
        catalog = catalog.seen(in: catalog.storefront) ?? catalog
        if fields.has("randomComics") {
            guard var list = try? root.nestedUnkeyedContainer(forKey: CatalogKey("randomComics")) else {
                throw fail(nil, "\"randomComics\" must be an array")
            }
            var seenRandom: Set<String> = []
            while !list.isAtEnd {
                let entry = "randomComics[\(list.currentIndex)]"
                guard let object = try? list.nestedContainer(keyedBy: CatalogKey.self) else {
                    throw fail(entry, "must be an object")
                }
                let comic = CatalogFields(object, file: file)
                guard let id = try comic.string("id"), !id.isEmpty else { throw fail(entry, "has no \"id\"") }
                if !seenRandom.insert(id).inserted { throw fail("\(entry) \"\(id)\"", "duplicate identifier") }
                catalog.randomComics.append(
                    RandomComic(id: id, title: try comic.string("title") ?? id, image: try comic.string("image")))
            }
        }
    }

    /// The catalog's storefront (C1, C5): the one it names, whose currency and locale it takes
    /// when it gives none and whose currency it must not contradict; else the one its locale and
    /// currency name together. A catalog that names none and whose currency and locale name none
    /// is refused: signed data would carry a storefront Apple never pairs with that currency.
    static func storefront(
        _ fields: CatalogFields, into catalog: inout Catalog, fail: (String?, String) -> CatalogError
    ) throws {
        if let named = try fields.string("storefront") {
            let code = named.uppercased()
            guard let country = Storefronts.country(code) else {
                throw fail(
                    "storefront",
                    "\"\(named)\" is not an App Store storefront (its three-letter code, as \"USA\" or \"IRL\")")
            }
            if !fields.has("currency") { catalog.currencyCode = country.currency }
            if !fields.has("locale") { catalog.localeIdentifier = country.locale }
            guard catalog.currencyCode.uppercased() == country.currency else {
                throw fail(
                    "currency",
                    "\"\(catalog.currencyCode)\" is not what storefront \(code) sells in (\(country.currency))")
            }
            catalog.storefront = code
            catalog.storefrontReason = "named by the catalog"
            return
        }
        guard let implied = Storefronts.implied(locale: catalog.localeIdentifier, currency: catalog.currencyCode)
        else {
            throw fail(
                nil,
                "names no \"storefront\", and its currency \(catalog.currencyCode) and locale \(catalog.localeIdentifier) name none together: add the storefront it sells in (\"storefront\": \"IRL\" sells in EUR)"
            )
        }
        (catalog.storefront, catalog.storefrontReason) = implied
    }

    private static func product(_ unnamed: CatalogFields, warnings: inout [CatalogWarning]) throws -> Product {
        guard let id = try unnamed.string("id") else { throw unnamed.error("has no \"id\"") }
        guard !id.trimmingCharacters(in: .whitespaces).isEmpty else { throw unnamed.error("\"id\" is empty") }
        let fields = CatalogFields(unnamed.container, file: unnamed.file, productID: id)
        for key in fields.keys where !productKeys.contains(key) {
            warnings.append(
                CatalogWarning(file: fields.file, entry: fields.entry, message: "unknown key \"\(key)\" is ignored"))
        }
        guard let kindName = try fields.string("kind") else { throw fields.error("has no \"kind\"") }
        guard let kind = ProductKind(rawValue: kindName) else {
            let kinds = ProductKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw fields.error("unknown kind \"\(kindName)\" (expected one of \(kinds))")
        }
        guard let title = try fields.string("title"), !title.isEmpty else { throw fields.error("has no \"title\"") }
        let description = try fields.string("description") ?? ""
        guard let priceText = try fields.priceText() else { throw fields.error("has no \"price\"") }
        guard let price = Decimal(string: priceText), PriceText.isPlainDecimal(priceText, signed: true) else {
            throw fields.error("price \"\(priceText)\" is not a decimal number like \"0.99\"")
        }
        if price < 0 { throw fields.error("price \"\(priceText)\" is negative") }
        let image = try fields.string("image")
        var quantity = try fields.integer("quantity") ?? 0
        var months = try fields.integer("months") ?? 0
        var duration: SubscriptionPeriod?
        switch kind {
        case .nonConsumable:
            if image == nil { throw fields.error("a comic needs an \"image\"") }
        case .consumable:
            if !fields.has("quantity") { quantity = 5 }
            if quantity <= 0 { throw fields.error("quantity \(quantity) must be at least 1") }
        case .nonRenewingSubscription:
            if let text = try fields.string("duration") {
                // An ISO 8601 period of days, weeks, months or years (R5): "P7D", "P1Y".
                do { duration = try SubscriptionPeriod(parsing: text) } catch {
                    throw fields.error("duration: \(error)")
                }
                if fields.has("months") { throw fields.error("give \"duration\" or \"months\", not both") }
            } else {
                guard fields.has("months") else {
                    throw fields.error(
                        "a non-renewing subscription needs a \"duration\" such as \"P3M\" (or \"months\")")
                }
                if months <= 0 || months > 120 { throw fields.error("months \(months) must be between 1 and 120") }
            }
        case .autoRenewableSubscription:
            break
        }
        if kind != .nonRenewingSubscription { months = 0 }
        var terms = kind == .autoRenewableSubscription ? try CatalogPlanTerms.terms(fields) : nil
        if fields.hasValue("monthlyCommitmentPrice") {
            let monthly = try CatalogPlanTerms.monthlyCommitmentPrice(fields, terms: terms, yearly: price)
            terms?.monthlyCommitmentPrice = monthly
        }
        var product = Product(
            id: id, kind: kind, title: title, description: description, price: price, image: image,
            quantity: kind == .consumable ? quantity : 0, months: months, duration: duration, autoRenew: terms
        )
        product.promotionalImage = try fields.string("promotionalImage")
        product.pricing = try Self.pricing(fields)
        product.play = try Self.play(fields)
        if fields.hasValue("familyShareable") {
            guard let flag = fields.boolean("familyShareable"),
                kind == .nonConsumable || kind == .autoRenewableSubscription || !flag
            else {
                throw fields.error(
                    "\"familyShareable\" is true or false, and only comics and auto-renewable plans can be shared")
            }
            product.isFamilyShareable = flag
        }
        return product
    }

    /// F2: a product's `prices` in other storefronts (`{"FRA": "1.09"}`, each in that storefront's
    /// currency) and the storefronts it is `availableIn` (`["USA", "FRA"]`), as App Store Connect
    /// sets a price and the availability per storefront.
    static func pricing(_ fields: CatalogFields) throws(CatalogError) -> StorefrontPricing {
        func code(_ text: String, in key: String) throws(CatalogError) -> String {
            guard Storefronts.country(text) != nil else {
                throw fields.error(
                    "\(key): \"\(text)\" is not an App Store storefront (its three-letter code, as \"FRA\" or \"JPN\")")
            }
            return text.uppercased()
        }
        var pricing = StorefrontPricing()
        if let prices = try fields.object(
            "prices", message: "\"prices\" must be an object of storefronts and prices, as {\"FRA\": \"1.09\"}")
        {
            for key in prices.keys {
                let storefront = try code(key, in: "prices")
                guard let text = try prices.priceText(key: key), let price = Decimal(string: text),
                    PriceText.isPlainDecimal(text, signed: false)
                else { throw fields.error("prices: \(key)'s price is not a decimal number like \"0.99\"") }
                pricing.prices[storefront] = price
            }
        }
        if let list = try fields.strings(
            "availableIn", message: "\"availableIn\" must be a list of storefronts, as [\"USA\", \"FRA\"]")
        {
            var available: Set<String> = []
            for text in list { available.insert(try code(text, in: "availableIn")) }
            pricing.availableIn = available
        }
        return pricing
    }
}

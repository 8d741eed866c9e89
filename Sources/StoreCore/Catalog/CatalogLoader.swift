// Reads a catalog data file (C1) and checks it (C5).
//
// The file is read with JSONSerialization rather than Codable so that every complaint can name
// the exact entry and field ("products[3] "comic.x": price "-1" is negative"): Codable's errors
// name coding paths in a form no catalog author should have to read.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

public enum CatalogLoader {
    /// Reads and checks a catalog file. Images are looked up under `imageRoot` (default: the
    /// catalog's folder); a missing image is a warning unless `imagesRequired` (C5).
    public static func load(
        contentsOf url: URL, imageRoot: URL? = nil, imagesRequired: Bool = false,
        storeKit: StoreKitOptions = StoreKitOptions()
    ) throws(CatalogError) -> LoadedCatalog {
        if StoreKitCatalog.isStoreKit(url) { return try StoreKitCatalog.load(contentsOf: url, options: storeKit) }
        try requireFile(url)
        let name = url.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CatalogError(file: url.path, entry: nil, message: "cannot be read (\(Self.reason(error)))")
        }
        let root = imageRoot ?? url.deletingLastPathComponent()
        let (catalog, warnings) = try parse(data, fileName: name)
        var allWarnings = warnings
        for (index, product) in catalog.products.enumerated() {
            guard let image = product.image else { continue }
            let entry = "products[\(index)] \"\(product.id)\""
            try checkImage(
                image, root: root, file: name, entry: entry, required: imagesRequired, warnings: &allWarnings)
        }
        for (index, comic) in catalog.randomComics.enumerated() {
            guard let image = comic.image else { continue }
            let entry = "randomComics[\(index)] \"\(comic.id)\""
            try checkImage(
                image, root: root, file: name, entry: entry, required: imagesRequired, warnings: &allWarnings)
        }
        return LoadedCatalog(catalog: catalog, warnings: allWarnings, imageRoot: root)
    }

    private static func checkImage(
        _ image: String, root: URL, file: String, entry: String, required: Bool,
        warnings: inout [CatalogWarning]
    ) throws(CatalogError) {
        let path = root.appendingPathComponent(image).path
        if FileManager.default.isReadableFile(atPath: path) { return }
        let message = "image \"\(image)\" is missing (looked in \(root.path))"
        if required { throw CatalogError(file: file, entry: entry, message: message) }
        warnings.append(CatalogWarning(file: file, entry: entry, message: message))
    }

    /// A folder or a device is not a catalog: say so rather than pass on what reading it says.
    static func requireFile(_ url: URL) throws(CatalogError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return }
        if isFolder.boolValue {
            throw CatalogError(file: url.path, entry: nil, message: "is a folder, not a catalog file")
        }
        // stat(2) rather than FileManager's attributes, which look up the owner's name (/etc/passwd)
        // on the way to the screen's first frame.
        var info = stat()
        if stat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw CatalogError(file: url.path, entry: nil, message: "is not a regular file")
        }
    }

    static func reason(_ error: Error) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile: return "no such file"
            case .fileReadNoPermission: return "permission denied"
            default: break
            }
        }
        return error.localizedDescription
    }

    /// Parses catalog JSON. Pure: touches no files.
    public static func parse(_ data: Data, fileName: String) throws(CatalogError) -> (Catalog, [CatalogWarning]) {
        func fail(_ entry: String?, _ message: String) -> CatalogError {
            CatalogError(file: fileName, entry: entry, message: message)
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw fail(nil, "is not valid JSON" + (detail.map { " (\($0))" } ?? ""))
        }
        guard let root = object as? [String: Any] else {
            throw fail(nil, "must be a JSON object with a \"products\" array")
        }
        var warnings: [CatalogWarning] = []
        let topKeys: Set = [
            "name", "bundleId", "currency", "locale", "bonusDays", "policy", "products", "randomComics", "$comment",
        ]
        for key in root.keys.sorted() where !topKeys.contains(key) {
            warnings.append(CatalogWarning(file: fileName, entry: nil, message: "unknown key \"\(key)\" is ignored"))
        }
        let fields = Fields(values: root, entry: nil, file: fileName)
        var catalog = Catalog(products: [])
        catalog.name = try fields.string("name") ?? fileName
        catalog.bundleID = try fields.string("bundleId")
        catalog.currencyCode = try fields.string("currency") ?? "USD"
        guard catalog.currencyCode.count == 3, catalog.currencyCode.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw fail(nil, "currency \"\(catalog.currencyCode)\" is not a three-letter ISO 4217 code")
        }
        catalog.localeIdentifier = try fields.string("locale") ?? "en_US"
        catalog.bonusDays = try fields.integer("bonusDays") ?? 0
        if catalog.bonusDays < 0 { throw fail(nil, "bonusDays \(catalog.bonusDays) is negative") }
        if let policy = try fields.string("policy") {
            do {
                catalog.defaultPolicy = try PurchaseOutcome(parsing: policy)
            } catch {
                throw fail(nil, "policy: \(error)")
            }
        }
        guard let rawProducts = root["products"] else { throw fail(nil, "has no \"products\" array") }
        guard let productList = rawProducts as? [Any] else { throw fail(nil, "\"products\" must be an array") }
        var seen: [String: Int] = [:]
        for (index, raw) in productList.enumerated() {
            let product = try parseProduct(raw, index: index, fileName: fileName, warnings: &warnings)
            if let first = seen[product.id] {
                throw fail(
                    "products[\(index)] \"\(product.id)\"", "duplicate identifier (first used by products[\(first)])")
            }
            seen[product.id] = index
            catalog.products.append(product)
        }
        if catalog.products.isEmpty { throw fail(nil, "\"products\" is empty") }
        if let rawRandom = root["randomComics"] {
            guard let list = rawRandom as? [Any] else { throw fail(nil, "\"randomComics\" must be an array") }
            var seenRandom: Set<String> = []
            for (index, raw) in list.enumerated() {
                let entry = "randomComics[\(index)]"
                guard let values = raw as? [String: Any] else { throw fail(entry, "must be an object") }
                let fields = Fields(values: values, entry: entry, file: fileName)
                guard let id = try fields.string("id"), !id.isEmpty else { throw fail(entry, "has no \"id\"") }
                if !seenRandom.insert(id).inserted { throw fail("\(entry) \"\(id)\"", "duplicate identifier") }
                let comic = RandomComic(
                    id: id, title: try fields.string("title") ?? id, image: try fields.string("image"))
                catalog.randomComics.append(comic)
            }
        }
        return (catalog, warnings)
    }

    private static func parseProduct(
        _ raw: Any, index: Int, fileName: String, warnings: inout [CatalogWarning]
    ) throws(CatalogError) -> Product {
        var entry = "products[\(index)]"
        guard let values = raw as? [String: Any] else {
            throw CatalogError(file: fileName, entry: entry, message: "must be an object")
        }
        var fields = Fields(values: values, entry: entry, file: fileName)
        guard let id = try fields.string("id") else { throw fields.error("has no \"id\"") }
        guard !id.trimmingCharacters(in: .whitespaces).isEmpty else { throw fields.error("\"id\" is empty") }
        entry += " \"\(id)\""
        fields = Fields(values: values, entry: entry, file: fileName)
        let known: Set = [
            "id", "kind", "title", "description", "price", "image", "quantity", "months", "duration", "period", "group",
            "rank",
            "introOffer", "promotionalOffers", "codeOffers", "winBackOffers", "unlocks", "familyShareable",
            "monthlyCommitmentPrice",
            "$comment",
        ]
        for key in values.keys.sorted() where !known.contains(key) {
            warnings.append(CatalogWarning(file: fileName, entry: entry, message: "unknown key \"\(key)\" is ignored"))
        }
        guard let kindName = try fields.string("kind") else { throw fields.error("has no \"kind\"") }
        guard let kind = ProductKind(rawValue: kindName) else {
            let kinds = ProductKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw fields.error("unknown kind \"\(kindName)\" (expected one of \(kinds))")
        }
        guard let title = try fields.string("title"), !title.isEmpty else { throw fields.error("has no \"title\"") }
        let description = try fields.string("description") ?? ""
        guard let priceText = try fields.priceText() else { throw fields.error("has no \"price\"") }
        guard let price = Decimal(string: priceText),
            PriceText.isPlainDecimal(priceText, signed: true)
        else {
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
            if values["quantity"] == nil { quantity = 5 }
            if quantity <= 0 { throw fields.error("quantity \(quantity) must be at least 1") }
        case .nonRenewingSubscription:
            if let text = try fields.string("duration") {
                // An ISO 8601 period of days, weeks, months or years (R5): "P7D", "P1Y".
                do { duration = try SubscriptionPeriod(parsing: text) } catch {
                    throw fields.error("duration: \(error)")
                }
                if values["months"] != nil { throw fields.error("give \"duration\" or \"months\", not both") }
            } else {
                guard values["months"] != nil else {
                    throw fields.error(
                        "a non-renewing subscription needs a \"duration\" such as \"P3M\" (or \"months\")")
                }
                if months <= 0 || months > 120 { throw fields.error("months \(months) must be between 1 and 120") }
            }
        case .autoRenewableSubscription:
            break
        }
        if kind != .nonRenewingSubscription { months = 0 }
        var terms = kind == .autoRenewableSubscription ? try autoRenewTerms(fields) : nil
        if let raw = values["monthlyCommitmentPrice"], !(raw is NSNull) {
            let monthly = try monthlyCommitmentPrice(fields, terms: terms, yearly: price)
            terms?.monthlyCommitmentPrice = monthly
        }
        var product = Product(
            id: id, kind: kind, title: title, description: description, price: price, image: image,
            quantity: kind == .consumable ? quantity : 0, months: months, duration: duration, autoRenew: terms
        )
        if let raw = fields.values["familyShareable"], !(raw is NSNull) {
            guard CompactJSON.isBoolean(raw), let flag = raw as? Bool,
                kind == .nonConsumable || kind == .autoRenewableSubscription || !flag
            else {
                throw fields.error(
                    "\"familyShareable\" is true or false, and only comics and auto-renewable plans can be shared")
            }
            product.isFamilyShareable = flag
        }
        return product
    }

    /// period, group, rank, introOffer and unlocks of an auto-renewable subscription.
    private static func autoRenewTerms(_ fields: Fields) throws(CatalogError) -> AutoRenewTerms {
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
        var unlocks: [String] = []
        if let raw = fields.values["unlocks"], !(raw is NSNull) {
            guard let list = raw as? [Any], let names = list as? [String] else {
                throw fields.error("\"unlocks\" must be an array of strings")
            }
            unlocks = names
        }
        var offer: IntroductoryOffer?
        if let raw = fields.values["introOffer"], !(raw is NSNull) {
            guard let values = raw as? [String: Any] else { throw fields.error("\"introOffer\" must be an object") }
            offer = try offerTerms(
                Fields(values: values, entry: (fields.entry ?? "") + " introOffer", file: fields.file))
        }
        var offers: [SubscriptionOffer] = []
        for (key, type) in [
            ("promotionalOffers", OfferType.promotional), ("codeOffers", .code), ("winBackOffers", .winBack),
        ] {
            guard let raw = fields.values[key], !(raw is NSNull) else { continue }
            guard let list = raw as? [[String: Any]] else {
                throw fields.error("\"\(key)\" must be an array of objects")
            }
            for (index, values) in list.enumerated() {
                let inner = Fields(values: values, entry: (fields.entry ?? "") + " \(key)[\(index)]", file: fields.file)
                guard let id = try inner.string("id"), !id.isEmpty else { throw inner.error("has no \"id\"") }
                if offers.contains(where: { $0.id == id && $0.type == type }) {
                    throw inner.error("offer \"\(id)\" is given twice")
                }
                var eligibility = Set(OfferEligibility.allCases)
                if type == .code, let raw = values["eligibility"], !(raw is NSNull) {
                    guard let names = raw as? [String], !names.isEmpty else {
                        throw inner.error("\"eligibility\" must be a list of new, existing, expired")
                    }
                    eligibility = []
                    for name in names {
                        guard let value = OfferEligibility(rawValue: name) else {
                            throw inner.error("eligibility \"\(name)\" is not new, existing or expired")
                        }
                        eligibility.insert(value)
                    }
                }
                var winBack: WinBackEligibility?
                if type == .winBack {
                    let paid = try inner.integer("paidMonths") ?? 1
                    if paid < 0 || paid > 120 { throw inner.error("paidMonths \(paid) must be 0 to 120") }
                    var lapsed = 0...24
                    if let raw = values["lapsedMonths"], !(raw is NSNull) {
                        guard let pair = raw as? [Int], pair.count == 2, pair[0] >= 0, pair[0] <= pair[1] else {
                            throw inner.error("\"lapsedMonths\" is [least, most], such as [1, 12]")
                        }
                        lapsed = pair[0]...pair[1]
                    }
                    winBack = WinBackEligibility(paidMonths: paid, lapsedMonths: lapsed)
                }
                offers.append(
                    SubscriptionOffer(
                        id: id, type: type, terms: try offerTerms(inner), eligibility: eligibility, winBack: winBack))
            }
        }
        return AutoRenewTerms(
            period: period, group: group, rank: rank, introductoryOffer: offer, unlocks: unlocks, offers: offers)
    }

    /// The monthly price of "Monthly with a 12-month commitment": a one-year plan's second billing
    /// plan, whose twelve payments come to at least its price up front and at most 1.5 times it, as
    /// App Store Connect allows.
    private static func monthlyCommitmentPrice(_ fields: Fields, terms: AutoRenewTerms?, yearly: Decimal)
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
    private static func offerTerms(_ inner: Fields) throws(CatalogError) -> IntroductoryOffer {
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
            guard let value = Decimal(string: text), value >= 0,
                PriceText.isPlainDecimal(text)
            else { throw inner.error("price \"\(text)\" is not a decimal number like \"0.99\"") }
            offerPrice = value
        }
        return IntroductoryOffer(mode: mode, period: offerPeriod, periods: periods, price: offerPrice)
    }

    /// Typed access to one JSON object's fields, with errors that name the entry.
    private struct Fields {
        let values: [String: Any]
        let entry: String?
        let file: String

        func error(_ message: String) -> CatalogError { CatalogError(file: file, entry: entry, message: message) }

        func string(_ key: String) throws(CatalogError) -> String? {
            guard let value = values[key], !(value is NSNull) else { return nil }
            guard let text = value as? String else { throw error("\"\(key)\" must be a string") }
            return text
        }

        func integer(_ key: String) throws(CatalogError) -> Int? {
            guard let value = values[key], !(value is NSNull) else { return nil }
            if let number = value as? NSNumber, !CompactJSON.isBoolean(value) {
                let double = number.doubleValue
                if double.rounded() == double, abs(double) < 1e9 { return Int(double) }
            }
            throw error("\"\(key)\" must be a whole number")
        }

        /// Prices are strings ("0.99") so they stay exact; a JSON number is refused with advice.
        func priceText(key: String = "price") throws(CatalogError) -> String? {
            guard let value = values[key], !(value is NSNull) else { return nil }
            if let text = value as? String { return text.trimmingCharacters(in: .whitespaces) }
            throw error("\(key) must be a string such as \"0.99\" (a JSON number is not exact)")
        }
    }
}

// Xcode StoreKit configuration files (`.storekit`, issue 6) read as catalogs: every version seen
// (1.0 to 5.0 and later), every key optional, unknown keys ignored. Like the catalog reader this
// walks JSONSerialization's objects so that each complaint names its JSON path:
// `subscriptionGroups[1].subscriptions[0].recurringSubscriptionPeriod: "P5Q" is not a period`.
import Crypto
import Foundation

/// What the command line adds to a `.storekit` file, which has no field for some of what the
/// store needs.
public struct StoreKitOptions: Sendable, Equatable {
    /// The duration of each non-renewing subscription (`--duration PRODUCT=P7D`, `--months
    /// PRODUCT=N`), over the side file and inference.
    public var durations: [String: SubscriptionPeriod]
    /// The storefront's locale, over the file's `_locale` (tests; `--locale`).
    public var locale: String?

    public init(durations: [String: SubscriptionPeriod] = [:], months: [String: Int] = [:], locale: String? = nil) {
        self.durations = durations
        for (id, count) in months where durations[id] == nil { self.durations[id] = SubscriptionPeriod(count, .month) }
        self.locale = locale
    }
}

public enum StoreKitCatalog {
    /// The file a `.storekit` folder holds.
    public static let folderEntry = "Configuration.storekit"

    /// True when `url` names a StoreKit configuration (by its extension).
    public static func isStoreKit(_ url: URL) -> Bool { url.pathExtension.lowercased() == "storekit" }

    /// The Storefront side file beside a `.storekit`: `Products.storekit` → `Products.storefront.json`.
    public static func sideFile(for url: URL) -> URL {
        url.deletingPathExtension().appendingPathExtension("storefront.json")
    }

    public static func load(contentsOf url: URL, options: StoreKitOptions = StoreKitOptions()) throws(CatalogError) -> LoadedCatalog {
        var isFolder: ObjCBool = false
        var file = url
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            file = url.appendingPathComponent(folderEntry)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw CatalogError(file: url.path, entry: nil, message: "is a folder without \(folderEntry) in it")
            }
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw CatalogError(file: file.path, entry: nil, message: "cannot be read (\(CatalogLoader.reason(error)))")
        }
        try CatalogLoader.requireFile(file)
        let side = sideFile(for: url)
        var extras = SideFile()
        if FileManager.default.fileExists(atPath: side.path) {
            extras = try SideFile.read(side)
        }
        let name = isFolder.boolValue ? url.lastPathComponent + "/" + folderEntry : url.lastPathComponent
        let (catalog, warnings) = try parse(data, fileName: name, options: options, side: extras)
        return LoadedCatalog(catalog: catalog, warnings: warnings, imageRoot: url.deletingLastPathComponent())
    }

    /// What a Storefront side file may add: durations of non-renewing subscriptions ("durations":
    /// ISO 8601 periods, or "months"), images, what plans unlock, random views per consumable.
    public struct SideFile: Sendable, Equatable {
        public var durations: [String: SubscriptionPeriod] = [:]
        public var images: [String: String] = [:]
        public var unlocks: [String: [String]] = [:]
        public var quantities: [String: Int] = [:]
        /// Prices of introductory offers the file leaves empty.
        public var offerPrices: [String: Decimal] = [:]

        public init() {}

        static func read(_ url: URL) throws(CatalogError) -> SideFile {
            let fail = { (message: String) in CatalogError(file: url.lastPathComponent, entry: nil, message: message) }
            guard let data = try? Data(contentsOf: url) else { throw fail("cannot be read") }
            guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                throw fail("is not a JSON object (expected {\"months\": {\"PRODUCT\": 3}, \"images\": {…}})")
            }
            var side = SideFile()
            func table<T>(_ key: String, _ convert: (Any) -> T?) throws(CatalogError) -> [String: T] {
                guard let raw = root[key] else { return [:] }
                guard let object = raw as? [String: Any] else { throw fail("\"\(key)\" must be an object by product id") }
                var result: [String: T] = [:]
                for (id, value) in object {
                    guard let converted = convert(value) else { throw fail("\(key).\(id): \(value) is not valid here") }
                    result[id] = converted
                }
                return result
            }
            let months = try table("months") { ($0 as? NSNumber).map(\.intValue).flatMap { (1...120).contains($0) ? $0 : nil } }
            side.durations = try table("durations") { ($0 as? String).flatMap { try? SubscriptionPeriod(parsing: $0) } }
            for (id, count) in months where side.durations[id] == nil { side.durations[id] = SubscriptionPeriod(count, .month) }
            side.images = try table("images") { $0 as? String }
            side.unlocks = try table("unlocks") { $0 as? [String] }
            side.quantities = try table("quantities") { ($0 as? NSNumber).map(\.intValue).flatMap { $0 >= 1 ? $0 : nil } }
            side.offerPrices = try table("offerPrices") { value in
                guard let text = (value as? String) ?? (value as? NSNumber).map(\.stringValue),
                      text.range(of: #"^[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil
                else { return nil }
                return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            }
            return side
        }
    }

    // MARK: Parsing

    public static func parse(
        _ data: Data, fileName: String, options: StoreKitOptions = StoreKitOptions(), side: SideFile = SideFile()
    ) throws(CatalogError) -> (Catalog, [CatalogWarning]) {
        let object = try readObject(data, fileName: fileName)
        let root = try Node(object, path: "", file: fileName).object()
        var warnings: [CatalogWarning] = []
        var catalog = Catalog(products: [])
        catalog.name = (fileName as NSString).deletingPathExtension.replacingOccurrences(of: "/Configuration", with: "")
        let version = try root.child("version")?.objectOrNil()
        let major = try version?.child("major")?.integer() ?? 1
        let minor = try version?.child("minor")?.integer() ?? 0
        catalog.format = "Xcode StoreKit configuration \(major).\(minor)"

        if let pair = try root.child("subscriptionOffersKeyPair")?.objectOrNil() {
            catalog.subscriptionOfferKey = try Self.offerKey(pair)
        }

        // Settings: the storefront, its locale, and what the test session was set to do.
        let settings = try root.child("settings")?.objectOrNil()
        let storefront = try settings?.child("_storefront")?.stringOrNil()?.uppercased() ?? "USA"
        let country = Storefronts.country(storefront)
        if country != nil { catalog.storefront = storefront }
        if country == nil {
            warnings.append(CatalogWarning(file: fileName, entry: "settings._storefront", message: "unknown storefront \"\(storefront)\": prices are shown in US dollars"))
        }
        let fileLocale = try settings?.child("_locale")?.stringOrNil()
        catalog.localeIdentifier = options.locale ?? fileLocale ?? country?.locale ?? "en_US"
        catalog.currencyCode = country?.currency ?? "USD"
        if try settings?.child("_askToBuyEnabled")?.boolean() == true { catalog.defaultPolicy = .defer }
        if try settings?.child("_failTransactionsEnabled")?.boolean() == true { catalog.defaultPolicy = .fail(.unknown) }
        if let errors = try settings?.child("_storeKitErrors")?.arrayOrNil() {
            for node in errors {
                if let (api, error) = try Self.simulatedError(node, file: fileName, warnings: &warnings) {
                    catalog.simulatedErrors[api] = error
                }
            }
        }
        if let (rate, node) = try Self.timeRateSetting(settings), rate != 0 {
            switch XcodeTimeRate.clockRate(rate) {
            case .exact(let clockRate):
                catalog.clockRate = clockRate
            case .nearest(let clockRate, let why):
                catalog.clockRate = clockRate
                warnings.append(CatalogWarning(file: fileName, entry: node.path, message: why))
            }
        }
        let billingIssues = try settings?.child("_renewalBillingIssuesEnabled")?.boolean() ?? false
        let grace = try settings?.child("_billingGracePeriodEnabled")?.boolean() ?? false
        if billingIssues || grace { catalog.billing = BillingSetting(failing: billingIssues, graceDays: grace ? BillingSetting.defaultGraceDays : nil) }

        var seen: [String: String] = [:]
        func add(_ product: Product, path: String) throws(CatalogError) {
            if let first = seen[product.id] {
                throw CatalogError(file: fileName, entry: path, message: "duplicate product id \"\(product.id)\" (first used by \(first))")
            }
            seen[product.id] = path
            catalog.products.append(product)
        }
        let reader = ProductReader(locale: catalog.localeIdentifier, options: options, side: side, file: fileName)
        for (index, node) in (try root.child("products")?.arrayOrNil() ?? []).enumerated() {
            try add(try reader.product(node, defaultType: nil, warnings: &warnings), path: "products[\(index)]")
        }
        for (index, node) in (try root.child("nonRenewingSubscriptions")?.arrayOrNil() ?? []).enumerated() {
            try add(try reader.product(node, defaultType: "NonRenewingSubscription", warnings: &warnings), path: "nonRenewingSubscriptions[\(index)]")
        }
        for (groupIndex, groupNode) in (try root.child("subscriptionGroups")?.arrayOrNil() ?? []).enumerated() {
            let group = try groupNode.object()
            let name = try group.child("name")?.stringOrNil()
            let id = try group.child("id")?.stringOrNil() ?? name ?? "group \(groupIndex + 1)"
            let title = name.flatMap { $0.isEmpty ? nil : $0 } ?? id
            for (index, node) in (try group.child("subscriptions")?.arrayOrNil() ?? []).enumerated() {
                let product = try reader.product(
                    node, defaultType: "RecurringSubscription", group: (id, title, index + 1), warnings: &warnings
                )
                try add(product, path: "subscriptionGroups[\(groupIndex)].subscriptions[\(index)]")
            }
        }
        // An empty configuration, as Xcode makes a new one, opens as an empty store (C6).
        for id in Set(options.durations.keys).subtracting(seen.keys).sorted() {
            throw CatalogError(file: fileName, entry: nil, message: "--duration names \"\(id)\", which is not a product of this file")
        }
        return (catalog, warnings)
    }

    /// The file's top-level value: JSON, or a property list (XML or binary) as Xcode can also save
    /// it. The same keys mean the same things in both.
    static func readObject(_ data: Data, fileName: String) throws(CatalogError) -> Any {
        let head = data.prefix(64)
        let looksLikePlist = head.starts(with: Data("bplist".utf8))
            || String(decoding: head, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<?xml")
            || String(decoding: head, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<plist")
        if looksLikePlist {
            do {
                return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                throw CatalogError(file: fileName, entry: nil, message: "is not a valid property list" + (detail.map { " (\($0))" } ?? ""))
            }
        }
        do {
            return try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw CatalogError(file: fileName, entry: nil, message: "is not valid JSON or a property list" + (detail.map { " (\($0))" } ?? ""))
        }
    }

    /// One entry of `_storeKitErrors` (Q7): `{"name": "Purchase", "enabled": true, "current": …}`.
    /// `current` names the error: a string ("networkError", "StoreKitError.networkError"), or an
    /// object or array holding one; an enabled entry whose error cannot be read fails with the
    /// API's plainest error (StoreKitError.unknown; VerificationError.invalidSignature) and a
    /// warning naming the path.
    static func simulatedError(_ node: Node, file: String, warnings: inout [CatalogWarning]) throws(CatalogError) -> (StoreKitAPI, SimulatedError)? {
        let entry = try node.object()
        guard try entry.child("enabled")?.boolean() == true else { return nil }
        guard let name = try entry.child("name")?.stringOrNil() else { throw node.error("has no \"name\"") }
        guard let api = StoreKitAPI(rawValue: name) ?? StoreKitAPI(argument: name) else {
            warnings.append(CatalogWarning(file: file, entry: node.path + ".name", message: "\"\(name)\" is not a StoreKit API Storefront knows; ignored"))
            return nil
        }
        let plainest = api == .verification
            ? SimulatedError(parsing: "invalidSignature", for: api)! : SimulatedError(parsing: "StoreKitError.unknown", for: api)!
        guard let current = entry.child("current"), !(current.value is NSNull) else { return (api, plainest) }
        func strings(_ value: Any) -> [String] {
            if let text = value as? String { return [text] }
            if let object = value as? [String: Any] { return object.keys.sorted().flatMap { [$0] + strings(object[$0]!) } }
            if let array = value as? [Any] { return array.flatMap(strings) }
            return []
        }
        if let error = strings(current.value).lazy.compactMap({ SimulatedError(parsing: $0, for: api) }).first {
            return (api, error)
        }
        warnings.append(CatalogWarning(
            file: file, entry: current.path, message: "no \(api.rawValue) error Storefront knows is named here; \(plainest) is used"
        ))
        return (api, plainest)
    }

    /// Xcode's `subscriptionOffersKeyPair`: an id and a P-256 private key in base64 PKCS #8.
    static func offerKey(_ pair: Object) throws(CatalogError) -> APIKey? {
        guard let id = try pair.child("id")?.stringOrNil(), !id.isEmpty else { return nil }
        let keyNode = pair.child("privateKey")
        guard let text = try keyNode?.stringOrNil(), let keyNode else { throw pair.node.error("has no \"privateKey\"") }
        let base64 = text.components(separatedBy: .whitespacesAndNewlines).joined()
        guard let der = Data(base64Encoded: base64), let key = try? P256.Signing.PrivateKey(derRepresentation: der) else {
            throw keyNode.error("is not a P-256 private key in base64 PKCS #8")
        }
        return APIKey(keyID: id, publicKey: key.publicKey.x963Representation, createdAt: Date(timeIntervalSince1970: 0), type: .subscriptionOffer)
    }

    /// `_timeRate`, else `_compatibilityTimeRate` (a number, or an object keyed by OS version:
    /// the newest version's rate), with the node it came from.
    static func timeRateSetting(_ settings: Object?) throws(CatalogError) -> (Int, Node)? {
        if let node = settings?.child("_timeRate"), let rate = try node.integer() { return (rate, node) }
        guard let node = settings?.child("_compatibilityTimeRate"), !(node.value is NSNull) else { return nil }
        if node.value is [String: Any] {
            let byVersion = try node.object()
            let versions = byVersion.values.keys.sorted {
                $0.compare($1, options: .numeric) == .orderedAscending
            }
            guard let newest = versions.last, let child = byVersion.child(newest), let rate = try child.integer() else { return nil }
            return (rate, child)
        }
        guard let rate = try node.integer() else { return nil }
        return (rate, node)
    }

    /// One product entry of any kind.
    struct ProductReader {
        let locale: String
        let options: StoreKitOptions
        let side: SideFile
        let file: String

        func product(
            _ node: Node, defaultType: String?, group: (id: String, title: String, position: Int)? = nil,
            warnings: inout [CatalogWarning]
        ) throws(CatalogError) -> Product {
            let entry = try node.object()
            guard let id = try entry.child("productID")?.stringOrNil(), !id.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw node.error("has no \"productID\"")
            }
            var typeName = try entry.child("type")?.stringOrNil() ?? defaultType
            if typeName == nil {
                // Every key is optional: an entry of "products" that does not say is a non-consumable.
                typeName = "NonConsumable"
                warnings.append(CatalogWarning(file: file, entry: node.path, message: "has no \"type\"; read as NonConsumable"))
            }
            let kind: ProductKind
            switch typeName {
            case "Consumable": kind = .consumable
            case "NonConsumable": kind = .nonConsumable
            case "NonRenewingSubscription": kind = .nonRenewingSubscription
            case "RecurringSubscription", "AutoRenewableSubscription": kind = .autoRenewableSubscription
            case let other:
                throw (entry.child("type") ?? node).error("\"\(other ?? "")\" is not a product type (Consumable, NonConsumable, NonRenewingSubscription, RecurringSubscription)")
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
                } else if let (inferred, source) = DurationInference.infer(id: id, names: [reference, title].compactMap { $0 }) {
                    (duration, durationSource) = (inferred, source)
                } else {
                    durationSource = "unknown: say it with --duration \(id)=P1M or in the side file"
                    warnings.append(CatalogWarning(
                        file: file, entry: node.path,
                        message: "\"\(id)\" states no duration; it cannot be bought until you give one (--duration \(id)=P1M)"
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
                if rank < 1 { throw (entry.child("groupNumber") ?? node).error("\(rank) is not a level (1 is the highest)") }
                terms = AutoRenewTerms(
                    period: period, group: group.id, rank: rank,
                    introductoryOffer: try offer(entry.child("introductoryOffer"), productID: id, period: period, warnings: &warnings),
                    unlocks: side.unlocks[id] ?? [group.title],
                    offers: try subscriptionOffers(entry.child("adHocOffers"), type: .promotional, productID: id, period: period, warnings: &warnings)
                        + subscriptionOffers(entry.child("codeOffers"), type: .code, productID: id, period: period, warnings: &warnings)
                        + subscriptionOffers(entry.child("winbackOffers"), type: .winBack, productID: id, period: period, warnings: &warnings)
                )
            case .consumable, .nonConsumable:
                break
            }
            var product = Product(
                id: id, kind: kind, title: title, description: description, price: price,
                image: side.images[id] ?? (kind == .nonConsumable ? Placeholder.path(for: id) : nil),
                quantity: kind == .consumable ? side.quantities[id] ?? 1 : 0, duration: duration, autoRenew: terms
            )
            product.durationSource = durationSource
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
                    warnings.append(CatalogWarning(file: file, entry: path, message: "\(what); the side file's price \(PriceFormatter.plain(fallback)) is used"))
                    return fallback
                }
                warnings.append(CatalogWarning(file: file, entry: path, message: "\(what); it is free"))
                return 0
            }
            let text: String
            if let given {
                text = given
            } else if let number = node.value as? NSNumber, !Node.isBoolean(number) {
                text = number.stringValue
            } else {
                throw node.error("must be a price such as \"0.99\"")
            }
            guard text.range(of: #"^[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil,
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
                entries.append((
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
            let description = ranked.first { !$0.description.trimmingCharacters(in: .whitespaces).isEmpty }?.description ?? ""
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
                let priced = priceNode.map { !($0.value is NSNull) && ($0.value as? String)?.trimmingCharacters(in: .whitespaces) != "" } ?? false
                mode = priced ? .payAsYouGo : .freeTrial
                warnings.append(CatalogWarning(
                    file: file, entry: node.path,
                    message: "has no \"paymentMode\"; read as \(mode == .freeTrial ? "a free trial" : "pay as you go")"
                ))
            case let other?: throw (modeNode ?? node).error("\"\(other)\" is not a payment mode (free, payAsYouGo, payUpFront)")
            }
            var offerPeriod = period
            if let periodNode = object.child("subscriptionPeriod"), let text = try periodNode.stringOrNil(), !text.isEmpty {
                offerPeriod = try Self.period(text, periodNode)
            } else {
                warnings.append(CatalogWarning(
                    file: file, entry: node.path,
                    message: "has no \"subscriptionPeriod\"; the plan's period \(period) is used"
                ))
            }
            let periods = try object.child("numberOfPeriods")?.integer() ?? 1
            if periods < 1 || periods > 99 { throw (object.child("numberOfPeriods") ?? node).error("\(periods) periods: expected 1 to 99") }
            let price = mode == .freeTrial
                ? 0 : try self.price(priceNode, missing: node, fallback: side.offerPrices[productID], warnings: &warnings)
            return IntroductoryOffer(mode: mode, period: offerPeriod, periods: periods, price: price)
        }

        /// `adHocOffers` (promotional offers, O2, named by `offerID`) or `codeOffers` (offer codes,
        /// O3, named by `referenceName`, with the eligibility App Store Connect gives them: all
        /// three when the file says none), priced as an introductory offer is.
        func subscriptionOffers(
            _ node: Node?, type: OfferType, productID: String, period: SubscriptionPeriod, warnings: inout [CatalogWarning]
        ) throws(CatalogError) -> [SubscriptionOffer] {
            guard let node, let list = try node.arrayOrNil() else { return [] }
            let nameKey = type == .code ? "referenceName" : "offerID"
            // Win-back eligibility is App Store Connect's; a file without it gets the defaults
            // (one paid month, lapsed up to two years).
            var offers: [SubscriptionOffer] = []
            for item in list {
                guard let object = try item.objectOrNil() else { continue }
                let nameNode = object.child(nameKey)
                guard let name = try nameNode?.stringOrNil(), !name.isEmpty else { throw item.error("has no \"\(nameKey)\"") }
                if offers.contains(where: { $0.id == name }) { throw (nameNode ?? item).error("offer \"\(name)\" is given twice") }
                guard let terms = try offer(item, productID: productID, period: period, warnings: &warnings) else { continue }
                var eligibility = Set(OfferEligibility.allCases)
                if type == .code, let eligibilityNode = object.child("eligibility"), let names = try eligibilityNode.arrayOrNil(), !names.isEmpty {
                    eligibility = []
                    for nameNode in names {
                        let text = try nameNode.stringOrNil() ?? ""
                        guard let value = OfferEligibility(rawValue: text) else { throw nameNode.error("\"\(text)\" is not new, existing or expired") }
                        eligibility.insert(value)
                    }
                }
                offers.append(SubscriptionOffer(id: name, type: type, terms: terms, eligibility: eligibility))
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

    /// A JSON value and where it is, for errors that name the path.
    struct Node {
        let value: Any
        let path: String
        let file: String

        init(_ value: Any, path: String, file: String) {
            self.value = value
            self.path = path
            self.file = file
        }

        func error(_ message: String) -> CatalogError {
            CatalogError(file: file, entry: path.isEmpty ? nil : path, message: message)
        }

        static func isBoolean(_ value: Any) -> Bool { String(describing: type(of: value)).contains("Boolean") }

        func object() throws(CatalogError) -> Object {
            guard let object = value as? [String: Any] else { throw error("must be a JSON object") }
            return Object(values: object, node: self)
        }

        func objectOrNil() throws(CatalogError) -> Object? {
            value is NSNull ? nil : try object()
        }

        func arrayOrNil() throws(CatalogError) -> [Node]? {
            if value is NSNull { return nil }
            guard let array = value as? [Any] else { throw error("must be an array") }
            return array.enumerated().map { Node($0.element, path: "\(path)[\($0.offset)]", file: file) }
        }

        func stringOrNil() throws(CatalogError) -> String? {
            if value is NSNull { return nil }
            guard let text = value as? String else { throw error("must be a string") }
            return text
        }

        func integer() throws(CatalogError) -> Int? {
            if value is NSNull { return nil }
            if let number = value as? NSNumber, !Self.isBoolean(value), number.doubleValue.rounded() == number.doubleValue, abs(number.doubleValue) < 1e9 {
                return number.intValue
            }
            if let text = value as? String, let number = Int(text) { return number }
            throw error("must be a whole number")
        }

        func boolean() throws(CatalogError) -> Bool? {
            if value is NSNull { return nil }
            if let number = value as? NSNumber { return number.boolValue }
            throw error("must be true or false")
        }
    }

    struct Object {
        let values: [String: Any]
        let node: Node

        func child(_ key: String) -> Node? {
            guard let value = values[key] else { return nil }
            return Node(value, path: node.path.isEmpty ? key : "\(node.path).\(key)", file: node.file)
        }
    }
}

/// App Store storefronts by their three-letter code: the country's locale and currency.
enum Storefronts {
    struct Country {
        let locale: String
        let currency: String
    }

    /// Apple's numeric id of a storefront (`storefrontId` in signed data); the USA's when unknown.
    static func appleID(_ code: String) -> String {
        String(appleIDs[code.uppercased()] ?? 143_441)
    }

    static let appleIDs: [String: Int] = [
        "USA": 143_441, "FRA": 143_442, "DEU": 143_443, "GBR": 143_444, "AUT": 143_445, "BEL": 143_446, "FIN": 143_447,
        "GRC": 143_448, "IRL": 143_449, "ITA": 143_450, "LUX": 143_451, "NLD": 143_452, "PRT": 143_453, "ESP": 143_454,
        "CAN": 143_455, "SWE": 143_456, "NOR": 143_457, "DNK": 143_458, "CHE": 143_459, "AUS": 143_460, "NZL": 143_461,
        "JPN": 143_462, "HKG": 143_463, "SGP": 143_464, "CHN": 143_465, "KOR": 143_466, "IND": 143_467, "MEX": 143_468,
        "RUS": 143_469, "TWN": 143_470, "VNM": 143_471, "ZAF": 143_472, "MYS": 143_473, "PHL": 143_474, "THA": 143_475,
        "IDN": 143_476, "PAK": 143_477, "POL": 143_478, "SAU": 143_479, "TUR": 143_480, "ARE": 143_481, "HUN": 143_482,
        "CHL": 143_483, "CZE": 143_489, "ISR": 143_491, "UKR": 143_492, "KWT": 143_493, "SVK": 143_496, "QAT": 143_498,
        "COL": 143_501, "BRA": 143_503, "ARG": 143_505, "PER": 143_507, "EGY": 143_516, "BGR": 143_526, "KEN": 143_529,
        "ROU": 143_487, "ISL": 143_558, "NGA": 143_561,
    ]

    static func country(_ code: String) -> Country? {
        guard let locale = locales[code.uppercased()] else { return nil }
        return Country(locale: locale, currency: currencies[code.uppercased()] ?? "USD")
    }

    static let locales: [String: String] = [
        "USA": "en_US", "GBR": "en_GB", "CAN": "en_CA", "AUS": "en_AU", "NZL": "en_NZ", "IRL": "en_IE", "IND": "en_IN",
        "SGP": "en_SG", "ZAF": "en_ZA", "PHL": "en_PH", "FRA": "fr_FR", "DEU": "de_DE", "AUT": "de_AT", "CHE": "de_CH",
        "ITA": "it_IT", "ESP": "es_ES", "MEX": "es_MX", "ARG": "es_AR", "CHL": "es_CL", "COL": "es_CO", "PER": "es_PE",
        "BRA": "pt_BR", "PRT": "pt_PT", "NLD": "nl_NL", "BEL": "nl_BE", "LUX": "fr_LU", "SWE": "sv_SE", "NOR": "nb_NO",
        "DNK": "da_DK", "FIN": "fi_FI", "ISL": "is_IS", "POL": "pl_PL", "CZE": "cs_CZ", "SVK": "sk_SK", "HUN": "hu_HU",
        "ROU": "ro_RO", "BGR": "bg_BG", "GRC": "el_GR", "TUR": "tr_TR", "RUS": "ru_RU", "UKR": "uk_UA", "ISR": "he_IL",
        "SAU": "ar_SA", "ARE": "ar_AE", "EGY": "ar_EG", "QAT": "ar_QA", "KWT": "ar_KW", "CHN": "zh_CN", "TWN": "zh_TW",
        "HKG": "zh_HK", "JPN": "ja_JP", "KOR": "ko_KR", "THA": "th_TH", "VNM": "vi_VN", "IDN": "id_ID", "MYS": "ms_MY",
        "PAK": "ur_PK", "NGA": "en_NG", "KEN": "en_KE",
    ]

    static let currencies: [String: String] = [
        "USA": "USD", "GBR": "GBP", "CAN": "CAD", "AUS": "AUD", "NZL": "NZD", "IRL": "EUR", "IND": "INR", "SGP": "SGD",
        "ZAF": "ZAR", "PHL": "PHP", "FRA": "EUR", "DEU": "EUR", "AUT": "EUR", "CHE": "CHF", "ITA": "EUR", "ESP": "EUR",
        "MEX": "MXN", "ARG": "ARS", "CHL": "CLP", "COL": "COP", "PER": "PEN", "BRA": "BRL", "PRT": "EUR", "NLD": "EUR",
        "BEL": "EUR", "LUX": "EUR", "SWE": "SEK", "NOR": "NOK", "DNK": "DKK", "FIN": "EUR", "ISL": "ISK", "POL": "PLN",
        "CZE": "CZK", "SVK": "EUR", "HUN": "HUF", "ROU": "RON", "BGR": "BGN", "GRC": "EUR", "TUR": "TRY", "RUS": "RUB",
        "UKR": "UAH", "ISR": "ILS", "SAU": "SAR", "ARE": "AED", "EGY": "EGP", "QAT": "QAR", "KWT": "KWD", "CHN": "CNY",
        "TWN": "TWD", "HKG": "HKD", "JPN": "JPY", "KOR": "KRW", "THA": "THB", "VNM": "VND", "IDN": "IDR", "MYS": "MYR",
        "PAK": "PKR", "NGA": "NGN", "KEN": "KES",
    ]
}

/// Generated pictures for products that have none: a path the picture cache draws itself.
public enum Placeholder {
    public static let scheme = "placeholder:"

    public static func path(for productID: String) -> String { scheme + productID }

    public static func productID(of path: String) -> String? {
        path.hasPrefix(scheme) ? String(path.dropFirst(scheme.count)) : nil
    }
}

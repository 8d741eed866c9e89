// Xcode StoreKit configuration files (`.storekit`) read as catalogs: every version seen
// (1.0 to 5.0 and later), every key optional, unknown keys ignored. Like the catalog reader this
// walks JSONSerialization's objects so that each complaint names its JSON path:
// `subscriptionGroups[1].subscriptions[0].recurringSubscriptionPeriod: "P5Q" is not a period`.
import Crypto
import Foundation
import StoreModel

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

    public static func load(contentsOf url: URL, options: StoreKitOptions = StoreKitOptions()) throws(CatalogError)
        -> LoadedCatalog
    {
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
        let assets = isFolder.boolValue ? PromotionalAssets.read(package: url) : nil
        let (catalog, warnings) = try parse(data, fileName: name, options: options, side: extras, assets: assets)
        return LoadedCatalog(
            catalog: catalog, warnings: warnings, imageRoot: url.deletingLastPathComponent(),
            unusedAssets: assets?.unused(by: catalog) ?? [])
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
                guard let object = raw as? [String: Any] else {
                    throw fail("\"\(key)\" must be an object by product id")
                }
                var result: [String: T] = [:]
                for (id, value) in object {
                    guard let converted = convert(value) else { throw fail("\(key).\(id): \(value) is not valid here") }
                    result[id] = converted
                }
                return result
            }
            let months = try table("months") {
                ($0 as? NSNumber).map(\.intValue).flatMap { (1...120).contains($0) ? $0 : nil }
            }
            side.durations = try table("durations") { ($0 as? String).flatMap { try? SubscriptionPeriod(parsing: $0) } }
            for (id, count) in months where side.durations[id] == nil {
                side.durations[id] = SubscriptionPeriod(count, .month)
            }
            side.images = try table("images") { $0 as? String }
            side.unlocks = try table("unlocks") { $0 as? [String] }
            side.quantities = try table("quantities") {
                ($0 as? NSNumber).map(\.intValue).flatMap { $0 >= 1 ? $0 : nil }
            }
            side.offerPrices = try table("offerPrices") { value in
                guard let text = (value as? String) ?? (value as? NSNumber).map(\.stringValue),
                    PriceText.isPlainDecimal(text)
                else { return nil }
                return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            }
            return side
        }
    }

    // MARK: Parsing

    public static func parse(
        _ data: Data, fileName: String, options: StoreKitOptions = StoreKitOptions(), side: SideFile = SideFile(),
        assets: PromotionalAssets? = nil
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
        if country != nil {
            catalog.storefront = storefront
            catalog.storefrontReason = settings?.child("_storefront") == nil ? "the default" : "the file's _storefront"
        }
        if country == nil {
            warnings.append(
                CatalogWarning(
                    file: fileName, entry: "settings._storefront",
                    message: "unknown storefront \"\(storefront)\": prices are shown in US dollars"))
        }
        let fileLocale = try settings?.child("_locale")?.stringOrNil()
        catalog.localeIdentifier = options.locale ?? fileLocale ?? country?.locale ?? "en_US"
        catalog.currencyCode = country?.currency ?? "USD"
        if try settings?.child("_askToBuyEnabled")?.boolean() == true { catalog.defaultPolicy = .defer }
        if try settings?.child("_failTransactionsEnabled")?.boolean() == true {
            catalog.defaultPolicy = .fail(.unknown)
        }
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
        if billingIssues || grace {
            catalog.billing = BillingSetting(
                failing: billingIssues, graceDays: grace ? BillingSetting.defaultGraceDays : nil)
        }

        var seen: [String: String] = [:]
        func add(_ product: Product, path: String) throws(CatalogError) {
            if let first = seen[product.id] {
                throw CatalogError(
                    file: fileName, entry: path,
                    message: "duplicate product id \"\(product.id)\" (first used by \(first))")
            }
            seen[product.id] = path
            catalog.products.append(product)
        }
        let reader = ProductReader(
            locale: catalog.localeIdentifier, options: options, side: side, assets: assets, file: fileName)
        for (index, node) in (try root.child("products")?.arrayOrNil() ?? []).enumerated() {
            try add(try reader.product(node, defaultType: nil, warnings: &warnings), path: "products[\(index)]")
        }
        for (index, node) in (try root.child("nonRenewingSubscriptions")?.arrayOrNil() ?? []).enumerated() {
            try add(
                try reader.product(node, defaultType: "NonRenewingSubscription", warnings: &warnings),
                path: "nonRenewingSubscriptions[\(index)]")
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
        warnings += try Self.unsold(root, catalog: catalog, storefront: storefront, file: fileName)
        // An empty configuration, as Xcode makes a new one, opens as an empty store (C6).
        for id in Set(options.durations.keys).subtracting(seen.keys).sorted() {
            throw CatalogError(
                file: fileName, entry: nil, message: "--duration names \"\(id)\", which is not a product of this file")
        }
        return (catalog, warnings)
    }

    /// The file's top-level value: JSON, or a property list (XML or binary) as Xcode can also save
    /// it. The same keys mean the same things in both.
    static func readObject(_ data: Data, fileName: String) throws(CatalogError) -> Any {
        let head = data.prefix(64)
        let looksLikePlist =
            head.starts(with: Data("bplist".utf8))
            || String(decoding: head, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<?xml")
            || String(decoding: head, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<plist")
        if looksLikePlist {
            do {
                return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                throw CatalogError(
                    file: fileName, entry: nil,
                    message: "is not a valid property list" + (detail.map { " (\($0))" } ?? ""))
            }
        }
        do {
            return try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw CatalogError(
                file: fileName, entry: nil,
                message: "is not valid JSON or a property list" + (detail.map { " (\($0))" } ?? ""))
        }
    }

    /// One entry of `_storeKitErrors` (Q7): `{"name": "Purchase", "enabled": true, "current": …}`.
    /// `current` names the error: a string ("networkError", "StoreKitError.networkError"), or an
    /// object or array holding one; an enabled entry whose error cannot be read fails with the
    /// API's plainest error (StoreKitError.unknown; VerificationError.invalidSignature) and a
    /// warning naming the path.
    static func simulatedError(_ node: Node, file: String, warnings: inout [CatalogWarning]) throws(CatalogError) -> (
        StoreKitAPI, SimulatedError
    )? {
        let entry = try node.object()
        guard try entry.child("enabled")?.boolean() == true else { return nil }
        guard let name = try entry.child("name")?.stringOrNil() else { throw node.error("has no \"name\"") }
        guard let api = StoreKitAPI(rawValue: name) ?? StoreKitAPI(argument: name) else {
            warnings.append(
                CatalogWarning(
                    file: file, entry: node.path + ".name",
                    message: "\"\(name)\" is not a StoreKit API Storefront knows; ignored"))
            return nil
        }
        let plainest = api.plainestError
        guard let current = entry.child("current"), !(current.value is NSNull) else { return (api, plainest) }
        func strings(_ value: Any) -> [String] {
            if let text = value as? String { return [text] }
            if let object = value as? [String: Any] {
                return object.keys.sorted().flatMap { [$0] + strings(object[$0]!) }
            }
            if let array = value as? [Any] { return array.flatMap(strings) }
            return []
        }
        if let error = strings(current.value).lazy.compactMap({ SimulatedError(parsing: $0, for: api) }).first {
            return (api, error)
        }
        warnings.append(
            CatalogWarning(
                file: file, entry: current.path,
                message: "no \(api.rawValue) error Storefront knows is named here; \(plainest) is used"
            ))
        return (api, plainest)
    }

    /// Xcode's `subscriptionOffersKeyPair`: an id and a P-256 private key in base64 PKCS #8.
    static func offerKey(_ pair: Object) throws(CatalogError) -> APIKey? {
        guard let id = try pair.child("id")?.stringOrNil(), !id.isEmpty else { return nil }
        let keyNode = pair.child("privateKey")
        guard let text = try keyNode?.stringOrNil(), let keyNode else { throw pair.node.error("has no \"privateKey\"") }
        let base64 = text.components(separatedBy: .whitespacesAndNewlines).joined()
        guard let der = Data(base64Encoded: base64), let key = try? P256.Signing.PrivateKey(derRepresentation: der)
        else {
            throw keyNode.error("is not a P-256 private key in base64 PKCS #8")
        }
        return APIKey(
            keyID: id, publicKey: key.publicKey.x963Representation, createdAt: Date(timeIntervalSince1970: 0),
            type: .subscriptionOffer)
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
            guard let newest = versions.last, let child = byVersion.child(newest), let rate = try child.integer() else {
                return nil
            }
            return (rate, child)
        }
        guard let rate = try node.integer() else { return nil }
        return (rate, node)
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
            if let number = value as? NSNumber, !CompactJSON.isBoolean(value),
                number.doubleValue.rounded() == number.doubleValue, abs(number.doubleValue) < 1e9
            {
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

// C1–C5: the catalog file and its check.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let shippedCatalog = repositoryRoot.appendingPathComponent("assets/catalog.json")

@Suite("Catalog")
struct CatalogTests {
    @Test("C4 the shipped catalog: eight comics or more, a pack of 5, 3 and 6 months, one bonus day, USD")
    func shipped() throws {
        let loaded = try CatalogLoader.load(contentsOf: shippedCatalog)
        let catalog = loaded.catalog
        #expect(catalog.comics.count >= 8)
        #expect(catalog.products.filter { $0.kind == .consumable }.map(\.quantity) == [5])
        #expect(catalog.products.filter(\.isSubscription).map(\.months) == [3, 6])
        #expect(catalog.bonusDays == 1)
        #expect(catalog.currencyCode == "USD")
        #expect(catalog.comics.allSatisfy { $0.image != nil })
        // C3: a subscription's name states its duration.
        for product in catalog.products where product.isSubscription {
            #expect(product.title.contains("\(product.months) Months"))
        }
        #expect(loaded.warnings.allSatisfy { $0.message.hasPrefix("image ") })
    }

    @Test(
        "a product named wrongly gets the one it is close to, and no guess when two are as close",
        arguments: [
            ("6 months", "6 Months of Comics"), ("coffee", "Monday Coffee"), ("Night", "Night Shift"),
            ("random", "Random Comics ×5"),
            ("3months", "com.storefront.sub.3months"), ("night shfit", "com.storefront.comic.nightshift"),
            ("months", nil), ("of comics", nil), ("ion", nil), ("com.storefront.comic.nope", nil),
        ] as [(String, String?)])
    func suggestions(_ typed: String, _ suggested: String?) throws {
        let catalog = try CatalogLoader.load(contentsOf: shippedCatalog).catalog
        #expect(throws: StoreError.unknownProduct(typed, suggestion: suggested)) { try catalog.require(typed) }
    }

    @Test(
        "O2 O3 O4 the shipped RW Selfies catalog has two promotional offers, two code offers and a win-back offer on the monthly All Access; a bad one is refused by name"
    )
    func shippedPromotionalOffers() throws {
        let selfies = shippedCatalog.deletingLastPathComponent().appendingPathComponent("selfies.json")
        let terms = try #require(
            try CatalogLoader.load(contentsOf: selfies).catalog.product("com.storefront.selfies.sub.allaccess.monthly")?
                .autoRenew)
        #expect(
            terms.offers.map(\.id) == [
                "comeback.3months", "thankyou.freemonth", "SPRING-PROMO", "PODCAST-FRIENDS", "winback.2months",
            ])
        #expect(terms.offers.map(\.type) == [.promotional, .promotional, .code, .code, .winBack])
        #expect(
            terms.offer("winback.2months", type: .winBack)?.winBack
                == WinBackEligibility(paidMonths: 1, lapsedMonths: 0...12))
        #expect(terms.offer("SPRING-PROMO", type: .code)?.eligibility == [.new, .expired])
        #expect(
            terms.offer("comeback.3months", type: .promotional)?.terms
                == IntroductoryOffer(mode: .payAsYouGo, period: .month, periods: 3, price: Decimal(string: "2.99")!))
        let product =
            #"{"id":"s","kind":"autoRenewableSubscription","title":"S","price":"1","period":"P1M","group":"g","promotionalOffers":"#
        let cases = [
            (product + #"[{"mode":"freeTrial","period":"P1W"}]}]}"#, #"promotionalOffers[0]: has no "id""#),
            (
                product
                    + #"[{"id":"a","mode":"freeTrial","period":"P1W"},{"id":"a","mode":"freeTrial","period":"P1M"}]}]}"#,
                #"offer "a" is given twice"#
            ),
            (product + #"[{"id":"a","mode":"payAsYouGo","period":"P1W"}]}]}"#, #"a paid offer needs a "price""#),
            (product + #"{"id":"a"}}]}"#, #""promotionalOffers" must be an array of objects"#),
        ]
        for (json, words) in cases {
            do {
                _ = try CatalogLoader.parse(Data((#"{"products":["# + json).utf8), fileName: "c.json")
                Issue.record("accepted \(json)")
            } catch {
                #expect("\(error)".contains(words), "\(error)")
            }
        }
    }

    @Test("C3 prices are exact decimals, formatted for the locale")
    func prices() throws {
        let json = #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"0.10"}]}"#
        let (catalog, _) = try CatalogLoader.parse(Data(json.utf8), fileName: "c.json")
        #expect(catalog.products[0].price * 3 == Decimal(string: "0.30")!)
        #expect(catalog.priceFormatter.string(for: Decimal(string: "1234.5")!) == "$1,234.50")
        #expect(
            PriceFormatter(currencyCode: "EUR", localeIdentifier: "de_DE").string(for: Decimal(string: "0.99")!)
                .contains("0,99"))
        #expect(PriceFormatter.plain(Decimal(string: "0.99")!) == "0.99")
        #expect(PriceFormatter.plain(Decimal(string: "5")!) == "5.00")
        #expect(PriceFormatter.plain(Decimal(string: "4900")!) == "4900.00")
        #expect(PriceFormatter.plain(Decimal(string: "0.5")!) == "0.50")
        #expect(PriceFormatter.plain(Decimal(string: "-0.71")!) == "-0.71")
        #expect(PriceFormatter.plain(Decimal(string: "0.0000001")!) == "0.0000001")
        #expect(PriceFormatter.plain(Decimal(string: "1234567.125")!) == "1234567.125")
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        let name: String, json: String, message: String
        var testDescription: String { name }
    }

    static let badCatalogs: [BadCase] = [
        BadCase(name: "not JSON", json: "{ products: ", message: "c.json: is not valid JSON"),
        BadCase(name: "not an object", json: "[]", message: "c.json: must be a JSON object"),
        BadCase(name: "no products", json: "{}", message: "c.json: has no \"products\" array"),
        BadCase(
            name: "unknown storefront",
            json: #"{"storefront":"XYZ","products":[{"id":"p","kind":"consumable","title":"P","price":"1"}]}"#,
            message: "c.json: storefront: \"XYZ\" is not an App Store storefront"),
        BadCase(
            name: "a currency the storefront does not sell in",
            json:
                #"{"storefront":"IRL","currency":"USD","products":[{"id":"p","kind":"consumable","title":"P","price":"1"}]}"#,
            message: "c.json: currency: \"USD\" is not what storefront IRL sells in (EUR)"),
        BadCase(
            name: "a currency and locale that name no storefront",
            json: #"{"currency":"EUR","products":[{"id":"p","kind":"consumable","title":"P","price":"1"}]}"#,
            message: "c.json: names no \"storefront\", and its currency EUR and locale en_US name none together"),
        BadCase(
            name: "missing id", json: #"{"products":[{"kind":"consumable","title":"P","price":"1"}]}"#,
            message: "c.json: products[0]: has no \"id\""),
        BadCase(
            name: "duplicate id",
            json:
                #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"1"},{"id":"p","kind":"consumable","title":"Q","price":"1"}]}"#,
            message: "c.json: products[1] \"p\": duplicate identifier (first used by products[0])"),
        BadCase(
            name: "unknown kind", json: #"{"products":[{"id":"p","kind":"gift","title":"P","price":"1"}]}"#,
            message: "c.json: products[0] \"p\": unknown kind \"gift\""),
        BadCase(
            name: "negative price", json: #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"-1"}]}"#,
            message: "c.json: products[0] \"p\": price \"-1\" is negative"),
        BadCase(
            name: "price not a number",
            json: #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"free"}]}"#,
            message: "c.json: products[0] \"p\": price \"free\" is not a decimal number"),
        BadCase(
            name: "price as a JSON number",
            json: #"{"products":[{"id":"p","kind":"consumable","title":"P","price":0.99}]}"#,
            message: "c.json: products[0] \"p\": price must be a string"),
        BadCase(
            name: "subscription without months",
            json: #"{"products":[{"id":"s","kind":"nonRenewingSubscription","title":"S","price":"1"}]}"#,
            message: "c.json: products[0] \"s\": a non-renewing subscription needs a \"duration\" such as \"P3M\""),
        BadCase(
            name: "comic without image",
            json: #"{"products":[{"id":"c","kind":"nonConsumable","title":"C","price":"1"}]}"#,
            message: "c.json: products[0] \"c\": a comic needs an \"image\""),
        BadCase(
            name: "bad policy",
            json: #"{"policy":"maybe","products":[{"id":"p","kind":"consumable","title":"P","price":"1"}]}"#,
            message: "c.json: policy: unknown outcome \"maybe\""),
    ]

    @Test("C5 a bad catalog is refused with one line naming the file and the entry", arguments: badCatalogs)
    func refuses(_ example: BadCase) {
        do {
            _ = try CatalogLoader.parse(Data(example.json.utf8), fileName: "c.json")
            Issue.record("accepted \(example.name)")
        } catch {
            #expect(error.description.hasPrefix(example.message), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test(
        "C1 a JSON catalog's storefront: the one it names, with that storefront's currency and locale when it gives none; else the one its locale and currency name, or its currency alone"
    )
    func storefronts() throws {
        func parse(_ head: String) throws -> Catalog {
            try CatalogLoader.parse(
                Data(#"{\#(head)"products":[{"id":"p","kind":"consumable","title":"P","price":"1"}]}"#.utf8),
                fileName: "c.json"
            ).0
        }
        let named = try parse(#""storefront":"fra","#)
        #expect(
            (named.storefront, named.storefrontID, named.currencyCode, named.localeIdentifier, named.storefrontReason)
                == ("FRA", "143442", "EUR", "fr_FR", "named by the catalog"))
        let irish = try parse(#""currency":"EUR","locale":"en_IE","#)
        #expect((irish.storefront, irish.storefrontID) == ("IRL", "143449"))
        #expect(irish.storefrontReason == "from its locale en_IE and currency EUR")
        let yen = try parse(#""currency":"JPY","locale":"en_US","#)
        #expect(yen.storefront == "JPN" && yen.storefrontReason == "from its currency JPY")
        #expect(try parse("").storefront == "USA", "the default currency and locale: the USA")
    }

    @Test("C5 an unreadable file names the file and why")
    func unreadable() {
        let url = URL(fileURLWithPath: "/nonexistent/catalog.json")
        #expect(throws: CatalogError(file: url.path, entry: nil, message: "cannot be read (no such file)")) {
            try CatalogLoader.load(contentsOf: url)
        }
    }

    @Test("C5 a missing image is a warning now, an error when images are required")
    func missingImage() throws {
        let json = #"{"products":[{"id":"c","kind":"nonConsumable","title":"C","price":"1","image":"c.png"}]}"#
        try withCatalogFile(json) { folder, file in
            let loaded = try CatalogLoader.load(contentsOf: file)
            #expect(
                loaded.warnings.map(\.description) == [
                    "c.json: warning: products[0] \"c\": image \"c.png\" is missing (looked in \(folder.path))"
                ])
            #expect(throws: CatalogError.self) { try CatalogLoader.load(contentsOf: file, imagesRequired: true) }
            try Data().write(to: folder.appendingPathComponent("c.png"))
            #expect(try CatalogLoader.load(contentsOf: file, imagesRequired: true).warnings.isEmpty)
        }
    }

    @Test("C8 a JSON product names its own art with promotionalImage, checked like a comic's picture")
    func promotionalImage() throws {
        let json =
            #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"1","promotionalImage":"art/p.jpg"}]}"#
        try withCatalogFile(json) { folder, file in
            let loaded = try CatalogLoader.load(contentsOf: file)
            #expect(loaded.catalog.product("p")?.promotionalImage == "art/p.jpg")
            #expect(
                loaded.warnings.map(\.description) == [
                    "c.json: warning: products[0] \"p\": image \"art/p.jpg\" is missing (looked in \(folder.path))"
                ])
            #expect(loaded.unusedAssets.isEmpty)
        }
    }

    @Test(
        "C5 the entry of a refusal comes from the decoder's coding path, with the product's id: a nested offer's, a random comic's; a whole number may be written 5.0, never true"
    )
    func entriesFromCodingPaths() throws {
        let plan =
            #"{"id":"s","kind":"autoRenewableSubscription","title":"S","price":"1","period":"P1M","group":"g","#
        let cases = [
            (
                #"{"products":["# + plan
                    + #""winBackOffers":[{"id":"w","mode":"freeTrial","period":"P1M"},{"id":"x","mode":"bogus"}]}]}"#,
                #"c.json: products[0] "s" winBackOffers[1]: "mode" must be one of"#
            ),
            (
                #"{"products":["# + plan + #""introOffer":{"mode":"payUpFront","period":"P1M","price":1}}]}"#,
                #"c.json: products[0] "s" introOffer: price must be a string"#
            ),
            (
                #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"1","quantity":true}]}"#,
                #"c.json: products[0] "p": "quantity" must be a whole number"#
            ),
            (
                #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"1"}],"randomComics":[{"id":"r"},7]}"#,
                "c.json: randomComics[1]: must be an object"
            ),
        ]
        for (json, words) in cases {
            #expect(throws: CatalogError.self) { try CatalogLoader.parse(Data(json.utf8), fileName: "c.json") }
            do { _ = try CatalogLoader.parse(Data(json.utf8), fileName: "c.json") } catch {
                #expect(error.description.hasPrefix(words), "\(error.description)")
            }
        }
        let whole = #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"1","quantity":5.0}]}"#
        #expect(try CatalogLoader.parse(Data(whole.utf8), fileName: "c.json").0.products[0].quantity == 5)
    }

    @Test("unknown keys are ignored with a warning")
    func unknownKeys() throws {
        let json = #"{"colour":"red","products":[{"id":"p","kind":"consumable","title":"P","price":"1","qty":3}]}"#
        let (catalog, warnings) = try CatalogLoader.parse(Data(json.utf8), fileName: "c.json")
        #expect(catalog.products[0].quantity == 5)
        #expect(warnings.map(\.message) == ["unknown key \"colour\" is ignored", "unknown key \"qty\" is ignored"])
    }

    @Test(
        "C5 a price is digits with an optional fraction (a minus only where the field takes one, to be refused in words)",
        arguments: [
            ("0.99", false, true), ("12", false, true), ("-1", false, false), ("-1", true, true), ("1.", false, false),
            (".5", false, false),
            ("1.2.3", false, false), ("", false, false), ("1e5", false, false), ("-", true, false),
            ("\u{0661}\u{0662}", false, false),
            (" 1", false, false),
        ]
    )
    func plainDecimal(text: String, signed: Bool, plain: Bool) {
        #expect(PriceText.isPlainDecimal(text, signed: signed) == plain)
    }
}

/// `json` written as `c.json` in a folder of its own, removed afterwards.
func withCatalogFile(_ json: String, _ body: (URL, URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("c.json")
    try Data(json.utf8).write(to: file)
    try body(folder, file)
}

// Xcode StoreKit configuration files read as catalogs — the real samples, each version's
// layout, localizations, settings, durations of non-renewing subscriptions, and bad files.
import Crypto
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

let storeKitFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/storekit")

@Suite("StoreKit configuration files")
struct StoreKitCatalogTests {
    func load(_ name: String, _ options: StoreKitOptions = StoreKitOptions()) throws -> LoadedCatalog {
        try CatalogLoader.load(contentsOf: storeKitFixtures.appendingPathComponent(name), storeKit: options)
    }

    func parse(_ text: String, _ options: StoreKitOptions = StoreKitOptions()) throws(CatalogError) -> Catalog {
        try StoreKitCatalog.parse(Data(text.utf8), fileName: "Bad.storekit", options: options).0
    }

    func parseError(_ text: String, _ options: StoreKitOptions = StoreKitOptions()) -> String? {
        do {
            _ = try parse(text, options)
            return nil
        } catch {
            return error.description
        }
    }

    /// Kind, price, currency and period of every product, in file order.
    func summary(_ catalog: Catalog) -> [String] {
        catalog.products.map { product in
            var text =
                "\(product.id) \(product.kind.rawValue) \(PriceFormatter.plain(product.price)) \(catalog.currencyCode)"
            if let terms = product.autoRenew {
                text += " \(terms.period) \(terms.group)#\(terms.rank)"
                if let offer = terms.introductoryOffer {
                    text +=
                        " \(offer.mode.rawValue) \(offer.period)×\(offer.periods) \(PriceFormatter.plain(offer.price))"
                }
            }
            if product.kind == .nonRenewingSubscription { text += " \(product.duration?.description ?? "?")" }
            return text
        }
    }

    @Test("Apple's Food Truck sample (2.0): pay-as-you-go and pay-up-front offers, Arabic localizations")
    func foodTruck() throws {
        let loaded = try load("samples/food-truck.storekit")
        #expect(loaded.catalog.format == "Xcode StoreKit configuration 2.0")
        #expect(
            summary(loaded.catalog) == [
                "feature.annualhistory nonConsumable 0.99 USD",
                "socialfeedplus.monthly autoRenewableSubscription 4.99 USD P1M 20947887#1 payAsYouGo P1M×3 2.49",
                "socialfeedplus.yearly autoRenewableSubscription 49.99 USD P1Y 20947887#1 payUpFront P3M×1 8.99",
            ])
        #expect(loaded.catalog.products[1].title == "Social Feed+ Monthly Plan")
        #expect(loaded.catalog.products[1].autoRenew?.unlocks == ["Social Feed+"])
        let arabic = try load("samples/food-truck.storekit", StoreKitOptions(locale: "ar_SA"))
        #expect(arabic.catalog.products[0].title == "سجل تاريخ لمدة عام")
        #expect(arabic.catalog.currencyCode == "USD", "the storefront is still the USA: prices stay in dollars")
    }

    @Test(
        "C2 Apple's SKDemo sample (2.0): all four kinds; the non-renewing one's year read from its name; _timeRate 15")
    func skDemo() throws {
        let loaded = try load("samples/skdemo.storekit")
        #expect(
            summary(loaded.catalog) == [
                "nonconsumable.car nonConsumable 1.99 USD", "nonconsumable.utilityvehicle nonConsumable 2.99 USD",
                "nonconsumable.racecar nonConsumable 4.99 USD", "consumable.fuel.octane87 consumable 0.99 USD",
                "consumable.fuel.octane89 consumable 1.99 USD", "consumable.fuel.octane91 consumable 2.99 USD",
                "nonRenewing.standard nonRenewingSubscription 9.99 USD P1Y",
                "subscription.standard autoRenewableSubscription 2.99 USD P1M 3F19ED53#3",
                "subscription.premium autoRenewableSubscription 3.99 USD P1M 3F19ED53#2",
                "subscription.pro autoRenewableSubscription 4.99 USD P1M 3F19ED53#1 payUpFront P2M×1 1.99",
            ])
        #expect(
            loaded.catalog.product("nonRenewing.standard")?.durationSource
                == "inferred from \"Standard 1 Year Service Access\"")
        #expect(loaded.catalog.clockRate == 86_400, "_timeRate 15: a monthly renewal every 30 seconds")
        #expect(loaded.warnings.isEmpty)
        #expect(loaded.catalog.product("nonconsumable.car")?.image == "placeholder:nonconsumable.car")
    }

    @Test("Apple's Backyard Birds sample (3.0): six consumables, three tiers with free trials, _storeKitErrors read")
    func backyardBirds() throws {
        let loaded = try load("samples/backyard-birds.storekit")
        let catalog = loaded.catalog
        #expect(catalog.products.count == 9)
        #expect(catalog.products.filter { $0.kind == .consumable }.count == 6)
        #expect(
            summary(catalog).suffix(3) == [
                "pass.individual autoRenewableSubscription 4.99 USD P1M 6F3A93AB#3 freeTrial P1M×1 0.00",
                "pass.family autoRenewableSubscription 7.99 USD P1M 6F3A93AB#2 freeTrial P1M×1 0.00",
                "pass.premium autoRenewableSubscription 11.99 USD P1M 6F3A93AB#1 freeTrial P1M×1 0.00",
            ])
        #expect(catalog.defaultPolicy == .approve && catalog.localeIdentifier == "en_US" && catalog.clockRate == nil)
        #expect(loaded.warnings.isEmpty)
    }

    @Test("1.0 layout: no identifier, empty settings, null referenceName, null offer")
    func versionOne() throws {
        let catalog = try load("v1.storekit").catalog
        #expect(catalog.format == "Xcode StoreKit configuration 1.0")
        #expect(
            summary(catalog) == [
                "com.example.comics.owl nonConsumable 0.99 USD", "com.example.comics.sample consumable 0.00 USD",
                "com.example.comics.3months nonRenewingSubscription 2.99 USD P3M",
                "com.example.comics.club.weekly autoRenewableSubscription 4.99 USD P1W 20000001#1",
            ])
        #expect(catalog.product("com.example.comics.3months")?.durationSource == "inferred from the id")
    }

    @Test("4.0 layout in Japan: appPolicies ignored, yen prices with no decimals, Japanese names, half-year inferred")
    func versionFourJapan() throws {
        let catalog = try load("v4-japan.storekit").catalog
        #expect(catalog.currencyCode == "JPY" && catalog.localeIdentifier == "ja_JP")
        #expect(catalog.product("jp.example.pass.halfyear")?.title == "6か月パス")
        #expect(catalog.product("jp.example.pass.halfyear")?.months == 6)
        #expect(catalog.priceFormatter.string(for: catalog.products[1].price) == "¥4,900")
        let english = try load("v4-japan.storekit", StoreKitOptions(locale: "en_GB")).catalog
        #expect(english.product("jp.example.pass.halfyear")?.title == "6 Months Pass", "no en_GB: US English next")
        #expect(english.product("jp.example.comic.catjudge")?.title == "猫の裁判", "only Japanese given: the first")
    }

    @Test(
        "5.0 layout: settings become the defer policy, billing retry with grace, one hour is one day; empty names show the id"
    )
    func versionFiveSettings() throws {
        let loaded = try load("v5-settings.storekit")
        let catalog = loaded.catalog
        #expect(catalog.defaultPolicy == .defer)
        #expect(catalog.billing == BillingSetting(failing: true, graceDays: 16))
        #expect(catalog.clockRate == 24, "_timeRate 1 is SKTestTimeRateOneHourIsOneDay")
        #expect(catalog.currencyCode == "GBP" && catalog.localeIdentifier == "en_GB")
        #expect(catalog.product("com.example.annual_pass")?.title == "com.example.annual_pass")
        #expect(catalog.product("com.example.annual_pass")?.months == 12)
        let weekend = try #require(catalog.product("com.example.weekend"))
        #expect(weekend.title == "com.example.weekend" && weekend.months == 0)
        #expect(weekend.durationSource?.hasPrefix("unknown") == true)
        #expect(loaded.warnings.map(\.entry) == ["nonRenewingSubscriptions[1]"])
        #expect(
            summary(catalog).suffix(2) == [
                "com.example.plus.monthly autoRenewableSubscription 9.99 GBP P1M 5E000001#2 payAsYouGo P1M×3 0.99",
                "com.example.plus.yearly autoRenewableSubscription 89.99 GBP P1Y 5E000001#1 freeTrial P2W×1 0.00",
            ])
        let given = try load(
            "v5-settings.storekit", StoreKitOptions(months: ["com.example.weekend": 1, "com.example.annual_pass": 24])
        ).catalog
        #expect(
            given.product("com.example.weekend")?.months == 1
                && given.product("com.example.weekend")?.durationSource == "--duration")
        #expect(given.product("com.example.annual_pass")?.months == 24, "--months wins over inference")
    }

    @Test("A non-renewing subscription nobody gave a duration cannot be bought, with advice")
    func unknownDurationRefused() throws {
        let state = TemporaryState()
        let catalog = try load("v5-settings.storekit").catalog
        let store = try state.store(catalog: catalog)
        try store.accounts.signUp("ann", password: "pw")
        #expect(
            error { try store.queue.buy("com.example.weekend") } == .unknownDuration(productID: "com.example.weekend"))
        #expect(try store.queue.buy("com.example.annual_pass", outcome: .approve).state == .purchased)
        #expect(try store.entitlements.status().expiry == utc(2027, 1, 15, 12))
    }

    @Test("Arabic and Chinese storefronts: names, currencies and digits")
    func nonEnglish() throws {
        let arabic = try load("arabic.storekit").catalog
        #expect(arabic.products[0].title == "بومة الليل")
        #expect(arabic.currencyCode == "SAR")
        let price = arabic.priceFormatter.string(for: arabic.products[0].price)
        #expect(price.contains("٣٫٩٩"), "Arabic-Indic digits: \(price)")
        #expect(!price.unicodeScalars.contains { $0.value == 0x200F }, "no direction marks for the terminal")
        let chinese = try load("chinese.storekit").catalog
        #expect(chinese.products.map(\.title) == ["猫法官", "随机漫画 ×5"], "zh_Hans matches zh_CN by language")
        #expect(chinese.currencyCode == "CNY")
        #expect(chinese.priceFormatter.string(for: chinese.products[1].price) == "¥12.00")
    }

    @Test("A .storekit folder holding Configuration.storekit loads; one without it is refused")
    func folderForm() throws {
        #expect(try load("Folder.storekit").catalog.products.map(\.title) == ["From a folder"])
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("Empty-\(UUID().uuidString).storekit")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: CatalogError.self) { try CatalogLoader.load(contentsOf: empty) }
    }

    @Test("The side file gives months, images, entitlements and views per pack")
    func sideFile() throws {
        let catalog = try load("sidefile.storekit").catalog
        #expect(
            catalog.product("com.example.season")?.months == 4
                && catalog.product("com.example.season")?.durationSource == "side file")
        #expect(catalog.product("com.example.nightshift")?.image == "comics/night-shift.png")
        #expect(catalog.product("com.example.views")?.quantity == 5)
        #expect(catalog.product("com.example.comics.monthly")?.autoRenew?.unlocks == [AutoRenewTerms.allComics])
        #expect(catalog.product("com.example.comics.monthly")?.autoRenew?.group == "All Comics", "no id: the name")
    }

    @Test("Months are read from ids and names as people write them")
    func inference() {
        let cases: [(String, [String], Int?)] = [
            ("com.x.sub.3months", [], 3), ("com.x.sub", ["6 Months of Comics"], 6), ("com.x.annual", [], 12),
            ("com.x.sub.1year", [], 12), ("com.x.2yr", [], 24), ("com.x.quarterly", [], 3), ("com.x.monthly", [], 1),
            ("com.x.pass", ["Half-Year Pass"], 6), ("com.x.12mo", [], 12), ("com.x.pass", ["Weekend Pass"], nil),
            ("com.x.moon", [], nil), ("com.x.v2", ["Premium"], nil),
        ]
        for (id, names, months) in cases {
            #expect(StoreKitCatalog.ProductReader.inferMonths(id: id, names: names)?.0 == months, "\(id) \(names)")
        }
    }

    @Test("Every key is optional and unknown keys are ignored")
    func minimal() throws {
        let catalog = try parse(
            #"{"products": [{"productID": "a", "type": "NonConsumable", "someday": {"new": true}}, {"productID": "b"}], "future": 1}"#
        )
        #expect(catalog.products[0].title == "a" && catalog.products[0].price == 0)
        #expect(catalog.products[1].kind == .nonConsumable, "no type: a non-consumable")
        #expect(catalog.format == "Xcode StoreKit configuration 1.0")
    }

    @Test(
        "A malformed file names the file and the JSON path",
        arguments: [
            (
                #"{"subscriptionGroups": [{"name": "A", "subscriptions": []}, {"name": "B", "subscriptions": [{"productID": "s", "recurringSubscriptionPeriod": "P5Q"}]}]}"#,
                #"Bad.storekit: subscriptionGroups[1].subscriptions[0].recurringSubscriptionPeriod: "P5Q" is not a period (expected P3D, P1W, P1M, P2M, P3M, P6M or P1Y)"#
            ),
            (
                #"{"products": [{"productID": "a", "type": "NonConsumable", "displayPrice": "1,99"}]}"#,
                #"Bad.storekit: products[0].displayPrice: "1,99" is not a price such as "0.99""#
            ),
            (
                #"{"products": [{"productID": "a", "type": "Subscription"}]}"#,
                #"Bad.storekit: products[0].type: "Subscription" is not a product type (Consumable, NonConsumable, NonRenewingSubscription, RecurringSubscription)"#
            ),
            (#"{"products": [{"type": "Consumable"}]}"#, "Bad.storekit: products[0]: has no \"productID\""),
            (
                #"{"products": [{"productID": "a", "type": "Consumable"}, {"productID": "a", "type": "Consumable"}]}"#,
                #"Bad.storekit: products[1]: duplicate product id "a" (first used by products[0])"#
            ),
            (#"{"products": {"productID": "a"}}"#, "Bad.storekit: products: must be an array"),
            (
                #"{"products": [{"productID": "a", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M"}]}"#,
                "Bad.storekit: products[0]: a RecurringSubscription belongs in a subscription group"
            ),
            (
                #"{"subscriptionGroups": [{"subscriptions": [{"productID": "s", "recurringSubscriptionPeriod": "P1M", "introductoryOffer": {"paymentMode": "halfOff"}}]}]}"#,
                #"Bad.storekit: subscriptionGroups[0].subscriptions[0].introductoryOffer.paymentMode: "halfOff" is not a payment mode (free, payAsYouGo, payUpFront)"#
            ),
            (
                #"{"settings": {"_askToBuyEnabled": "yes"}, "products": [{"productID": "a", "type": "Consumable"}]}"#,
                "Bad.storekit: settings._askToBuyEnabled: must be true or false"
            ),
            ("<?xml version=\"1.0\"?><plist><dict><key>products</key>", "Bad.storekit: is not a valid property list"),
            ("{\"products\": [", "Bad.storekit: is not valid JSON or a property list"),
            ("[1, 2]", "Bad.storekit: must be a JSON object"),
        ] as [(String, String)])
    func malformed(text: String, message: String) {
        let description = parseError(text)
        #expect(description?.hasPrefix(message) == true, "\(description ?? "loaded")")
    }

    @Test("--months for a product the file does not have is refused")
    func monthsForUnknown() {
        #expect(
            parseError(#"{"products": [{"productID": "a", "type": "Consumable"}]}"#, StoreKitOptions(months: ["b": 3]))
                == "Bad.storekit: --duration names \"b\", which is not a product of this file")
    }

    // MARK: Every real file opens

    @Test("C6 an empty configuration, as Xcode creates it, is an empty store with no error")
    func emptyConfiguration() throws {
        let loaded = try load("empty.storekit")
        #expect(loaded.catalog.products.isEmpty)
        #expect(loaded.warnings.isEmpty)
        #expect(loaded.catalog.format == "Xcode StoreKit configuration 4.0")
    }

    @Test("C6 a .storekit saved as an XML or binary property list reads as its JSON twin would")
    func propertyLists() throws {
        for name in ["plist.storekit", "binary-plist.storekit"] {
            let loaded = try load(name)
            #expect(
                summary(loaded.catalog) == [
                    "comic.lost_sock nonConsumable 0.99 EUR",
                    "coins.10 consumable 1.99 EUR",
                    "pass.week.1 nonRenewingSubscription 4.99 EUR P1W",
                    "plus.monthly autoRenewableSubscription 2.99 EUR P1M B0000010#1 freeTrial P1W×1 0.00",
                ], "\(name)")
            #expect(loaded.catalog.products[0].title == "Lost Sock")
            #expect(loaded.catalog.defaultPolicy == .defer, "_askToBuyEnabled, a property-list boolean")
            #expect(loaded.catalog.clockRate == 2880.0, "_timeRate 12: a monthly renewal every 15 minutes")
        }
    }

    @Test("C6 every key of an offer is optional: an empty price, no mode, no period each warn with the JSON path")
    func offerKeysOptional() throws {
        let loaded = try load("offer-keys.storekit")
        #expect(
            summary(loaded.catalog) == [
                "pro.monthly autoRenewableSubscription 9.99 USD P1M 21000001#1 payAsYouGo P1M×3 0.00",
                "pro.yearly autoRenewableSubscription 59.99 USD P1Y 21000001#2 freeTrial P1Y×1 0.00",
            ])
        #expect(
            loaded.warnings.map(\.description) == [
                "offer-keys.storekit: warning: subscriptionGroups[0].subscriptions[0].introductoryOffer.displayPrice: \"displayPrice\" is empty; it is free",
                "offer-keys.storekit: warning: subscriptionGroups[0].subscriptions[1].introductoryOffer: has no \"paymentMode\"; read as a free trial",
                "offer-keys.storekit: warning: subscriptionGroups[0].subscriptions[1].introductoryOffer: has no \"subscriptionPeriod\"; the plan's period P1Y is used",
            ])
        #expect(
            loaded.catalog.clockRate == ClockSetting.sandboxRate,
            "_compatibilityTimeRate by version: the newest (17 → 13) wins")
        var side = StoreKitCatalog.SideFile()
        side.offerPrices = ["pro.monthly": Decimal(string: "4.99")!]
        let data = try Data(contentsOf: storeKitFixtures.appendingPathComponent("offer-keys.storekit"))
        let (catalog, warnings) = try StoreKitCatalog.parse(data, fileName: "offer-keys.storekit", side: side)
        #expect(catalog.products[0].autoRenew?.introductoryOffer?.price == Decimal(string: "4.99"))
        #expect(warnings[0].message == "\"displayPrice\" is empty; the side file's price 4.99 is used")
    }

    @Test(
        "O2 O3 adHocOffers are promotional offers by offerID, codeOffers offer codes by referenceName; subscriptionOffersKeyPair's signatures buy them"
    )
    func promotionalOffers() throws {
        let url = storeKitFixtures.appendingPathComponent("promotional-offers.storekit")
        let loaded = try load("promotional-offers.storekit")
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        let terms = try #require(loaded.catalog.product("plus.monthly")?.autoRenew)
        #expect(
            terms.offers == [
                SubscriptionOffer(
                    id: "plus.winter", type: .promotional,
                    terms: IntroductoryOffer(
                        mode: .payAsYouGo, period: .month, periods: 3, price: Decimal(string: "0.99")!)),
                SubscriptionOffer(
                    id: "plus.sorry", type: .promotional, terms: IntroductoryOffer(mode: .freeTrial, period: .week)),
                SubscriptionOffer(
                    id: "Welcome back", type: .code,
                    terms: IntroductoryOffer(
                        mode: .payAsYouGo, period: .month, periods: 2, price: Decimal(string: "1.99")!),
                    eligibility: [.new, .expired]
                ),
            ])
        #expect(loaded.catalog.subscriptionOfferKey?.keyID == "XK7Q2M9P4R")
        // The file's private key signs; the store, whose keyring is empty, accepts it.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let pair = try #require(object["subscriptionOffersKeyPair"] as? [String: Any])
        let keyText = try #require(pair["privateKey"] as? String)
        let keyData = try #require(Data(base64Encoded: keyText))
        let key = try P256.Signing.PrivateKey(derRepresentation: keyData)
        let state = TemporaryState()
        let store = try state.signedIn("ann", device: "phone", catalog: loaded.catalog)
        try store.queue.buy("plus.monthly")
        let signature = try PromotionalOfferCheck.signOriginal(
            key: key, keyID: "XK7Q2M9P4R", bundleID: try store.signed.identity().bundleID, productID: "plus.monthly",
            offerID: "plus.sorry",
            timestamp: Int64(store.now().timeIntervalSince1970 * 1000)
        )
        let bought = try store.queue.buy(
            "plus.monthly", offer: PromotionalOfferRequest(offerID: "plus.sorry", signature: signature))
        #expect(bought.state == .purchased && bought.offer?.id == "plus.sorry")
        #expect(try store.plans.subscriptions().first?.pendingOffer?.id == "plus.sorry")
        // A bad pair is a clear error naming the path.
        let bad = #"{"subscriptionOffersKeyPair": {"id": "K", "privateKey": "bm90IGEga2V5"}}"#
        #expect(
            parseError(bad)
                == "Bad.storekit: subscriptionOffersKeyPair.privateKey: is not a P-256 private key in base64 PKCS #8")
    }

    @Test("C6 _timeRate: every value of SKTestSession.TimeRate maps exactly; fixed rates and unknown values warn once")
    func timeRates() throws {
        let day = 86_400.0
        let month = 30 * 86_400.0
        let exact: [(Int, Double)] = [
            (1, day / 3600), (2, day / 1800), (3, day / 300), (4, day / 60), (5, day / 30), (6, day),
            (10, month / 3600), (11, month / 1800), (12, month / 900), (13, month / 300), (15, month / 30),
        ]
        for (value, rate) in exact {
            let catalog = try parse(#"{"settings": {"_timeRate": \#(value)}}"#)
            #expect(catalog.clockRate == rate, "time rate \(value)")
        }
        #expect(try parse(#"{"settings": {"_timeRate": 0}}"#).clockRate == nil, "0 is real time")
        #expect(
            try parse(#"{"settings": {"_timeRate": 13}}"#).clockRate == ClockSetting.sandboxRate,
            "monthly renewal every 5 minutes is the sandbox's rate")
        for (value, rate) in [
            (1000, month / 900), (1001, month / 300), (1002, month / 60), (1003, month / 30), (1004, month / 10),
            (1005, month / 2), (14, month / 300), (7, day),
        ] {
            let (catalog, warnings) = try StoreKitCatalog.parse(
                Data(#"{"settings": {"_timeRate": \#(value)}}"#.utf8), fileName: "T.storekit")
            #expect(catalog.clockRate == rate, "time rate \(value)")
            #expect(warnings.count == 1 && warnings[0].entry == "settings._timeRate", "time rate \(value): \(warnings)")
        }
        #expect(try parse(#"{"settings": {"_compatibilityTimeRate": 6}}"#).clockRate == day, "a plain number")
        #expect(
            try parse(#"{"settings": {"_timeRate": 10, "_compatibilityTimeRate": {"3": 6}}}"#).clockRate == month
                / 3600, "_timeRate wins")
    }

    @Test("R5 C6 durations are read from ids and names in English, Chinese, Japanese, Spanish, German and French")
    func durationInference() {
        let cases: [(String, [String], String?)] = [
            ("pro.day.7", [], "P7D"), ("pro.month.1", [], "P1M"), ("pro.year.1", [], "P1Y"), ("pro.week.2", [], "P2W"),
            ("com.x.pass", ["专业版7天使用许可"], "P7D"), ("com.x.pass", ["1 Year"], "P1Y"), ("com.x.pass", ["一年会员"], "P1Y"),
            ("com.x.pass", ["三个月"], "P3M"), ("com.x.pass", ["十二个月"], "P12M"), ("com.x.pass", ["2周体验"], "P2W"),
            ("com.x.pass", ["1ヶ月パス"], "P1M"), ("com.x.pass", ["7日間チケット"], "P7D"), ("com.x.pass", ["1年間プラン"], "P1Y"),
            ("com.x.pass", ["Pase de 7 días"], "P7D"), ("com.x.pass", ["Suscripción de 3 meses"], "P3M"),
            ("com.x.pass", ["1 año"], "P1Y"),
            ("com.x.pass", ["Plan anual"], "P1Y"), ("com.x.pass", ["12 Monate Zugang"], "P12M"),
            ("com.x.pass", ["7 Tage"], "P7D"),
            ("com.x.pass", ["1 Jahr"], "P1Y"), ("com.x.pass", ["2 Wochen"], "P2W"),
            ("com.x.pass", ["Pass 1 an"], "P1Y"),
            ("com.x.pass", ["3 mois"], "P3M"), ("com.x.pass", ["7 jours"], "P7D"),
            ("com.x.pass", ["Abonnement annuel"], "P1Y"),
            ("com.x.pass", ["Weekly Pass"], "P1W"), ("com.x.sub.3months", [], "P3M"), ("com.x.2yr", [], "P2Y"),
            ("com.x.pass", ["Weekend Pass"], nil), ("com.x.moon", [], nil), ("com.x.v2", ["Premium"], nil),
            ("com.x.pass", ["Pro"], nil),
        ]
        for (id, names, expected) in cases {
            #expect(DurationInference.infer(id: id, names: names)?.0.description == expected, "\(id) \(names)")
        }
    }

    @Test("R5 the side file and --duration give ISO 8601 periods; --duration wins")
    func durationOptions() throws {
        var side = StoreKitCatalog.SideFile()
        side.durations = ["com.example.weekend": SubscriptionPeriod(2, .day)]
        let data = try Data(contentsOf: storeKitFixtures.appendingPathComponent("v5-settings.storekit"))
        let (fromSide, _) = try StoreKitCatalog.parse(data, fileName: "v5.storekit", side: side)
        #expect(fromSide.product("com.example.weekend")?.duration == SubscriptionPeriod(2, .day))
        #expect(fromSide.product("com.example.weekend")?.durationSource == "side file")
        let (given, _) = try StoreKitCatalog.parse(
            data, fileName: "v5.storekit", options: StoreKitOptions(durations: ["com.example.weekend": .week]),
            side: side
        )
        #expect(
            given.product("com.example.weekend")?.duration == .week && given.product("com.example.weekend")?.days == 7)
    }

    @Test(
        "Q7 _storeKitErrors: enabled entries become simulated errors named as Apple names them; current read as a string, object or array"
    )
    func storeKitErrors() throws {
        let text = #"""
            {"settings": {"_storeKitErrors": [
              {"name": "Load Products", "enabled": true, "current": null},
              {"name": "Purchase", "enabled": true, "current": "Product.PurchaseError.productUnavailable"},
              {"name": "Verification", "enabled": true, "current": {"error": "invalidCertificateChain"}},
              {"name": "App Store Sync", "enabled": false, "current": "networkError"},
              {"name": "Refund Request Sheet", "enabled": true, "current": ["StoreKitError", "systemError"]},
              {"name": "Subscription Status", "enabled": true, "current": 7},
              {"name": "Time Travel", "enabled": true}
            ]}}
            """#
        let (catalog, warnings) = try StoreKitCatalog.parse(Data(text.utf8), fileName: "E.storekit")
        #expect(
            catalog.simulatedErrors.lines == [
                "Load Products: StoreKitError.unknown",
                "Purchase: Product.PurchaseError.productUnavailable",
                "Verification: VerificationResult.VerificationError.invalidCertificateChain",
                "Subscription Status: StoreKitError.unknown",
                "Refund Request Sheet: StoreKitError.systemError",
            ])
        #expect(catalog.defaultPolicy == .approve, "a Purchase error fails purchases, it is not the policy")
        #expect(
            warnings.map(\.description) == [
                "E.storekit: warning: settings._storeKitErrors[5].current: no Subscription Status error Storefront knows is named here; StoreKitError.unknown is used",
                "E.storekit: warning: settings._storeKitErrors[6].name: \"Time Travel\" is not a StoreKit API Storefront knows; ignored",
            ])
        #expect(
            try load("samples/backyard-birds.storekit").catalog.simulatedErrors.isEmpty, "all nine listed, none enabled"
        )
    }
}

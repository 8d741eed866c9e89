// Google Play's catalog beside the App Store's: each product's Play identity, derived where the
// catalog is silent, of Play's shape (androidpublisher v3's rules), and bad input refused by name.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Google Play's catalog")
struct PlayCatalogTests {
    func parse(_ products: String) throws -> Catalog {
        let json = #"{"products":["# + products + "]}"
        return try CatalogLoader.parse(Data(json.utf8), fileName: "c.json").0
    }

    let comic = #"{"id":"com.x.comic.owl","kind":"nonConsumable","title":"Owl","price":"0.99","image":"o.png""#

    @Test(
        "the shipped comic catalog sells on both: comics one-time, the pack a one-time product the app consumes, the passes subscriptions with one prepaid base plan each"
    )
    func shippedComics() throws {
        let play = try CatalogLoader.load(contentsOf: shippedCatalog).catalog.playProducts()
        #expect(play.count == 11)
        let comic = try #require(play.first { $0.product == "com.storefront.comic.nightshift" })
        #expect(comic.productId == "com.storefront.comic.nightshift" && comic.kind == .oneTime && !comic.consumable)
        #expect(play.first { $0.product == "com.storefront.randomviews" }?.consumable == true)
        let pass = try #require(play.first { $0.product == "com.storefront.sub.3months" })
        #expect(
            pass.kind == .subscription
                && pass.basePlans == [
                    PlayBasePlan(
                        basePlanId: "prepaid-3-months", renewal: .prepaid, period: SubscriptionPeriod(3, .month),
                        price: Decimal(string: "2.99")!)
                ])
    }

    @Test(
        "an auto-renewable plan: one auto-renewing base plan of its period; a subscription id shortened to Play's 40 characters; the free week an offer for new customers, promotional and win-back offers developer-determined and tagged"
    )
    func selfiesPlans() throws {
        let selfies = repositoryRoot.appendingPathComponent("assets/selfies.json")
        let play = try CatalogLoader.load(contentsOf: selfies).catalog.playProducts()
        let monthly = try #require(play.first { $0.product == "com.storefront.selfies.sub.allaccess.monthly" })
        #expect(monthly.productId == "storefront.selfies.sub.allaccess.monthly", "45 characters cut to 40")
        #expect(monthly.basePlans.map(\.basePlanId) == ["monthly"] && monthly.basePlans[0].renewal == .autoRenewing)
        let intro = try #require(monthly.offers.first)
        #expect(intro.offerId == "intro" && intro.eligibility == .newCustomers && intro.appleOffer == nil)
        #expect(intro.phases == [PlayOffer.Phase(price: 0, period: .week, recurrences: 1)])
        let free = try #require(monthly.offers.first { $0.appleOffer == "thankyou.freemonth" })
        #expect(free.offerId == "thankyou-freemonth" && free.eligibility == .developerDetermined)
        #expect(free.tags == ["promotional"])
        #expect(monthly.offers.contains { $0.tags == ["winback"] })
    }

    @Test("every id derived from every shipped catalog and Xcode sample is of Play's shape, and none is another's")
    func everyDerivedIDIsPlays() throws {
        var catalogs = try ["catalog.json", "selfies.json", "world.json", "yearly.json"].map {
            try CatalogLoader.load(contentsOf: repositoryRoot.appendingPathComponent("assets/\($0)")).catalog
        }
        let samples = repositoryRoot.appendingPathComponent("Tests/Fixtures/storekit/samples")
        for name in try FileManager.default.contentsOfDirectory(atPath: samples.path) where name.hasSuffix(".storekit")
        {
            catalogs.append(try StoreKitCatalog.load(contentsOf: samples.appendingPathComponent(name)).catalog)
        }
        #expect(catalogs.count >= 9)
        for catalog in catalogs {
            let play = try catalog.playProducts()
            #expect(play.count == catalog.products.count, "\(catalog.name)")
            for product in play {
                #expect(PlayIDs.productIdProblem(product.productId, subscription: product.kind == .subscription) == nil)
                for id in product.basePlans.map(\.basePlanId) + product.offers.map(\.offerId) {
                    #expect(PlayIDs.labelProblem(id, what: "id") == nil, "\(catalog.name): \(id)")
                }
            }
        }
    }

    @Test("a catalog's play entry: false leaves the product off Play; given ids are used as given")
    func listing() throws {
        let catalog = try parse(
            comic + #","play":false},"#
                + #"{"id":"com.x.sub","kind":"autoRenewableSubscription","title":"S","price":"4.99","period":"P1M","group":"g","#
                + #""introOffer":{"mode":"freeTrial","period":"P1W"},"#
                + #""play":{"productId":"premium","basePlanId":"month-plan","offers":{"intro":"trial-week"}}}"#)
        let play = try catalog.playProducts()
        #expect(play.map(\.productId) == ["premium"])
        #expect(
            play[0].basePlans.map(\.basePlanId) == ["month-plan"] && play[0].offers.map(\.offerId) == ["trial-week"])
    }

    @Test(
        "bad Play input is refused by name when the catalog is read: ids not of Play's shape, one product id for two products, play: true, an unknown key"
    )
    func refusals() throws {
        let sub =
            #"{"id":"com.x.sub","kind":"autoRenewableSubscription","title":"S","price":"4.99","period":"P1M","group":"g""#
        let cases: [(String, String)] = [
            (
                comic + #","play":{"productId":"Night-Shift"}}"#,
                #"products[0] "com.x.comic.owl": "Night-Shift" is not a Play product id"#
            ),
            (sub + #","play":{"basePlanId":"Monthly"}}"#, #""Monthly" is not a Play base plan id"#),
            (sub + #","play":{"productId":"\#(String(repeating: "a", count: 41))"}}"#, "at most 40 characters"),
            (
                comic + #","play":{"productId":"owl"}},"#
                    + comic.replacingOccurrences(of: "com.x.comic.owl", with: "com.x.b")
                    + #","play":{"productId":"owl"}}"#,
                #"products[1] "com.x.b": its Play product id "owl" is also "com.x.comic.owl"'s"#
            ),
            (comic + #","play":true}"#, #""play" is false (not sold on Google Play), or an object"#),
            (comic + #","play":{"sku":"owl"}}"#, #"play: unknown key "sku""#),
        ]
        for (json, words) in cases {
            do {
                _ = try parse(json)
                Issue.record("accepted \(json)")
            } catch {
                #expect("\(error)".contains(words), "\(error)")
            }
        }
    }

    @Test(
        "G1 regional prices: each storefront the catalog names where a product is sold, as Play's billing region and currency; none where it is not sold"
    )
    func regionalPrices() throws {
        let world = try CatalogLoader.load(contentsOf: repositoryRoot.appendingPathComponent("assets/world.json"))
        let play = try world.catalog.playProducts()
        let night = try #require(play.first { $0.product == "com.storefront.comic.nightshift" })
        #expect(
            night.regionalPrices.map { "\($0.regionCode) \($0.price) \($0.currencyCode)" }
                == ["US 0.99 USD", "FR 0.99 EUR", "GB 0.79 GBP", "JP 150 JPY"])
        let rain = try #require(play.first { $0.product == "com.storefront.comic.raincheck" })
        #expect(rain.regionalPrices.map(\.regionCode) == ["GB"], "sold in Britain only")
    }
}

// F2: a JSON catalog's prices and availability per storefront, the catalog as another storefront
// sees it (a value), and a purchase of what is not sold in the catalog's storefront refused as
// StoreKit refuses it. A manual clock; no database where the rule is a value.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@Suite("Prices and availability per storefront")
struct StorefrontPricingTests {
    static let json = #"""
        {"storefront":"IRL","products":[
          {"id":"pack","kind":"consumable","title":"Pack","price":"0.99","prices":{"GBR":"0.89","jpn":"160"}},
          {"id":"euro","kind":"consumable","title":"Euro only","price":"1.99"},
          {"id":"uk","kind":"consumable","title":"UK only","price":"2.99","prices":{"GBR":"2.49"},"availableIn":["GBR"]},
          {"id":"y","kind":"autoRenewableSubscription","title":"Year","price":"49.99","period":"P1Y","group":"g",
           "monthlyCommitmentPrice":"4.99","prices":{"FRA":"54.99","GBR":"44.99"}}
        ]}
        """#

    static func catalog() throws -> Catalog {
        try CatalogLoader.parse(Data(json.utf8), fileName: "c.json").0
    }

    @Test(
        "F2 each product at its own price where the catalog gives one, its catalog price where the currency is the same, and nowhere else"
    )
    func seenElsewhere() throws {
        let home = try Self.catalog()
        func row(_ catalog: Catalog, _ id: String) -> (Decimal, Bool)? {
            catalog.product(id).map { ($0.price, $0.soldHere) }
        }
        #expect(home.storefront == "IRL" && home.currencyCode == "EUR")
        #expect(row(home, "pack")! == (Decimal(string: "0.99")!, true))
        #expect(row(home, "uk")!.1 == false, "its availableIn leaves out the catalog's own storefront")

        let britain = try #require(home.seen(in: "gbr"))
        #expect(
            (britain.storefront, britain.storefrontID, britain.currencyCode, britain.localeIdentifier)
                == ("GBR", "143444", "GBP", "en_GB"))
        #expect(row(britain, "pack")! == (Decimal(string: "0.89")!, true))
        #expect(row(britain, "euro")!.1 == false, "no price in pounds: not sold, never a euro price shown as pounds")
        #expect(row(britain, "uk")! == (Decimal(string: "2.49")!, true))
        #expect(row(britain, "y")! == (Decimal(string: "44.99")!, true))
        #expect(
            britain.product("y")?.autoRenew?.monthlyCommitmentPrice == nil,
            "a monthly price in euros is not offered in pounds")

        let france = try #require(home.seen(in: "FRA"))
        #expect(france.currencyCode == "EUR" && france.localeIdentifier == "fr_FR")
        #expect(row(france, "euro")! == (Decimal(string: "1.99")!, true), "the same currency carries the catalog price")
        #expect(row(france, "y")! == (Decimal(string: "54.99")!, true))
        #expect(france.product("y")?.autoRenew?.monthlyCommitmentPrice == Decimal(string: "4.99"))
        #expect(row(france, "uk")!.1 == false)

        let japan = try #require(home.seen(in: "JPN"))
        #expect(row(japan, "pack")! == (Decimal(string: "160")!, true), "a lowercase code is read as its storefront")
        #expect(home.seen(in: "XYZ") == nil)
        // Seen from another storefront, the catalog is still the catalog.
        let back = try #require(japan.seen(in: "IRL"))
        #expect(back == home.seen(in: "IRL"))
        #expect((back.storefront, back.currencyCode, back.localeIdentifier) == ("IRL", "EUR", "en_IE"))
        #expect(row(back, "pack")! == (Decimal(string: "0.99")!, true))
        #expect(row(back, "euro")! == (Decimal(string: "1.99")!, true))
        #expect(try #require(britain.seen(in: "FRA")) == france)
        #expect(back.product("y")?.autoRenew?.monthlyCommitmentPrice == Decimal(string: "4.99"))
    }

    @Test(
        "F2 C5 a price or availability that names no storefront, or a price that is not a decimal, is refused by name",
        arguments: [
            (#""prices":{"XYZ":"1"}"#, "c.json: products[0] \"p\": prices: \"XYZ\" is not an App Store storefront"),
            (#""prices":{"FRA":1}"#, "c.json: products[0] \"p\" prices: FRA must be a string"),
            (#""prices":{"FRA":"-1"}"#, "c.json: products[0] \"p\": prices: FRA's price is not a decimal number"),
            (#""prices":["FRA"]"#, "c.json: products[0] \"p\": \"prices\" must be an object"),
            (#""availableIn":["USA","Atlantis"]"#, "c.json: products[0] \"p\": availableIn: \"Atlantis\" is not"),
            (#""availableIn":"USA""#, "c.json: products[0] \"p\": \"availableIn\" must be a list of storefronts"),
        ])
    func refused(fields: String, message: String) {
        let json = #"{"products":[{"id":"p","kind":"consumable","title":"P","price":"1",\#(fields)}]}"#
        do {
            _ = try CatalogLoader.parse(Data(json.utf8), fileName: "c.json")
            Issue.record("accepted \(fields)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test(
        "F2 a product not sold in the catalog's storefront offers nothing to buy, and buying it is refused: nothing is written"
    )
    func notSoldHere() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann", catalog: try Self.catalog())
        let rows = try store.entitlements.productRows()
        #expect(rows.first { $0.product.id == "uk" }?.action == .notSold)
        #expect(rows.first { $0.product.id == "pack" }?.action == .buy)
        #expect(throws: StoreError.notSoldInStorefront(productID: "uk", storefront: "IRL")) {
            try store.queue.buy("uk")
        }
        #expect(try store.queue.history().isEmpty, "no transaction was made")
        let bought = try store.queue.buy("pack")
        #expect(bought.state == .purchased)
        #expect(
            StoreError.notSoldInStorefront(productID: "uk", storefront: "IRL").description
                .contains("StoreKit: storeProductNotAvailable"))
        #expect(Wording.action(.notSold, price: "€2.99") == "Not sold in this storefront")
    }
}

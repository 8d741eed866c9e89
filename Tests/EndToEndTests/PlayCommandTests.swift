// `storefront play products`: the catalog on Google Play, through the binary, in Play's words; a
// catalog whose Play ids are not Play's is refused by name, exit 2.
import Foundation
import TestSupport
import Testing

@Suite("storefront play")
struct PlayCommandTests {
    @Test(
        "the shipped catalog on Play: a one-time product per comic, the pack consumed, each pass a subscription with a prepaid base plan; the selfies monthly plan's offers in Play's words"
    )
    func products() async throws {
        let session = try await Session()
        let listed = try await session.object(["play", "products"])["products"] as? [[String: Any]] ?? []
        #expect(listed.count == 11)
        #expect(listed.first?["productId"] as? String == "com.storefront.comic.nightshift")
        #expect(listed.first?["type"] as? String == "oneTime")
        let pass = try #require(listed.first { $0["appStoreProduct"] as? String == "com.storefront.sub.6months" })
        let plans = pass["basePlans"] as? [[String: Any]] ?? []
        #expect(
            plans.map { [$0["basePlanId"] as? String, $0["type"] as? String, $0["period"] as? String] } == [
                ["prepaid-6-months", "prepaid", "P6M"]
            ])
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        let selfies = try await session.object(["play", "products"])["products"] as? [[String: Any]] ?? []
        let monthly = try #require(
            selfies.first { $0["productId"] as? String == "storefront.selfies.sub.allaccess.monthly" })
        let offers = monthly["offers"] as? [[String: Any]] ?? []
        #expect(
            offers.first?["offerId"] as? String == "intro" && offers.first?["eligibility"] as? String == "newCustomers")
        #expect(
            offers.contains {
                $0["appStoreOffer"] as? String == "thankyou.freemonth" && $0["tags"] as? [String] == ["promotional"]
            })
    }

    @Test("a catalog whose Play product id is not Play's shape is refused by name, exit 2")
    func badCatalog() async throws {
        let session = try await Session()
        let file = session.stateDirectory.appendingPathComponent("bad.json")
        try Data(
            #"{"products":[{"id":"com.x.owl","kind":"nonConsumable","title":"Owl","price":"0.99","image":"o.png","play":{"productId":"Owl!"}}]}"#
                .utf8
        ).write(to: file)
        let refused = try await session.run(["play", "products", "--catalog", file.path])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains(#"products[0] "com.x.owl": "Owl!" is not a Play product id"#), "\(refused)")
    }
}

// A catalog product's `play` entry (Google Play beside the App Store): `false` where the product is
// not sold on Play, or the Play ids the catalog gives it instead of the derived ones:
// {"productId": "night_shift", "basePlanId": "monthly", "offers": {"intro": "trial", "comeback": "back"}}.
import Foundation
import StoreModel

extension CatalogDocument {
    static func play(_ fields: CatalogFields) throws(CatalogError) -> PlayListing {
        guard fields.hasValue("play") else { return PlayListing() }
        if let sold = fields.boolean("play") {
            guard !sold else {
                throw fields.error("\"play\" is false (not sold on Google Play), or an object of its Play ids")
            }
            return PlayListing(sold: false)
        }
        guard
            let entry = try fields.object(
                "play", message: "\"play\" is false (not sold on Google Play), or an object of its Play ids")
        else { return PlayListing() }
        for key in entry.keys where !["productId", "basePlanId", "offers", "$comment"].contains(key) {
            throw fields.error("play: unknown key \"\(key)\" (productId, basePlanId, offers)")
        }
        var listing = PlayListing(productId: try entry.string("productId"), basePlanId: try entry.string("basePlanId"))
        if let offers = try entry.object(
            "offers", message: "play: \"offers\" is an object of App Store offer ids and Play offer ids")
        {
            for key in offers.keys {
                guard let id = try offers.string(key) else {
                    throw fields.error("play: offers: \(key)'s Play offer id is a string")
                }
                listing.offerIds[key] = id
            }
        }
        return listing
    }

    /// The Play identity of every product a catalog with any `play` entry sells there, checked as
    /// it is read: an id that is not Play's shape, or is another product's, is refused by name.
    static func checkPlay(_ catalog: Catalog, file: String) throws(CatalogError) {
        guard catalog.products.contains(where: { $0.play != PlayListing() }) else { return }
        do {
            _ = try catalog.playProducts()
        } catch {
            let index = catalog.products.firstIndex { $0.id == error.product } ?? 0
            throw CatalogError(file: file, entry: "products[\(index)] \"\(error.product)\"", message: error.message)
        }
    }
}

// `catalog check` decodes every picture a catalog names (T4, C8): a truncated, corrupt or
// oversized file is named with its reason, as the screen would show it. A missing file is already
// the loader's warning.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

enum PictureCheck {
    /// `file` is how the catalog's other warnings name it.
    static func warnings(_ loaded: LoadedCatalog, file: String) -> [CatalogWarning] {
        var named: [(entry: String, path: String)] = []
        for (index, product) in loaded.catalog.products.enumerated() {
            for path in [product.image, product.promotionalImage].compactMap({ $0 }) {
                named.append(("products[\(index)] \"\(product.id)\"", path))
            }
        }
        for (index, comic) in loaded.catalog.randomComics.enumerated() {
            if let path = comic.image { named.append(("randomComics[\(index)] \"\(comic.id)\"", path)) }
        }
        var warnings: [CatalogWarning] = []
        for (entry, path) in named where Placeholder.productID(of: path) == nil {
            let url = loaded.imageRoot.appendingPathComponent(path)
            // A missing file is the loader's warning already.
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            do {
                _ = try Picture(contentsOf: url, name: path, columns: 80, rows: 24)
            } catch {
                warnings.append(CatalogWarning(file: file, entry: entry, message: error.description))
            }
        }
        return warnings
    }
}

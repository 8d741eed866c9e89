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
        var warnings: [CatalogWarning] = []
        for (entry, path) in loaded.catalog.namedPictures where Placeholder.productID(of: path) == nil {
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

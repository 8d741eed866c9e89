// A `.storekit` package's `Assets/` folder (C8): Xcode keeps a product's promotional image there,
// named by the product's `promotionalImageID`. Only the names are read here; the pictures are
// decoded by the screen, when shown, and by `catalog check`.
import Foundation
import StoreModel

public struct PromotionalAssets: Sendable, Equatable {
    /// The folder as a path from the catalog's image root: "Shop.storekit/Assets".
    public let folder: String
    /// The names of the files in it, sorted.
    public let files: [String]

    public static let folderName = "Assets"
    static let pictureExtensions: Set<String> = ["png", "jpg", "jpeg"]

    /// The package's assets, nil when it has no `Assets/` folder.
    static func read(package url: URL) -> PromotionalAssets? {
        let folder = url.appendingPathComponent(folderName)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        let files = names.filter { !$0.hasPrefix(".") }.sorted()
        return PromotionalAssets(folder: url.lastPathComponent + "/" + folderName, files: files)
    }

    /// The file an image ID names: `<ID>.png`, `.jpg` or `.jpeg`, the extension in any case (the
    /// content decides the format), or a file named exactly the ID.
    public func file(for id: String) -> String? {
        if files.contains(id) { return id }
        return files.first { name in
            let url = URL(fileURLWithPath: name)
            return url.deletingPathExtension().lastPathComponent == id
                && Self.pictureExtensions.contains(url.pathExtension.lowercased())
        }
    }

    /// The path from the image root for `id`: its file, else where Xcode would have put a PNG.
    func path(for id: String) -> (path: String, found: Bool) {
        if let file = file(for: id) { return (folder + "/" + file, true) }
        return (folder + "/" + id + ".png", false)
    }

    /// The files no product names, as paths from the image root: listed, never loaded.
    public func unused(by catalog: Catalog) -> [String] {
        let named = Set(catalog.products.compactMap(\.promotionalImage))
        return files.map { folder + "/" + $0 }.filter { !named.contains($0) }
    }
}

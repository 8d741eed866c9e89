// Reads a catalog data file (C1) and checks it (C5): the file, its images, and the document
// (CatalogDocument, a Decodable whose every complaint names the exact entry and field, as
// "products[3] "comic.x": price "-1" is negative", from the coding path).
import Foundation
import StoreModel

#if canImport(Glibc)
    import Glibc
#endif

public enum CatalogLoader {
    /// Reads and checks a catalog file. Images are looked up under `imageRoot` (default: the
    /// catalog's folder); a missing image is a warning unless `imagesRequired` (C5).
    public static func load(
        contentsOf url: URL, imageRoot: URL? = nil, imagesRequired: Bool = false,
        storeKit: StoreKitOptions = StoreKitOptions()
    ) throws(CatalogError) -> LoadedCatalog {
        if StoreKitCatalog.isStoreKit(url) { return try StoreKitCatalog.load(contentsOf: url, options: storeKit) }
        try requireFile(url)
        let name = url.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CatalogError(file: url.path, entry: nil, message: "cannot be read (\(Self.reason(error)))")
        }
        let root = imageRoot ?? url.deletingLastPathComponent()
        let (catalog, warnings) = try parse(data, fileName: name)
        var allWarnings = warnings
        for (entry, image) in catalog.namedPictures {
            try checkImage(
                image, root: root, file: name, entry: entry, required: imagesRequired, warnings: &allWarnings)
        }
        return LoadedCatalog(catalog: catalog, warnings: allWarnings, imageRoot: root)
    }

    private static func checkImage(
        _ image: String, root: URL, file: String, entry: String, required: Bool,
        warnings: inout [CatalogWarning]
    ) throws(CatalogError) {
        let path = root.appendingPathComponent(image).path
        if FileManager.default.isReadableFile(atPath: path) { return }
        let message = "image \"\(image)\" is missing (looked in \(root.path))"
        if required { throw CatalogError(file: file, entry: entry, message: message) }
        warnings.append(CatalogWarning(file: file, entry: entry, message: message))
    }

    /// A folder or a device is not a catalog: say so rather than pass on what reading it says.
    static func requireFile(_ url: URL) throws(CatalogError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return }
        if isFolder.boolValue {
            throw CatalogError(file: url.path, entry: nil, message: "is a folder, not a catalog file")
        }
        // stat(2) rather than FileManager's attributes, which look up the owner's name (/etc/passwd)
        // on the way to the screen's first frame.
        var info = stat()
        if stat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw CatalogError(file: url.path, entry: nil, message: "is not a regular file")
        }
    }

    static func reason(_ error: Error) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile: return "no such file"
            case .fileReadNoPermission: return "permission denied"
            default: break
            }
        }
        return error.localizedDescription
    }

    /// Parses catalog JSON into its Decodable document (CatalogDocument). Pure: touches no files.
    public static func parse(_ data: Data, fileName: String) throws(CatalogError) -> (Catalog, [CatalogWarning]) {
        let decoder = JSONDecoder()
        decoder.userInfo[.catalogFile] = fileName
        do {
            let document = try decoder.decode(CatalogDocument.self, from: data)
            return (document.catalog, document.warnings)
        } catch let error as CatalogError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // JSONDecoder says only that the data is not JSON; JSONSerialization says where.
            var detail: String?
            do { _ = try JSONSerialization.jsonObject(with: data) } catch {
                detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            }
            throw CatalogError(
                file: fileName, entry: nil, message: "is not valid JSON" + (detail.map { " (\($0))" } ?? ""))
        } catch {
            // Every other refusal is the document's own (CatalogFields words them).
            throw CatalogError(file: fileName, entry: nil, message: "cannot be read (\(error))")
        }
    }
}

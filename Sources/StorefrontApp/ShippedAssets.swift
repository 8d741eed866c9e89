// The shipped catalogs, pictures and scenarios, carried inside the program (EmbeddedAssets.swift,
// made by scripts/embed-assets) so that a binary copied anywhere opens its default store. They are
// written out once per version to a cache folder, because the catalog, picture and scenario
// readers all read files; a folder on disk (`--assets`, `STOREFRONT_ASSETS`, one beside the
// program) still comes first.
import Foundation

public enum ShippedAssets {
    /// Paths under assets/, in order.
    public static var paths: [String] { EmbeddedAssets.files.map(\.path) }

    /// The bytes of one shipped file, or nil.
    public static func data(_ path: String) -> Data? {
        EmbeddedAssets.files.first { $0.path == path }.flatMap { Data(base64Encoded: $0.base64) }
    }

    /// A short name for this set of files (FNV-1a over paths and contents), so that two versions of
    /// the program never share a folder.
    public static var version: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for file in EmbeddedAssets.files {
            for byte in file.path.utf8 + [0] + file.base64.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }

    /// Where the files are written: `$XDG_CACHE_HOME/storefront`, else `~/.cache/storefront`,
    /// else the temporary folder.
    public static func cacheRoot(environment: [String: String]) -> URL {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("storefront")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent(".cache/storefront")
        }
        return URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storefront-\(getuid())")
    }

    /// The folder holding every shipped file, written now if it is not there yet. Written to a
    /// private folder first and renamed into place, so that two programs starting at once never
    /// see half of it.
    public static func materialize(in root: URL) throws -> URL {
        let folder = root.appendingPathComponent("assets-\(version)")
        let manager = FileManager.default
        if manager.fileExists(atPath: folder.appendingPathComponent("catalog.json").path) { return folder }
        try manager.createDirectory(at: root, withIntermediateDirectories: true)
        let staging = root.appendingPathComponent(".assets-\(version)-\(getpid())-\(UUID().uuidString.prefix(8))")
        defer { try? manager.removeItem(at: staging) }
        for file in EmbeddedAssets.files {
            guard let data = Data(base64Encoded: file.base64) else { continue }
            let url = staging.appendingPathComponent(file.path)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        do {
            try manager.moveItem(at: staging, to: folder)
        } catch  where manager.fileExists(atPath: folder.appendingPathComponent("catalog.json").path) {
            // Another program put it there first: the same files.
        }
        return folder
    }
}

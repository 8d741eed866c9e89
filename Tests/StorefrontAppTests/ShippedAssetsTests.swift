// The shipped assets travel inside the program, and the copy is never stale.
import Foundation
import Testing

@testable import StorefrontApp

@Suite("Shipped assets carried in the program")
struct ShippedAssetsTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("assets")

    @Test(
        "C1 EmbeddedAssets.swift holds exactly the files under assets/, byte for byte (run scripts/embed-assets when this fails)"
    )
    func notStale() throws {
        let found = FileManager.default.enumerator(atPath: Self.assets.path)?.compactMap { $0 as? String } ?? []
        var onDisk: [String: Data] = [:]
        for path in found where !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            var isFolder: ObjCBool = false
            let url = Self.assets.appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                onDisk[path] = try Data(contentsOf: url)
            }
        }
        #expect(onDisk.count > 20, "the shipped catalogs, pictures and scenarios")
        #expect(Set(ShippedAssets.paths) == Set(onDisk.keys), "run scripts/embed-assets")
        for (path, data) in onDisk {
            #expect(ShippedAssets.data(path) == data, "\(path) changed: run scripts/embed-assets")
        }
    }

    @Test("written once per version into the cache folder, whole; a second call reuses it")
    func materialize() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-assets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = try ShippedAssets.materialize(in: root)
        #expect(folder.lastPathComponent == "assets-\(ShippedAssets.version)")
        for path in ShippedAssets.paths {
            #expect(
                FileManager.default.contents(atPath: folder.appendingPathComponent(path).path)
                    == ShippedAssets.data(path), "\(path)")
        }
        try Data("changed".utf8).write(to: folder.appendingPathComponent("marker"))
        #expect(try ShippedAssets.materialize(in: root).path == folder.path)
        #expect(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("marker").path), "not written again")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: root.path)
        #expect(leftovers == [folder.lastPathComponent], "no staging folder left behind: \(leftovers)")
    }

    @Test("the cache folder: XDG_CACHE_HOME, then ~/.cache, then the temporary folder")
    func cacheRoot() {
        #expect(ShippedAssets.cacheRoot(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"]).path == "/c/storefront")
        #expect(ShippedAssets.cacheRoot(environment: ["HOME": "/h"]).path == "/h/.cache/storefront")
        #expect(
            ShippedAssets.cacheRoot(environment: [:]).path.hasPrefix(
                NSTemporaryDirectory().hasSuffix("/")
                    ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()))
    }
}

// F1 from real files: every `.storekit` file the project holds opens, and sells in the storefront
// its `_storefront` names (USA where it names none), with Apple's numeric id for it.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("StoreKit files' storefronts")
struct StoreKitStorefrontTests {
    static let fixtures = TestTools.repositoryRoot.appendingPathComponent("Tests/Fixtures/storekit")

    /// Apple's storefront ids, as App Store Connect lists them, for the storefronts these files name.
    static let appleIDs = [
        "USA": "143441", "GBR": "143444", "JPN": "143462", "SGP": "143464", "CHN": "143465", "SAU": "143479",
    ]

    /// Every JSON `.storekit` file under Tests/Fixtures/storekit (property-list ones say no
    /// `_storefront` a text search can find, and are read by their own tests).
    static func files() throws -> [URL] {
        let found = FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: nil)
        return (found?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "storekit" }
            .filter { (try? String(contentsOf: $0, encoding: .utf8))?.hasPrefix("{") == true }
            .sorted { $0.path < $1.path }
    }

    @Test("F1 each real .storekit file opens in the storefront its _storefront names, SGP, CHN, JPN and SAU among them")
    func storefronts() throws {
        var seen: Set<String> = []
        for file in try Self.files() {
            let text = try String(contentsOf: file, encoding: .utf8)
            let named = text.firstMatch(of: /"_storefront"\s*:\s*"([A-Za-z]{3})"/).map { String($0.1).uppercased() }
            let catalog = try StoreKitCatalog.load(contentsOf: file).catalog
            #expect(catalog.storefront == (named ?? "USA"), "\(file.lastPathComponent)")
            if let id = Self.appleIDs[catalog.storefront] {
                #expect(catalog.storefrontID == id, "\(file.lastPathComponent)")
            }
            seen.insert(catalog.storefront)
        }
        #expect(seen.isSuperset(of: ["SGP", "CHN", "JPN", "SAU", "GBR", "USA"]), "\(seen.sorted())")
    }
}

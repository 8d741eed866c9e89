// Xcode StoreKit files on the screen: a Chinese storefront's names and prices laid out by column width, and the
// generated picture of a product that has no image.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("StoreKit catalogs on the screen")
struct StoreKitViewTests {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/storekit")

    @Test("Chinese names take two columns a character and the prices still end at the right edge")
    func chineseWidths() throws {
        let catalog = try CatalogLoader.load(contentsOf: fixtures.appendingPathComponent("chinese.storekit")).catalog
        let harness = try Harness(size: Size(columns: 50, rows: 12), catalog: catalog)
        let screen = harness.screen()
        let row = try #require(screen.lines.first { $0.contains("猫法官") })
        #expect(TextWidth.of(row) == 50)
        #expect(row.hasSuffix("¥6.00 Buy "))
        let pack = try #require(screen.lines.first { $0.contains("随机漫画") })
        #expect(TextWidth.of(pack) == 50 && pack.hasSuffix("¥12.00 Buy "))
    }

    @Test("a bought product without an image shows its generated picture in the detail view")
    func placeholderInDetail() throws {
        let catalog = try CatalogLoader.load(contentsOf: fixtures.appendingPathComponent("samples/skdemo.storekit"))
            .catalog
        let harness = try Harness(size: Size(columns: 60, rows: 20), catalog: catalog)
        try harness.store.queue.buy("nonconsumable.car")
        try harness.refresh()
        harness.press(.enter)
        let cache = PictureCache(root: fixtures, catalog: catalog)
        let screen = harness.screen(depth: .palette256, pictures: { cache.lookup($0) })
        let blocks = screen.lines.filter { $0.contains("▀") }
        #expect(blocks.count >= 8, "\(screen.lines.joined(separator: "\n"))")
        guard case .picture = cache.lookup("placeholder:nonconsumable.car") else {
            Issue.record("no picture for the placeholder path")
            return
        }
    }
}

// R1–R4 and R7: what a device may see, and the random viewer.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Entitlements")
struct EntitlementTests {
    func action(_ store: Store, _ id: String) throws -> ProductAction? {
        try store.entitlements.productRows().first { $0.product.id == id }?.action
    }

    @Test("R1 a bought comic is owned for ever and shows a checkmark")
    func ownedForever() throws {
        let state = TemporaryState()
        let store = try state.store()
        #expect(try action(store, "comic.a") == .buy)
        try store.queue.buy("comic.a")
        state.clock.advance(.init(years: 10), calendar: utcCalendar)
        #expect(try action(store, "comic.a") == .owned)
        #expect(try store.entitlements.status().unlocked == ["comic.a"])
    }

    @Test("R2 R3 while subscribed every comic is unlocked and subscriptions say Renew")
    func subscribed() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        #expect(try action(store, "sub3") == .subscribe)
        try store.queue.buy("sub3")
        #expect(try store.entitlements.productRows().map(\.action) == [.owned, .owned, .owned, .buy, .renew, .renew])
        #expect(try store.entitlements.status().unlocked == ["comic.a", "comic.b", "comic.c"])
        state.clock.set(utc(2026, 4, 16, 12))
        #expect(try store.entitlements.productRows().map(\.action) == [.buy, .buy, .buy, .buy, .subscribe, .subscribe])
    }

    @Test("R3 without an account subscription rows ask to sign in")
    func guestRows() throws {
        let state = TemporaryState()
        #expect(
            try state.store().entitlements.productRows().map(\.action) == [
                .buy, .buy, .buy, .buy, .signInRequired, .signInRequired,
            ])
    }

    @Test("R4 each pack adds its quantity; packs stay on the device")
    func consumables() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        try store.queue.buy("pack")
        try store.queue.buy("pack")
        #expect(try store.entitlements.status().randomViewsRemaining == 10)
        #expect(try action(store, "pack") == .buy)
        let tablet = try state.signedIn("ann", device: "tablet")
        try tablet.queue.restore()
        #expect(try tablet.entitlements.status().randomViewsRemaining == 0)
    }

    @Test("R5 through the store: renewing early keeps the time left, with the bonus day")
    func renewEarly() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        try store.queue.buy("sub3")
        state.clock.advance(.months(1), calendar: utcCalendar)
        try store.queue.buy("sub6")
        // 15 Jan + 3mo + 1d = 16 Apr; + 6mo + 1d = 17 Oct.
        #expect(try store.entitlements.status().expiry == utc(2026, 10, 17, 12))
        #expect(try store.entitlements.status().header == "Subscribed! Expires: 17/10/2026 (244 Days)")
    }

    @Test("R7 never the same comic twice in a row, even when the generator insists")
    func neverTwice() throws {
        let state = TemporaryState()
        let store = try state.store(randomIndex: { _ in 0 })
        try store.queue.buy("pack")
        try store.queue.buy("pack")
        var shown: [String] = []
        for _ in 0..<10 { shown.append(try store.randomComics.show().comic.id) }
        for (previous, next) in zip(shown, shown.dropFirst()) { #expect(previous != next) }
        #expect(Set(shown) == ["comic.a", "comic.b"])
    }

    @Test("R7 the last comic shown survives a restart")
    func lastSurvivesRestart() throws {
        let state = TemporaryState()
        let store = try state.store(randomIndex: { _ in 0 })
        try store.queue.buy("pack")
        let first = try store.randomComics.show().comic.id
        let restarted = try state.store(randomIndex: { _ in 0 })
        #expect(try restarted.entitlements.status().lastRandomComic == first)
        #expect(try restarted.randomComics.show().comic.id != first)
    }

    @Test("R7 each view uses one; at zero no comic and a way to get more")
    func viewsRunOut() throws {
        let state = TemporaryState()
        let store = try state.store()
        #expect(error { try store.randomComics.show() } == .noRandomViews(packID: "pack"))
        try store.queue.buy("pack")
        for left in (0..<5).reversed() { #expect(try store.randomComics.show().randomViewsRemaining == left) }
        #expect(error { try store.randomComics.show() } == .noRandomViews(packID: "pack"))
        #expect(try store.entitlements.status().randomViewsRemaining == 0)
    }

    @Test("R7 with a subscription views are unlimited and not used")
    func unlimited() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        try store.queue.buy("pack")
        try store.queue.buy("sub3")
        for _ in 0..<20 { _ = try store.randomComics.show() }
        let result = try store.randomComics.show()
        #expect(result.randomViewsRemaining == 5)
        #expect(result.header.hasPrefix("Subscribed! Expires: 16/04/2026"))
    }

    @Test("R7 one comic only: it may show again")
    func singleComic() throws {
        let state = TemporaryState()
        let catalog = Catalog(products: [testCatalog.products[0], testCatalog.products[3]])
        let store = try state.store(catalog: catalog)
        try store.queue.buy("pack")
        #expect(try store.randomComics.show().comic.id == "comic.a")
        #expect(try store.randomComics.show().comic.id == "comic.a")
    }
}

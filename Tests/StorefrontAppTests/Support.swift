// A real store on a temporary folder, seen through the screen's eyes.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
@_exported import TestSupport

@testable import StorefrontApp

let appCatalog = Catalog(
    name: "Comics", bonusDays: 1,
    products: [
        Product(
            id: "comic.owl", kind: .nonConsumable, title: "Night Shift", description: "An owl bakes bread.",
            price: Decimal(string: "0.99")!, image: "owl.png"),
        Product(
            id: "comic.cat", kind: .nonConsumable, title: "Cat Judge", description: "Order in the court.",
            price: Decimal(string: "1.49")!, image: "cat.png"),
        Product(
            id: "pack", kind: .consumable, title: "Random Comics ×5", description: "Five random views.",
            price: Decimal(string: "0.99")!, quantity: 5),
        Product(
            id: "sub3", kind: .nonRenewingSubscription, title: "3 Months of Comics",
            description: "Everything, 3 months.", price: Decimal(string: "2.99")!, months: 3),
    ]
)

/// A store, its screen-side wrapper, and an app state loaded from it.
final class Harness {
    let temporary = TemporaryState()
    let store: Store
    let live: LiveStore
    var state: AppState
    /// Effects the reducer asked for, in order.
    var effects: [Effect] = []

    init(
        size: Size = Size(columns: 60, rows: 14), catalog: Catalog = appCatalog, user: String? = nil,
        route: Route = .products,
        seed: UInt64? = nil
    ) throws {
        if let seed { temporary.seedTransactionIDs(seed) }
        store = try temporary.store(catalog: catalog, randomIndex: { _ in 0 })
        if let user { try store.accounts.signUp(user, password: "pw") }
        live = LiveStore(store: store)
        state = AppState(route: route, size: size)
        state.snapshot = try live.snapshot()
    }

    /// What `.loadPicture` effects decode to.
    var pictures: PictureLookup = { _ in .none }

    /// Sends an action, performs its effects against the store, and feeds the answers back, as
    /// `App.dispatch` does.
    func send(_ action: Action) {
        for effect in reduce(&state, action) {
            effects.append(effect)
            if case .loadPicture(let path) = effect {
                send(.pictureLoaded(path, pictures(path)))
                continue
            }
            for next in live.perform(effect) { send(next) }
        }
    }

    /// One tick of the runtime at the store's time.
    func tick() { send(.tick(temporary.clock.now())) }

    func press(_ keys: Key...) { for key in keys { send(.key(key)) } }

    func type(_ text: String) { for character in text { send(.key(.character(character))) } }

    func refresh() throws { state.snapshot = try live.snapshot() }

    /// The frame for the state; `pictures`, when given, stands for every picture the state holds.
    func screen(depth: ColorDepth = .none, pictures: PictureLookup? = nil) -> Screen {
        var state = state
        if let pictures {
            for path in Array(state.pictures.keys) + [currentImage].compactMap({ $0 }) {
                state.pictures[path] = pictures(path)
            }
        }
        return render(state, depth: depth)
    }

    /// The image the current screen shows, if any.
    var currentImage: String? {
        switch state.route {
        case .detail(let id): state.snapshot?.product(id)?.image
        case .random: state.randomComic?.image
        default: nil
        }
    }

    func lines(pictures: PictureLookup? = nil) -> [String] {
        screen(pictures: pictures).lines.map { line in
            var trimmed = line
            while trimmed.hasSuffix(" ") { trimmed.removeLast() }
            return trimmed
        }
    }
}

// The loop that runs the app: read an event, reduce, perform effects against the store, render
// the new state, write the difference. The input timeout is the clock's tick: on each tick the
// store settles what came due (Q5) and the screen picks up other processes' changes.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// The store as the screen uses it.
public protocol StoreServing: AnyObject {
    func snapshot() throws -> StoreSnapshot
    /// Runs one effect; what it produced comes back as actions (including `.failed`). `.settle`
    /// settles what is due and returns what changed since the last call (new events, a new snapshot).
    func perform(_ effect: Effect) -> [Action]
}

/// Decoded pictures by catalog path, decoded once (T4): a bad file is remembered as its error.
public final class PictureCache {
    private let root: URL
    private var cache: [String: PictureResult] = [:]
    /// Titles by product id, for the initials of generated pictures.
    private let titles: [String: String]

    public init(root: URL, catalog: Catalog? = nil) {
        self.root = root
        titles = Dictionary((catalog?.products ?? []).map { ($0.id, $0.title) }) { first, _ in first }
    }

    /// The picture at `path`, decoded for a terminal of `size` (a larger one decodes it again).
    public func lookup(_ path: String?, size: Size = Size(columns: 200, rows: 60)) -> PictureResult {
        guard let path else { return .none }
        if let known = cache[path] { return known }
        let result: PictureResult
        if let id = Placeholder.productID(of: path) {
            result = .picture(Picture(PlaceholderPicture.image(title: titles[id] ?? id, id: id)))
            cache[path] = result
            return result
        }
        do {
            result = .picture(
                try Picture(
                    contentsOf: root.appendingPathComponent(path), name: path, columns: size.columns, rows: size.rows))
        } catch {
            result = .failure(file: path, reason: error.reason)
        }
        cache[path] = result
        return result
    }
}

public final class App {
    public private(set) var state: AppState
    private let store: StoreServing
    private let terminal: FrameRendering & EventListening
    private let pictures: PictureCache
    /// The time each tick carries.
    private let now: () -> Date
    /// Called with every effect before it is performed (scenario recording).
    public var onEffect: ((Effect) -> Void)?
    public var tickMilliseconds = 250
    /// Stops after drawing the first frame (start-up benchmarks).
    public var exitsAfterFirstFrame = false

    /// `asksGuestsToSignIn`: once the store is open, a guest goes to the sign-in form first.
    public init(
        store: StoreServing, terminal: FrameRendering & EventListening, pictures: PictureCache, route: Route,
        asksGuestsToSignIn: Bool = false, now: @escaping () -> Date = Date.init
    ) {
        self.store = store
        self.terminal = terminal
        self.pictures = pictures
        self.now = now
        state = AppState(route: route, size: terminal.size)
        state.asksGuestsToSignIn = asksGuestsToSignIn
    }

    /// Runs until the user quits or an interrupt arrives. The first frame is drawn from the first
    /// snapshot, before the first tick (which may open the store).
    public func run() {
        loadSnapshot()
        draw()
        if exitsAfterFirstFrame { return }
        refresh()
        while state.isRunning {
            draw()
            handle(terminal.nextEvent(timeoutMilliseconds: tickMilliseconds))
        }
    }

    /// The store's snapshot, then a tick.
    public func load() {
        loadSnapshot()
        refresh()
    }

    private func loadSnapshot() {
        do {
            dispatch(.loaded(try store.snapshot()))
        } catch {
            dispatch(.failed("\(error)"))
        }
    }

    public func handle(_ event: TerminalEvent) {
        switch event {
        case .key(let key): dispatch(.key(key))
        case .mouse(let mouse): dispatch(.mouse(mouse))
        case .resize(let size): dispatch(.resize(size))
        case .interrupt: dispatch(.interrupt)
        case .timeout: refresh()
        }
    }

    /// A tick: picks up what changed in the store (what came due, another step, another process).
    public func refresh() { dispatch(.tick(now())) }

    public func draw() {
        terminal.render(render(state, depth: terminal.colorDepth))
    }

    /// Every change of state goes through `reduce`; its effects run here, and their answers come
    /// back as actions. Pictures are decoded here; everything else is the store's.
    public func dispatch(_ action: Action) {
        let effects = reduce(&state, action)
        for effect in effects where effect != .quit {
            onEffect?(effect)
            if case .loadPicture(let path) = effect {
                dispatch(.pictureLoaded(path, pictures.lookup(path, size: state.size)))
                continue
            }
            for next in store.perform(effect) { dispatch(next) }
        }
    }
}

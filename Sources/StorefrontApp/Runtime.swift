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
    /// The team server the store asks (W1), for the words of a call it has not answered; nil for
    /// the state folder's own. Read on the screen's thread while an effect may be running.
    var serverLocation: String? { get }
}

extension StoreServing {
    public var serverLocation: String? { nil }
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
    /// `run()` performs the store's effects off the loop, so that every key works while a
    /// call waits on a team server. Scenarios and tests dispatch, and wait for each answer.
    public var performsInBackground = false
    /// How long an effect may go unanswered before the status line names the server (wall time).
    public var patience: TimeInterval = 3
    /// What was asked of the store and had not ended when the screen closed (`performsInBackground`).
    public private(set) var unfinished = Unfinished.none
    private var worker: EffectWorker?
    /// The words of the status line's notice of an unanswered call, while it shows.
    private var stallNotice: String?
    /// A person's actions that asked the store for something while it was still opening off the
    /// loop, and every one after them: dispatched in order once it has opened.
    private var heldWhileOpening: [Action] = []

    /// While the store opens off the loop, a key that would ask it for something (buy, restore, a
    /// form) waits for it to open, and so does every key after it, so that none applies to a
    /// different row than the person meant. Moving in the list does not wait, and q quits at once.
    private func holdsWhileOpening(_ action: Action) -> Bool {
        guard state.snapshot?.isOpening == true else { return false }
        switch action {
        case .key, .command, .mouse: break
        default: return false
        }
        var probe = state
        probe.snapshot?.isOpening = false
        let effects = reduce(&probe, action)
        guard probe.isRunning else { return false }
        if !heldWhileOpening.isEmpty { return true }
        // A key the store's state answers waits for that state: the placeholder's answer (c with
        // "no plan yet" before the plans are read) would be the wrong one.
        if probe.banner != state.banner { return true }
        return effects.contains {
            switch $0 {
            case .settle, .quit, .loadPicture: false
            default: true
            }
        }
    }

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
        if performsInBackground { startBackground() }
        refresh()
        while state.isRunning {
            collect()
            guard state.isRunning else { break }
            draw()
            // While the store works, the loop looks for its answers more often than it ticks.
            handle(
                terminal.nextEvent(timeoutMilliseconds: isWaitingOnStore ? min(50, tickMilliseconds) : tickMilliseconds)
            )
        }
        stopBackground()
    }

    /// From now on the store's effects run off the caller's loop, which calls `collect()` for
    /// their answers (the run loop, the device wall's).
    public func startBackground() {
        if worker == nil { worker = EffectWorker(store: store) }
    }

    /// Begins no more effects off the loop; what had not ended is kept in `unfinished`.
    public func stopBackground() {
        unfinished = worker?.stop() ?? Unfinished.none
    }

    /// Whether an effect performed off the loop has not been collected yet.
    public var isWaitingOnStore: Bool { worker.map { !$0.isIdle } ?? false }

    /// The answers of the effects performed off the loop, dispatched in order; what is in flight,
    /// and a call unanswered for `patience`, put on the status line.
    public func collect() {
        guard let worker else { return }
        for (_, actions) in worker.collect() {
            if let notice = stallNotice {
                stallNotice = nil
                // Only the loop's own notice: a problem the store reported stays until it answers.
                if state.serverProblem == notice { dispatch(.server(problem: nil)) }
            }
            for next in actions { dispatch(next) }
        }
        // Open now: the keys that waited for it, in the order pressed.
        if !heldWhileOpening.isEmpty, state.snapshot?.isOpening == false {
            let held = heldWhileOpening
            heldWhileOpening = []
            for action in held { dispatch(action) }
        }
        let current = worker.current
        if let current, stallNotice == nil, Date().timeIntervalSince(current.since) >= patience {
            let notice = Self.unanswered(server: store.serverLocation, seconds: Int(patience))
            stallNotice = notice
            dispatch(.server(problem: notice))
        }
        // The first asked of the store that has not answered, running or waiting behind a tick.
        let working =
            worker.unfinished.lazy.compactMap { Self.working($0, self.state) }.first
            ?? (heldWhileOpening.isEmpty ? nil : "Opening the store: your keys wait for it…")
        if state.working != working { dispatch(.working(working)) }
    }

    /// The status line's words for a call that has not answered.
    static func unanswered(server: String?, seconds: Int) -> String {
        let who = server.map { "Account server \(serverName($0))" } ?? "The store"
        return "\(who) has not answered for \(seconds) s; keys still work, q quits"
    }

    /// What the status line says while `effect` runs; nil for the tick's own work.
    static func working(_ effect: Effect, _ state: AppState) -> String? {
        func named(_ id: String) -> String { state.snapshot?.product(id)?.title ?? id }
        switch effect {
        case .settle, .loadPicture, .quit: return nil
        case .buy(let id), .buyBilled(let id, _), .buyOffer(let id, _), .buyIntro(let id, _):
            return "Buying \(named(id))…"
        case .restore: return "Restoring purchases…"
        case .signIn, .signUp: return "Signing in…"
        case .signOut: return "Signing out…"
        default: return "Asking the store…"
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
        if worker != nil, holdsWhileOpening(action) {
            heldWhileOpening.append(action)
            return
        }
        let effects = reduce(&state, action)
        for effect in effects where effect != .quit {
            onEffect?(effect)
            if case .loadPicture(let path) = effect {
                dispatch(.pictureLoaded(path, pictures.lookup(path, size: state.size)))
                continue
            }
            if let worker {
                worker.submit(effect)
                continue
            }
            for next in store.perform(effect) { dispatch(next) }
        }
    }
}

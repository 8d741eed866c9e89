// D2: several devices on one terminal. Each device is a whole App in a pane of its own (its own
// store, state and keys); a rail under the panes tells what passes between them: the
// transactions each device sees, the notifications the App Store sends the developer's server,
// and the requests the server's App Store Server API answers. Tab moves the keyboard between
// panes. With one device and no rail it is the ordinary screen, cell for cell.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// What an App draws into: its pane's size; the frame it renders is kept for the wall to compose.
final class PaneSurface: FrameRendering, EventListening {
    var size: Size
    let colorDepth: ColorDepth
    private(set) var screen: Screen

    init(size: Size, colorDepth: ColorDepth) {
        self.size = size
        self.colorDepth = colorDepth
        screen = Screen(size: size)
    }

    @discardableResult
    func render(_ screen: Screen) -> Int {
        self.screen = screen
        return 0
    }

    /// A pane's App never reads the terminal: the wall does, and hands the pane what is its.
    func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent { .timeout }
}

/// One line of the rail: who acted, and what happened.
public struct RailEntry: Equatable, Sendable {
    public enum Source: Equatable, Sendable {
        case device(String)
        /// A notification the App Store sent (or is sending) to the developer's server.
        case notification
        /// A request the App Store Server API answered.
        case serverAPI
    }

    public var source: Source
    public var text: String

    var who: String {
        switch source {
        case .device(let name): name
        case .notification: "App Store → server"
        case .serverAPI: "server → API"
        }
    }
}

public final class DeviceWall {
    public final class Pane {
        public let name: String
        public private(set) var app: App
        let surface: PaneSurface
        /// The newest transaction event of this pane's log already on the rail.
        var railedSequence: Int64 = .min
        /// Added without loading: the first events its store gives are its past, not news.
        var awaitsItsPast = false

        init(name: String, app: App, surface: PaneSurface) {
            self.name = name
            self.app = app
            self.surface = surface
        }

        func replace(_ app: App) { self.app = app }
    }

    public private(set) var panes: [Pane] = []
    /// The pane the keyboard goes to.
    public private(set) var focus = 0
    /// Newest last; at most `railLimit`.
    public private(set) var rail: [RailEntry] = []
    /// Every pane settles on each tick (the interactive view); false: only the focused one (a
    /// played scenario, whose other devices wait for the story to come back to them).
    public var ticksEveryPane = true
    /// Keys go to the focused pane and Tab moves between panes (the interactive view); false: a
    /// played scenario has the keyboard, and the labels only show where the story is.
    public var takesKeys = true
    private let terminal: FrameRendering & EventListening
    private let pictures: PictureCache
    private var seenNotifications: [String: String] = [:]
    private var seenRequests: Set<String> = []
    private var baselined = false
    static let railLimit = 50

    public init(terminal: FrameRendering & EventListening, pictures: PictureCache) {
        self.terminal = terminal
        self.pictures = pictures
    }

    /// A rail and pane labels only when there is more than one device.
    var isWall: Bool { panes.count > 1 }

    public var focused: Pane { panes[focus] }

    /// Adds a device's pane (left to right, in the order added) showing `store` on `route`.
    @discardableResult
    public func add(
        device name: String, store: StoreServing, route: Route = .products, asksGuestsToSignIn: Bool = false,
        load: Bool = true
    ) -> Pane {
        let surface = PaneSurface(size: terminal.size, colorDepth: terminal.colorDepth)
        let app = App(
            store: store, terminal: surface, pictures: pictures, route: route, asksGuestsToSignIn: asksGuestsToSignIn)
        let pane = Pane(name: name, app: app, surface: surface)
        watch(app, device: name)
        panes.append(pane)
        layOut()
        if isWall { for pane in panes { pane.app.dispatch(.sharesTerminal(true)) } }
        if load { app.load() } else { pane.awaitsItsPast = true }
        pane.railedSequence = app.state.log.last?.sequence ?? .min
        return pane
    }

    /// Shows `store` in `name`'s pane (a scenario's `device`, `restart` or `reset device` step
    /// opened it again), on the route the pane was on; returns the new App.
    @discardableResult
    public func replace(device name: String, store: StoreServing) -> App {
        let pane = panes.first { $0.name.lowercased() == name.lowercased() } ?? focused
        let app = App(store: store, terminal: pane.surface, pictures: pictures, route: pane.app.state.route)
        app.dispatch(.resize(pane.surface.size))
        app.dispatch(.sharesTerminal(isWall))
        watch(app, device: pane.name)
        pane.replace(app)
        app.load()
        pane.railedSequence = app.state.log.last?.sequence ?? pane.railedSequence
        return app
    }

    /// Moves the keyboard (and, in a played scenario, the story) to the pane of `name`.
    public func focus(device name: String) {
        if let index = panes.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) { focus = index }
    }

    // MARK: Layout

    /// Rows the rail takes at the bottom (its title line included).
    var railHeight: Int {
        guard isWall else { return 0 }
        let rows = terminal.size.rows
        return rows >= 36 ? 8 : rows >= 24 ? 6 : rows >= 14 ? 4 : 0
    }

    /// Each pane's place on the terminal: side by side, a separator column between them, under
    /// a line of device names.
    func frames() -> [Rect] {
        let size = terminal.size
        guard isWall else { return [Rect(x: 0, y: 0, width: size.columns, height: size.rows)] }
        let count = panes.count
        let width = max(0, (size.columns - (count - 1)) / count)
        let height = max(0, size.rows - 1 - railHeight)
        return (0..<count).map { index in Rect(x: index * (width + 1), y: 1, width: width, height: height) }
    }

    private func layOut() {
        for (pane, frame) in zip(panes, frames()) {
            let size = Size(columns: frame.width, rows: frame.height)
            guard pane.surface.size != size else { continue }
            pane.surface.size = size
            pane.app.dispatch(.resize(size))
        }
    }

    // MARK: Running

    /// `run()` performs each pane's effects off the loop, so that a pane whose team
    /// server does not answer holds up no key, in its pane or another (the screen program's).
    public var performsInBackground = false

    /// The interactive view: runs until a pane quits or an interrupt arrives.
    public func run(tickMilliseconds: Int = 250) {
        if performsInBackground { for pane in panes { pane.app.startBackground() } }
        // Panes added without loading draw from their first snapshot (a catalog's, while the store
        // opens), and open on their first tick, off the loop when the wall performs in the background.
        for pane in panes where pane.app.state.snapshot == nil { pane.app.load() }
        notePasts()
        draw()
        refresh()
        while isRunning {
            for pane in panes { pane.app.collect() }
            notePasts()
            guard isRunning else { break }
            draw()
            let busy = panes.contains { $0.app.isWaitingOnStore }
            handle(terminal.nextEvent(timeoutMilliseconds: busy ? min(50, tickMilliseconds) : tickMilliseconds))
        }
        for pane in panes { pane.app.stopBackground() }
    }

    /// A pane added without loading, once its store has opened: what its log then holds is its
    /// past, not news for the rail. Its store opens in one effect, whose events come with its first
    /// snapshot; nothing else is performed before it.
    private func notePasts() {
        for pane in panes where pane.awaitsItsPast && pane.app.state.snapshot?.isOpening == false {
            pane.railedSequence = pane.app.state.log.last?.sequence ?? .min
            pane.awaitsItsPast = false
        }
    }

    /// Whether every pane is still running (none quit or was interrupted).
    public var isRunning: Bool { panes.allSatisfy(\.app.state.isRunning) }

    public func handle(_ event: TerminalEvent) {
        switch event {
        case .key(.tab) where isWall:
            focus = (focus + 1) % panes.count
        case .key(.backTab) where isWall:
            focus = (focus + panes.count - 1) % panes.count
        case .mouse(let mouse):
            // The pane under the pointer takes the keyboard and the click, in its own coordinates.
            let frames = frames()
            if let index = frames.firstIndex(where: { $0.contains(x: mouse.x, y: mouse.y) }) {
                focus = index
                let frame = frames[index]
                panes[index].app.handle(.mouse(MouseEvent(mouse.kind, x: mouse.x - frame.x, y: mouse.y - frame.y)))
            }
        case .resize:
            layOut()
        case .interrupt:
            for pane in panes { pane.app.handle(.interrupt) }
        case .timeout:
            refresh()
        case .key:
            focused.app.handle(event)
        }
        collectRail()
    }

    /// A tick: each pane (or only the focused one) settles and picks up other processes' changes.
    public func refresh() {
        for (index, pane) in panes.enumerated() where ticksEveryPane || index == focus { pane.app.refresh() }
        collectRail()
    }

    public func draw() {
        terminal.render(compose())
    }

    // MARK: The rail

    /// A line on the rail for what `device` did that leaves no transaction of its own (a sign-in,
    /// a restore).
    public func note(device: String, _ effect: Effect) {
        if let words = Self.words(for: effect) { note(device: device, words) }
    }

    func note(device: String, _ text: String) {
        guard isWall else { return }
        append([RailEntry(source: .device(device), text: text)])
    }

    /// Adds lines to the rail, keeping the newest `railLimit`.
    private func append(_ entries: [RailEntry]) {
        rail.append(contentsOf: entries)
        if rail.count > Self.railLimit { rail.removeFirst(rail.count - Self.railLimit) }
    }

    /// How the rail words an account step a device takes (a sign-in, a restore), or nil.
    static func words(for effect: Effect) -> String? {
        switch effect {
        case .signIn(let name, _): "signs in as \(name)"
        case .signUp(let name, _): "signs up as \(name)"
        case .signOut: "signs out"
        case .restore: "restores purchases"
        default: nil
        }
    }

    /// The account steps a pane's keys take go on the rail as they are asked for.
    private func watch(_ app: App, device: String) {
        app.onEffect = { [weak self] effect in
            if let words = Self.words(for: effect) { self?.note(device: device, words) }
        }
    }

    /// What is new since the last look: each pane's transactions, the notifications and the
    /// Server API's requests (any pane's snapshot has them: they are the account server's).
    /// What was there before the wall first looked is not news.
    public func collectRail() {
        guard isWall else { return }
        var entries: [RailEntry] = []
        for pane in panes {
            let state = pane.app.state
            if pane.awaitsItsPast { continue }
            for event in state.log where event.sequence > pane.railedSequence {
                let title = state.snapshot?.product(event.productID)?.title ?? event.productID
                entries.append(RailEntry(source: .device(pane.name), text: "\(eventWords(event)) · \(title)"))
                pane.railedSequence = event.sequence
            }
        }
        let snapshots = panes.compactMap(\.app.state.snapshot).filter { !$0.isOpening }
        for snapshot in snapshots {
            for line in snapshot.notifications {
                let key = line.id.isEmpty ? "\(line.at.timeIntervalSince1970) \(line.title)" : line.id
                let state =
                    line.state == "pending" && snapshot.webhook == nil ? "kept until a webhook is set" : line.state
                guard seenNotifications[key] != state else { continue }
                let isNew = seenNotifications[key] == nil
                seenNotifications[key] = state
                if baselined {
                    entries.append(
                        RailEntry(source: .notification, text: "\(line.title) · \(isNew ? "" : "now ")\(state)"))
                }
            }
            for request in snapshot.requests {
                let key = "\(request.at.timeIntervalSince1970) \(request.method) \(request.path) \(request.status)"
                guard seenRequests.insert(key).inserted, baselined else { continue }
                entries.append(
                    RailEntry(source: .serverAPI, text: "\(request.method) \(request.path) → \(request.status)"))
            }
        }
        if !snapshots.isEmpty { baselined = true }
        append(entries)
    }

    // MARK: Drawing

    /// The whole terminal: the device names, the panes with a rule between them, and the rail.
    func compose() -> Screen {
        for pane in panes { pane.app.draw() }
        guard isWall else { return panes.first?.surface.screen ?? Screen(size: terminal.size) }
        let size = terminal.size
        var screen = Screen(size: size)
        let theme = Theme(depth: terminal.colorDepth)
        let frames = frames()
        for (index, (pane, frame)) in zip(panes, frames).enumerated() {
            let focused = index == focus
            let label = TextWidth.truncate(
                (focused ? " ▶ " : "   ") + pane.name + (focused && takesKeys ? "  (keys here)" : ""), to: frame.width)
            screen.write(
                TextWidth.pad(label, to: frame.width), x: frame.x, y: 0, style: focused ? theme.selected : theme.dim)
            screen.paste(pane.surface.screen, x: frame.x, y: frame.y)
            if index > 0 {
                for y in 0..<frame.maxY { screen.put(Cell("│", style: theme.dim), x: frame.x - 1, y: y) }
            }
        }
        drawRail(&screen, theme: theme, top: (frames.first?.maxY ?? 0))
        return screen
    }

    private func drawRail(_ screen: inout Screen, theme: Theme, top: Int) {
        let width = screen.size.columns
        guard railHeight > 0 else { return }
        let keys = takesKeys ? " Tab: next device ─" : ""
        let title = "─ Between the devices "
        let rule = max(0, width - TextWidth.of(title) - TextWidth.of(keys))
        screen.write(
            TextWidth.truncate(title + String(repeating: "─", count: rule) + keys, to: width), x: 0, y: top,
            style: theme.dim)
        let lines = rail.suffix(railHeight - 1)
        let whoWidth = min(
            20, max(panes.map { TextWidth.of($0.name) }.max() ?? 0, lines.map { TextWidth.of($0.who) }.max() ?? 0))
        for (offset, entry) in lines.enumerated() {
            let y = top + 1 + offset
            let x = screen.write(
                " " + TextWidth.pad(TextWidth.truncate(entry.who, to: whoWidth), to: whoWidth) + "  ", x: 0, y: y,
                style: theme.title)
            let style: Style =
                switch entry.source {
                case .device: entry.text.hasPrefix("failed") ? theme.failed : theme.owned
                case .notification: theme.action
                case .serverAPI: .plain
                }
            screen.write(TextWidth.truncate(entry.text, to: max(0, width - x - 1)), x: x, y: y, style: style)
        }
        if lines.isEmpty {
            screen.write(" Nothing yet: buy on one device, restore on another.", x: 0, y: top + 1, style: theme.dim)
        }
    }
}

/// A played story's device that the story has not reached yet: its pane says so.
final class WaitingStore: StoreServing {
    private let waiting: StoreSnapshot

    init(catalog: Catalog, device: String) {
        var snapshot = StoreSnapshot.opening(catalog)
        snapshot.rows = []
        snapshot.status.header = "The \(device) joins the story later"
        waiting = snapshot
    }

    func snapshot() throws -> StoreSnapshot { waiting }
    func perform(_ effect: Effect) -> [Action] { [] }
}

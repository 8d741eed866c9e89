// What changed between two frames, as a pure function: the curses backend writes exactly these
// cells, and tests (and the scripted terminal) can count and inspect them without a terminal.

/// One cell to write at (x, y).
public struct CellChange: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var cell: Cell
}

extension Screen {
    /// The cells of `self` that differ from `previous`, in reading order; every cell when there is
    /// no previous frame of the same size. A wide character's right half is never listed on its
    /// own: the left half stands for both, and is listed again when the half beside it changes width.
    public func changes(from previous: Screen?) -> [CellChange] {
        let previous = previous?.size == size ? previous : nil
        var changes: [CellChange] = []
        for y in 0..<size.rows {
            for x in 0..<size.columns {
                let cell = self[x, y]
                if cell.isContinuation { continue }
                if let previous, previous[x, y] == cell,
                    x + 1 >= size.columns || previous[x + 1, y].isContinuation == self[x + 1, y].isContinuation
                {
                    continue
                }
                changes.append(CellChange(x: x, y: y, cell: cell))
            }
        }
        return changes
    }
}

/// A terminal for tests: events come from a script, frames are kept. It stands behind the same
/// protocols as the curses backend, so the app's real loop runs against it.
public final class ScriptedTerminal: FrameRendering, EventListening {
    public private(set) var size: Size
    public let colorDepth: ColorDepth
    /// Every frame rendered, oldest first, and the cells each one changed.
    public private(set) var frames: [Screen] = []
    public private(set) var writes: [[CellChange]] = []
    private var script: [TerminalEvent]
    /// What `nextEvent` returns once the script is done (`.interrupt` ends a loop that forgot to quit).
    public var afterScript: TerminalEvent = .interrupt

    public init(size: Size, colorDepth: ColorDepth = .none, events: [TerminalEvent] = []) {
        self.size = size
        self.colorDepth = colorDepth
        script = events
    }

    /// Adds events to the end of the script.
    public func enqueue(_ events: TerminalEvent...) { script.append(contentsOf: events) }

    /// The events not read yet.
    public var remaining: [TerminalEvent] { script }

    public var lastFrame: Screen? { frames.last }

    @discardableResult
    public func render(_ screen: Screen) -> Int {
        let changes = screen.changes(from: frames.last)
        frames.append(screen)
        writes.append(changes)
        return changes.count
    }

    /// The next scripted event; a resize also changes `size`, as a real terminal's does.
    public func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent {
        guard !script.isEmpty else { return afterScript }
        let event = script.removeFirst()
        if case .resize(let newSize) = event { size = newSize }
        return event
    }
}

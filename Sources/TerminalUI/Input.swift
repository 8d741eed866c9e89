// Key and mouse events as values, and the capability protocols the app is given (STYLE:
// I/O behind -ing protocols), so that tests can feed events and collect frames.

public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, delete
    case function(Int)
    /// Ctrl and a letter, as the terminal sends it (Ctrl-C arrives as a signal unless raw).
    case control(Character)
}

public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case click, doubleClick, scrollUp, scrollDown }
    public var kind: Kind
    public var x: Int
    public var y: Int
    public init(_ kind: Kind, x: Int, y: Int) {
        self.kind = kind
        self.x = x
        self.y = y
    }
}

public enum TerminalEvent: Hashable, Sendable {
    case key(Key)
    case mouse(MouseEvent)
    case resize(Size)
    /// Nothing happened before the input timeout: time to tick.
    case timeout
    /// Ctrl-C or SIGTERM: leave now, cleanly.
    case interrupt
}

/// Shows frames.
public protocol FrameRendering: AnyObject {
    var size: Size { get }
    var colorDepth: ColorDepth { get }
    /// Writes what differs from the last frame. Returns the bytes written, where known.
    @discardableResult
    func render(_ screen: Screen) -> Int
}

/// Gives events, waiting at most `timeout` milliseconds for one.
public protocol EventListening: AnyObject {
    func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent
}

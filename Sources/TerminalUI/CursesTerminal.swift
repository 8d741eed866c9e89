// The one place that talks to ncurses: it writes the cells that changed since the last frame
// and turns curses input into events. Everything else draws into a `Screen` value.
import CNCurses
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

public enum TerminalError: Error, CustomStringConvertible {
    case cannotStart(String)
    public var description: String {
        switch self {
        case .cannotStart(let reason): "cannot start the screen: \(reason)"
        }
    }
}

public final class CursesTerminal: FrameRendering, EventListening {
    public private(set) var colorDepth: ColorDepth
    private var previous: Screen?
    private var pairs: [Style: Int32] = [:]
    private var isActive = false
    private var screenPointer: OpaquePointer?
    private var files: [UnsafeMutablePointer<FILE>] = []

    /// Starts curses on the process's terminal. `colorDepth` forces a depth (NO_COLOR → .none).
    public convenience init(colorDepth forced: ColorDepth? = nil) throws {
        try self.init(terminalType: nil, output: nil, input: nil, colorDepth: forced)
    }

    /// Starts curses on the given files (for tests: /dev/null works with no TTY at all).
    public init(terminalType: String?, output: String?, input: String?, colorDepth forced: ColorDepth? = nil) throws {
        Self.prepareLocale()
        colorDepth = .none
        let outFile = output.flatMap { fopen($0, "w") } ?? fdopen(dup(STDOUT_FILENO), "w")
        let inFile = input.flatMap { fopen($0, "r") } ?? fdopen(dup(STDIN_FILENO), "r")
        if let outFile { files.append(outFile) }
        if let inFile { files.append(inFile) }
        guard let screen = newterm(terminalType, outFile, inFile) else {
            throw TerminalError.cannotStart(
                "the terminal type \"\(terminalType ?? ProcessInfo.processInfo.environment["TERM"] ?? "")\" is unknown")
        }
        screenPointer = screen
        set_term(screen)
        isActive = true
        TerminalSignals.install()
        cbreak()
        noecho()
        nonl()
        intrflush(sf_stdscr(), false)
        keypad(sf_stdscr(), true)
        curs_set(0)
        set_escdelay(25)
        mousemask(sf_all_mouse_events(), nil)
        mouseinterval(0)
        if let forced {
            colorDepth = forced
        } else if has_colors() {
            colorDepth = .palette256
        }
        if colorDepth != .none, has_colors() {
            start_color()
            use_default_colors()
            let colors = sf_colors()
            if forced == nil { colorDepth = colors >= 256 ? .palette256 : colors >= 8 ? .eight : .none }
            if colors < 256, colorDepth == .palette256 { colorDepth = colors >= 8 ? .eight : .none }
        } else {
            colorDepth = .none
        }
    }

    deinit {
        restore()
        if let screenPointer { delscreen(screenPointer) }
        for file in files { fclose(file) }
    }

    /// Gives the terminal back: cooked mode, echo on, cursor visible. Safe to call twice.
    public func restore() {
        guard isActive else { return }
        isActive = false
        curs_set(1)
        endwin()
    }

    public var size: Size {
        Size(columns: Int(sf_getmaxx(sf_stdscr())), rows: Int(sf_getmaxy(sf_stdscr())))
    }

    /// Writes the cells that differ from the previous frame and refreshes. Returns how many cells
    /// were written (ncurses then sends only what changed on the terminal).
    @discardableResult
    public func render(_ screen: Screen) -> Int {
        let window = sf_stdscr()
        if previous?.size != screen.size { werase(window) }
        let changes = screen.changes(from: previous)
        for change in changes { put(change.cell, x: change.x, y: change.y, window: window) }
        wnoutrefresh(window)
        doupdate()
        previous = screen
        return changes.count
    }

    /// Forgets the last frame so the next one is written whole (after a resize or a redraw key).
    public func invalidate() {
        previous = nil
        clearok(sf_stdscr(), true)
    }

    private func put(_ cell: Cell, x: Int, y: Int, window: UnsafeMutablePointer<WINDOW>?) {
        var attributes = sf_a_normal()
        let style = cell.style
        if style.isBold { attributes |= sf_a_bold() }
        if style.isDim { attributes |= sf_a_dim() }
        if style.isReverse { attributes |= sf_a_reverse() }
        if style.isUnderline { attributes |= sf_a_underline() }
        let pair = colorDepth == .none ? 0 : pairNumber(for: style)
        var scalars = Array(cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) })
        if scalars.isEmpty { scalars = [wchar_t(32)] }
        scalars.append(0)
        _ = sf_put_cell(window, Int32(y), Int32(x), scalars, attributes, pair)
    }

    /// An extended colour pair for the style's colours, allocated on first use.
    private func pairNumber(for style: Style) -> Int32 {
        let key = Style(foreground: style.foreground, background: style.background)
        if let known = pairs[key] { return known }
        let pair = alloc_pair(colorNumber(style.foreground), colorNumber(style.background))
        let number = pair < 0 ? 0 : pair
        pairs[key] = number
        return number
    }

    private func colorNumber(_ color: Color) -> Int32 {
        switch color {
        case .default: return -1
        case .indexed(let index):
            switch colorDepth {
            case .palette256: return Int32(index)
            case .eight:
                if index < 8 { return Int32(index) }
                if index < 16 { return Int32(index - 8) }
                let (r, g, b) = Palette.rgb(of: index)
                return Int32(Palette.nearest8(UInt8(r), UInt8(g), UInt8(b)))
            case .none: return -1
            }
        }
    }

    // MARK: Input

    public func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent {
        if TerminalSignals.takeInterrupt() { return .interrupt }
        let window = sf_stdscr()
        wtimeout(window, Int32(timeoutMilliseconds))
        var character: wint_t = 0
        let result = wget_wch(window, &character)
        if TerminalSignals.takeInterrupt() { return .interrupt }
        if result == ERR { return inputIsGone() ? .interrupt : .timeout }
        if result == sf_key_code_yes() { return functionKey(Int32(character)) }
        return characterKey(UInt32(character))
    }

    /// The terminal hung up (its window closed, its tmux server killed): leave instead of polling
    /// a dead terminal for ever.
    private func inputIsGone() -> Bool {
        guard let input = files.last else { return false }
        var descriptor = pollfd(fd: fileno(input), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        return descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    private func functionKey(_ code: Int32) -> TerminalEvent {
        switch code {
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_HOME: return .key(.home)
        case KEY_END: return .key(.end)
        case KEY_ENTER: return .key(.enter)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_DC: return .key(.delete)
        case KEY_BTAB: return .key(.backTab)
        case KEY_RESIZE:
            invalidate()
            return .resize(size)
        case KEY_MOUSE:
            var event = MEVENT()
            guard getmouse(&event) == OK else { return .timeout }
            let x = Int(event.x)
            let y = Int(event.y)
            let state = event.bstate
            if state & sf_button4_pressed() != 0 { return .mouse(MouseEvent(.scrollUp, x: x, y: y)) }
            if state & sf_button5_pressed() != 0 { return .mouse(MouseEvent(.scrollDown, x: x, y: y)) }
            if state & sf_button1_double_clicked() != 0 { return .mouse(MouseEvent(.doubleClick, x: x, y: y)) }
            if state & (sf_button1_clicked() | sf_button1_pressed()) != 0 {
                return .mouse(MouseEvent(.click, x: x, y: y))
            }
            return .timeout
        default:
            if code >= KEY_F0 + 1, code <= KEY_F0 + 12 { return .key(.function(Int(code - KEY_F0))) }
            return .timeout
        }
    }

    private func characterKey(_ value: UInt32) -> TerminalEvent {
        switch value {
        case 27: return escapeOrUnknownSequence()
        case 10, 13: return .key(.enter)
        case 9: return .key(.tab)
        case 8, 127: return .key(.backspace)
        case 1...26: return .key(.control(Character(Unicode.Scalar(value + 96)!)))
        default:
            guard let scalar = Unicode.Scalar(value) else { return .timeout }
            return .key(.character(Character(scalar)))
        }
    }

    /// Esc alone, or the start of a key sequence this terminal type does not describe (ncurses
    /// waited ESCDELAY and gave up): such a sequence is read to its end and ignored, so that an
    /// unknown key never reads as Esc, which would quit.
    private func escapeOrUnknownSequence() -> TerminalEvent {
        let window = sf_stdscr()
        wtimeout(window, 0)
        var next: wint_t = 0
        let result = wget_wch(window, &next)
        guard result != ERR else { return .key(.escape) }
        if result == OK, next == 91 || next == 79 {  // "[" or "O": a CSI or SS3 sequence
            for _ in 0..<16 {
                var byte: wint_t = 0
                guard wget_wch(window, &byte) == OK else { break }
                if byte >= 0x40 && byte <= 0x7E { break }
            }
            return .timeout
        }
        if result == OK, next == 27 {
            // Esc pressed twice, or Esc and then a key's sequence: this one is Esc, the next is read next.
            unget_wch(wchar_t(27))
            return .key(.escape)
        }
        // Alt and a key: ignored, like the sequences.
        return .timeout
    }

    /// A UTF-8 character type, so that ncursesw writes wide characters: the user's locale when it
    /// is UTF-8, else C.UTF-8.
    static func prepareLocale() {
        setlocale(LC_ALL, "")
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
    }
}

/// Ctrl-C and SIGTERM set a flag that the input loop reads; a crash restores the terminal, then
/// dies of the same signal. A Swift runtime trap arrives as SIGILL or SIGTRAP.
public enum TerminalSignals {
    nonisolated(unsafe) static var interruptFlag: sig_atomic_t = 0
    nonisolated(unsafe) static var installed = false

    public static func install() {
        guard !installed else { return }
        installed = true
        // A parent may have blocked these (a test runner's thread, a supervisor): the screen needs
        // SIGWINCH to see resizes and SIGINT/SIGTERM to leave cleanly.
        var wanted = sigset_t()
        sigemptyset(&wanted)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] { sigaddset(&wanted, signal) }
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { received in TerminalSignals.interruptFlag = received }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
        for signal in [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { received in
                endwin()
                Glibc.signal(received, SIG_DFL)
                raise(received)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
    }

    /// The signal of the last interrupt taken (SIGINT, SIGTERM or SIGHUP), for the exit status.
    nonisolated(unsafe) public private(set) static var lastSignal: Int32 = 0

    static func takeInterrupt() -> Bool {
        if interruptFlag == 0 { return false }
        lastSignal = interruptFlag
        interruptFlag = 0
        return true
    }

    /// For tests and scripted runs: as if Ctrl-C had been pressed.
    public static func requestInterrupt() { interruptFlag = SIGINT }
}

// The curses backend with no TTY at all: newterm on /dev/null.
import Foundation
import Testing

@testable import TerminalUI

@Suite("Curses backend", .serialized)
struct BackendTests {
    @Test("writes every cell of the first frame, then only what changed")
    func diff() throws {
        let terminal = try CursesTerminal(terminalType: "xterm-256color", output: "/dev/null", input: "/dev/null")
        defer { terminal.restore() }
        #expect(terminal.colorDepth == .palette256)
        var screen = Screen(size: terminal.size)
        screen.write(
            "漫画 Storefront ✓", x: 0, y: 0, style: Style(foreground: .indexed(200), background: .indexed(17), bold: true)
        )
        let first = terminal.render(screen)
        #expect(first == screen.cells.filter { !$0.isContinuation }.count)
        #expect(terminal.render(screen) == 0)
        screen.write("x", x: 5, y: 3)
        #expect(terminal.render(screen) == 1)
        #expect(terminal.nextEvent(timeoutMilliseconds: 0) == .timeout)
    }

    @Test("eight-colour and no-colour terminals get mapped colours or none")
    func depths() throws {
        let eight = try CursesTerminal(terminalType: "xterm", output: "/dev/null", input: "/dev/null")
        #expect(eight.colorDepth == .eight)
        var screen = Screen(size: eight.size)
        screen.write("colour", x: 0, y: 0, style: Style(foreground: .indexed(208), background: .indexed(240)))
        #expect(eight.render(screen) > 0)
        eight.restore()
        let none = try CursesTerminal(
            terminalType: "xterm-256color", output: "/dev/null", input: "/dev/null", colorDepth: ColorDepth.none)
        #expect(none.colorDepth == .none)
        #expect(none.render(screen) > 0)
        none.restore()
    }

    @Test("an unknown terminal type is a clear error")
    func unknownTerminal() {
        #expect(throws: TerminalError.self) {
            try CursesTerminal(terminalType: "no-such-terminal-type", output: "/dev/null", input: "/dev/null")
        }
    }
}

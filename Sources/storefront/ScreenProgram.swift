// Wiring for the screen: the store, the pictures, curses, and a log file for stderr while the
// screen is up (nothing may be printed over it).
import ArgumentParser
import Foundation
import StoreCore
import StorefrontApp
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

struct ScreenProgram {
    let context: Context

    func run() throws {
        try withScreen(log: context.stateDirectory.url.appendingPathComponent("storefront.log")) { terminal in
            let store = LiveStore(store: context.store)
            let route: Route = try context.store.accounts.currentUser() == nil ? .signIn : .products
            let app = App(store: store, terminal: terminal, pictures: PictureCache(root: context.loaded.imageRoot, catalog: context.loaded.catalog), route: route)
            // For the benchmark of start-up: stop once the first full frame is on the terminal.
            app.exitsAfterFirstFrame = Environment.current.exitsAfterFirstFrame
            app.run()
        }
    }
}

/// T5: the screen needs a terminal; without one, say so and point to the subcommands.
func requireTerminal() throws {
    let term = Environment.current.terminalType
    guard isatty(STDOUT_FILENO) != 0, isatty(STDIN_FILENO) != 0, !term.isEmpty, term != "dumb" else {
        printError("""
            storefront: the screen needs a terminal (standard input and output a TTY, TERM not dumb). \\
            Without one, use the subcommands: storefront products, buy, pending, approve, status, … \\
            (`storefront --help` lists them all).
            """)
        throw ExitCode(1)
    }
}

/// Runs `body` with curses up and standard error going to `log`; the terminal is given back on
/// every way out.
func withScreen(log: URL, _ body: (CursesTerminal) throws -> Void) throws {
    let noColor = Environment.current.noColor
    let savedError = dup(STDERR_FILENO)
    let logDescriptor = open(log.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    if logDescriptor >= 0 { dup2(logDescriptor, STDERR_FILENO) }
    defer {
        if savedError >= 0 { dup2(savedError, STDERR_FILENO); close(savedError) }
        if logDescriptor >= 0 { close(logDescriptor) }
    }
    let terminal: CursesTerminal
    do {
        terminal = try CursesTerminal(colorDepth: noColor ? ColorDepth.none : nil)
    } catch {
        throw CommandFailure(message: "\(error)", status: 1)
    }
    defer { terminal.restore() }
    try body(terminal)
}

// Wiring for the screen: the store, the pictures, curses, and a log file for stderr while the
// screen is up (nothing may be printed over it).
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
        let environment = ProcessInfo.processInfo.environment
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let logURL = context.stateDirectory.url.appendingPathComponent("storefront.log")
        let savedError = dup(STDERR_FILENO)
        let logDescriptor = open(logURL.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
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
        let store = LiveStore(store: context.store)
        let route: Route = try context.store.currentUser() == nil ? .signIn : .products
        let app = App(store: store, terminal: terminal, pictures: PictureCache(root: context.loaded.imageRoot), route: route)
        // For the benchmark of start-up: stop once the first full frame is on the terminal.
        app.exitsAfterFirstFrame = environment["STOREFRONT_EXIT_AFTER_FIRST_FRAME"] == "1"
        app.run()
    }
}

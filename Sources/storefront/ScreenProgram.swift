// Wiring for the screen: the store, the pictures, curses, and a log file for stderr while the
// screen is up (nothing may be printed over it).
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import StorefrontApp
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

struct ScreenProgram {
    let options: CommonOptions
    /// D2: two or three devices side by side; empty: the one device of `--device`.
    var devices: [String] = []

    /// The names of `--devices`: two or three, distinct, each a valid device name.
    static func deviceNames(_ text: String) throws -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard (2...3).contains(names.count) else {
            throw CommandFailure(
                message: "--devices takes two or three device names, as phone,tablet (got \(names.count))", status: 2)
        }
        guard Set(names.map { $0.lowercased() }).count == names.count else {
            throw CommandFailure(
                message: "--devices names a device twice (\(text)): each pane is a device of its own", status: 2)
        }
        for name in names {
            do { try StateDirectory.validate(device: name) } catch {
                throw CommandFailure(message: "--devices: \(error)", status: 2)
            }
        }
        return names
    }

    /// The catalog is read and the first frame drawn before any database is opened: the store
    /// opens on the first tick, and the header and labels fill in when it answers. What must be
    /// asked of a person (the password for --user) is asked before the screen takes the terminal.
    func run() throws {
        let loaded = try Context.loadCatalog(options)
        Context.reportWarnings(loaded.warnings)
        let password = try options.user.map { _ in try Context.readPassword() }
        let stateDirectory = StateDirectory(try Context.resolveStateDirectory(options))
        try StateDirectory.validate(device: options.device)
        try stateDirectory.prepare()
        if !devices.isEmpty {
            return try runDevices(loaded: loaded, password: password, stateDirectory: stateDirectory)
        }
        let opening = OpeningStore(catalog: loaded.catalog, server: serverLocation) {
            try Context.open(options, loaded: loaded, password: password).store
        }
        var unfinished = Unfinished.none
        try withScreen(log: stateDirectory.url.appendingPathComponent("storefront.log")) { terminal in
            let app = App(
                store: opening, terminal: terminal,
                pictures: PictureCache(root: loaded.imageRoot, catalog: loaded.catalog),
                route: .products, asksGuestsToSignIn: true
            )
            // For the benchmark of start-up: stop once the first full frame is on the terminal.
            app.exitsAfterFirstFrame = Environment.current.exitsAfterFirstFrame
            app.performsInBackground = true
            app.run()
            unfinished = app.unfinished
        }
        // The store could not be opened (a corrupt database, a locked folder): said once the
        // terminal is back, with its exit status.
        if let failure = opening.failure { throw failure }
        // q quits at once, whatever is in flight. What was still asked of the store is
        // left to it, untouched from here (another thread holds it): a purchase is completed by
        // the next start, as after a crash (Q3).
        for line in Self.leftWaiting(unfinished) { printError(line) }
    }

    /// The team server named by `--server` or $STOREFRONT_SERVER, for the screen's words before
    /// its store opens; nil for the state folder's own.
    var serverLocation: String? {
        let named = options.server ?? ProcessInfo.processInfo.environment["STOREFRONT_SERVER"]
        return named.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The lines said when the screen closed with a purchase or another change unanswered; none
    /// when only the tick's own work was.
    static func leftWaiting(_ unfinished: Unfinished) -> [String] {
        func isPurchase(_ effect: Effect) -> Bool {
            switch effect {
            case .buy, .buyBilled, .buyOffer, .buyIntro, .redeem: true
            default: false
            }
        }
        var lines: [String] = []
        if let running = unfinished.running, running != .settle {
            lines.append(
                isPurchase(running)
                    ? "storefront: quit before the store answered a purchase; the next start completes it once, or fails it"
                    : "storefront: quit before the store answered; what was asked may not have been done")
        }
        let never = unfinished.waiting.filter { $0 != .settle && $0 != .quit }
        if !never.isEmpty {
            lines.append(
                never.contains(where: isPurchase)
                    ? "storefront: quit before a purchase was asked of the store; nothing was bought"
                    : "storefront: quit before \(never.count) change\(never.count == 1 ? " was" : "s were") asked of the store; they were not made"
            )
        }
        return lines
    }
}

extension ScreenProgram {
    /// D2: one pane per device, each opening its own store on the same account server (the state
    /// folder's, or `--server`'s); `--user` signs every device in as that account.
    func runDevices(loaded: LoadedCatalog, password: String?, stateDirectory: StateDirectory) throws {
        let openings = devices.map { name in
            var paneOptions = options
            paneOptions.device = name
            return OpeningStore(catalog: loaded.catalog, server: serverLocation) {
                try Context.open(paneOptions, loaded: loaded, password: password).store
            }
        }
        try withScreen(log: stateDirectory.url.appendingPathComponent("storefront.log")) { terminal in
            let wall = DeviceWall(
                terminal: terminal, pictures: PictureCache(root: loaded.imageRoot, catalog: loaded.catalog))
            for (name, opening) in zip(devices, openings) {
                // Opened by the wall's loop, off it: a server that does not answer holds
                // up neither the first frame nor a key.
                wall.add(device: name, store: opening, asksGuestsToSignIn: true, load: false)
            }
            wall.performsInBackground = true
            wall.run()
        }
        if let failure = openings.lazy.compactMap(\.failure).first { throw failure }
    }
}

/// T5: the screen needs a terminal; without one, say so and point to the subcommands.
func requireTerminal() throws {
    let term = Environment.current.terminalType
    guard isatty(STDOUT_FILENO) != 0, isatty(STDIN_FILENO) != 0, !term.isEmpty, term != "dumb" else {
        printError(
            """
            storefront: the screen needs a terminal (standard input and output a TTY, TERM not dumb). \
            Without one, use the subcommands: storefront products, buy, pending, approve, status, … \
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
        if savedError >= 0 {
            dup2(savedError, STDERR_FILENO)
            close(savedError)
        }
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

// Issue 70 in a real terminal: the screen never waits on a team server. Every verdict is on the
// order of events (what the screen shows while the server is stopped, before it is resumed), with
// ceilings far below the client's own request timeout, never on speed.
import Foundation
import TestSupport
import Testing

@Suite("A screen that never waits on the network")
struct StallTests {
    /// The product row the selection mark (▸) is on, nil if none shows.
    static func selected(_ screen: String) -> String? {
        screen.split(separator: "\n").first { $0.contains("▸") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    /// Whether `pid` is stopped (SIGSTOP): its state in /proc is T.
    static func isStopped(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)] == "T"
    }

    /// A team device signed in as `name`, whose calls may take ten minutes before they time out:
    /// any wait the tests see is the screen's, not the client's timeout.
    static func teamDevice(_ name: String) async throws -> (Server, Session) {
        let host = try await Session()
        let server = try await Server(host)
        let device = try await server.machine(catalogOf: host)
        try await device.signUp(name)
        device.environment["STOREFRONT_SERVER_TIMEOUT"] = "600"
        return (server, device)
    }

    /// q, and the shell's report that the screen exited 0; the pane as it then shows.
    static func quit(_ tmux: TmuxSession, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await tmux.send("q")
        let exited = try await tmux.waitFor("EXITED=")
        #expect(exited.contains("EXITED=0"), "\(exited)", sourceLocation: sourceLocation)
        return exited
    }

    /// Stops `server` with SIGSTOP, and waits for the screen to say that a tick's call to it has
    /// not answered; the server's pid, for SIGCONT.
    static func stall(_ server: Server, _ tmux: TmuxSession) async throws -> pid_t {
        let pid = server.process.processIdentifier
        kill(pid, SIGSTOP)
        try await tmux.waitFor("has not answered")
        return pid
    }

    /// The screen in tmux, once the store has opened: its first list.
    static func openedScreen(_ device: Session) async throws -> (TmuxSession, String) {
        let tmux = try await device.scriptedScreen()
        let list = try await tmux.waitUntil(description: "the product list, opened") {
            Self.selected($0) != nil && !$0.contains("Opening")
        }
        return (tmux, list)
    }

    @Test(
        "70 a team server stopped with SIGSTOP: ↓ moves the selection, the status line says the server has not answered, and q exits 0, all while it is still stopped"
    )
    func stoppedServer() async throws {
        let (server, device) = try await Self.teamDevice("ann")
        let (tmux, list) = try await Self.openedScreen(device)
        let before = Self.selected(list)
        // A tick's call is now stuck on the stopped server.
        let pid = try await Self.stall(server, tmux)
        defer { kill(pid, SIGCONT) }
        try await tmux.send("Down")
        let moved = try await tmux.waitUntil(description: "the selection moved by ↓") {
            Self.selected($0) != nil && Self.selected($0) != before
        }
        #expect(moved.contains("has not answered"), "\(moved)")
        _ = try await Self.quit(tmux)
        #expect(Self.isStopped(pid), "every verdict above came while the server was stopped")
        kill(pid, SIGCONT)
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "70 a purchase asked while the team server is stopped says so, and completes exactly once when it is resumed: on the screen and in history"
    )
    func purchaseDuringStall() async throws {
        let (server, device) = try await Self.teamDevice("bea")
        let (tmux, list) = try await Self.openedScreen(device)
        // The product the selection is on, bought with b.
        let products = try await device.array(["products"])
        let product = try #require(
            products.first { ($0["title"] as? String).map { Self.selected(list)?.contains($0) == true } ?? false },
            "\(list)")
        let title = try #require(product["title"] as? String)
        let id = try #require(product["id"] as? String)
        let pid = try await Self.stall(server, tmux)
        try await tmux.send("b")
        let waiting = try await tmux.waitFor("Buying \(title)")
        #expect(!waiting.contains("Purchased"), "\(waiting)")
        #expect(Self.isStopped(pid))
        kill(pid, SIGCONT)
        try await tmux.waitFor("Purchased \(title) ✓")
        let history = try await device.array(["history"])
        #expect(history.filter { $0["product"] as? String == id }.count == 1, "\(history)")
        _ = try await Self.quit(tmux)
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "70 a purchase asked while the team server is stopped, and q before it answers: the screen exits 0 at once with one line that says nothing was bought, and nothing was"
    )
    func quitBeforePurchase() async throws {
        let (server, device) = try await Self.teamDevice("cat")
        let (tmux, _) = try await Self.openedScreen(device)
        let pid = try await Self.stall(server, tmux)
        defer { kill(pid, SIGCONT) }
        try await tmux.send("b")
        try await tmux.waitFor("Buying")
        let exited = try await Self.quit(tmux)
        #expect(exited.contains("nothing was bought"), "\(exited)")
        #expect(Self.isStopped(pid), "it quit while the server was stopped")
        kill(pid, SIGCONT)
        #expect(try await device.array(["history"]).isEmpty)
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "70 two devices side by side on a stopped team server: Tab moves the keys to the tablet's pane and ↓ works there, and q exits 0, while the server is still stopped"
    )
    func stoppedServerTwoDevices() async throws {
        let (server, device) = try await Self.teamDevice("dot")
        try await device.signIn("dot", device: "tablet")
        let tmux = try await device.scriptedScreen(device.screenCommand(arguments: ["--devices", "phone,tablet"]))
        try await tmux.waitUntil(description: "both panes opened") {
            $0.contains("▶ phone  (keys here)") && !$0.contains("Opening")
        }
        let pid = try await Self.stall(server, tmux)
        defer { kill(pid, SIGCONT) }
        try await tmux.send("Tab", "Down")
        try await tmux.waitFor("▶ tablet  (keys here)")
        _ = try await Self.quit(tmux)
        #expect(Self.isStopped(pid), "every verdict above came while the server was stopped")
        kill(pid, SIGCONT)
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "70 started against a server that accepts and never answers: the catalog is drawn, keys work, the call's timeout is said and asked again, and the screen stays open until q"
    )
    func silentServer() async throws {
        let listener = try SilentListener()
        let device = try await Session()
        device.environment["STOREFRONT_SERVER"] = "http://127.0.0.1:\(listener.port)"
        // Past the screen's patience (3 s), short of a test's ceilings.
        device.environment["STOREFRONT_SERVER_TIMEOUT"] = "5"
        let tmux = try await device.scriptedScreen()
        let list = try await tmux.waitUntil(description: "the catalog's list") { Self.selected($0) != nil }
        let before = Self.selected(list)
        try await tmux.send("Down")
        _ = try await tmux.waitUntil(description: "the selection moved by ↓") {
            Self.selected($0) != nil && Self.selected($0) != before
        }
        // The open is said to wait, then its timeout; the screen asks again and stays.
        try await tmux.waitFor("has not answered")
        let said = try await tmux.waitFor("unreachable")
        #expect(!said.contains("EXITED="), "\(said)")
        try await tmux.send("Up")
        let still = try await tmux.waitUntil(description: "the selection back by ↑") { Self.selected($0) == before }
        #expect(!still.contains("EXITED="), "\(still)")
        _ = try await Self.quit(tmux)
    }
}

// The screen program in a real terminal: tmux runs it, send-keys types, capture-pane reads.
import Foundation
import Testing

/// One tmux server of our own (its own socket), with one window running `command`.
final class TmuxSession {
    let socket = "storefront-test-\(UUID().uuidString.prefix(8))"
    static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    init(command: String, columns: Int = 100, rows: Int = 30) throws {
        // tmux is part of the test set-up (.ci/run installs it): a missing one fails.
        _ = try #require(Self.executable, "tmux is not installed: .ci/run installs it (apt-get install tmux)")
        try tmux(["-f", "/dev/null", "-u", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
        try tmux(["set-option", "-g", "remain-on-exit", "on"])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    /// Runs tmux with posix_spawn and waitpid: Foundation's Process never saw new-session end,
    /// because the tmux server it forks keeps the descriptors Process watches.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputURL) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let executable = Self.executable ?? "/usr/bin/tmux"
        let argv = ([executable, "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // A minimal environment: the test runner's own (NO_COLOR, COLUMNS, LINES, …) must not leak in.
        let environment = [
            "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": FileManager.default.temporaryDirectory.path,
            "LANG": "C.UTF-8", "TERM": "xterm-256color",
        ]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        // The test runner's threads may block or ignore signals; tmux and what it runs must get
        // SIGWINCH and SIGINT as a terminal would give them.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&noSignals)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGWINCH, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
    }

    func send(_ keys: String...) throws { try tmux(["send-keys", "-t", "0"] + keys) }

    /// Types text literally.
    func type(_ text: String) throws { try tmux(["send-keys", "-t", "0", "-l", text]) }

    func capture(colors: Bool = false) throws -> String {
        try tmux(["capture-pane", "-t", "0", "-p"] + (colors ? ["-e"] : []))
    }

    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", "0", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Waits until the screen contains `text` (or `predicate` holds). `seconds` is a ceiling for a
    /// screen that never comes, generous so that a loaded machine never fails a test by its speed.
    @discardableResult
    func waitFor(
        _ text: String, seconds: Double = 60, colors: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        try waitUntil(seconds: seconds, colors: colors, description: text, sourceLocation: sourceLocation) {
            $0.contains(text)
        }
    }

    @discardableResult
    func waitUntil(
        seconds: Double = 60, colors: Bool = false, description: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        while Date() < deadline {
            screen = try capture(colors: colors)
            if predicate(screen) { return try settled(screen, colors: colors, predicate) }
            usleep(50_000)
        }
        Issue.record("the screen never showed \(description); it shows:\n\(screen)", sourceLocation: sourceLocation)
        return screen
    }

    /// A capture can come while the program is still writing a frame: the first lines new, the
    /// rest not yet. Captures again until two in a row agree (a few tries: a screen that animates
    /// never does), and returns the last one that still holds.
    private func settled(_ first: String, colors: Bool, _ predicate: (String) -> Bool) throws -> String {
        var last = first
        for _ in 0..<10 {
            usleep(50_000)
            let next = try capture(colors: colors)
            guard predicate(next) else { return last }
            if next == last { return next }
            last = next
        }
        return last
    }
}

extension Session {
    /// The shell command that runs the screen program against this session's state folder.
    func screenCommand(arguments: [String] = [], extraEnvironment: [String: String] = [:], then: String = "") -> String
    {
        // Inside tmux the terminal type is tmux's own: its key sequences are what tmux sends.
        let variables = environment.merging(["TERM": "tmux-256color", "LANG": "C.UTF-8"]) { $1 }.merging(
            extraEnvironment
        ) { $1 }
        let assignments = variables.sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let words = arguments.map { " '\($0)'" }.joined()
        return "env -i \(assignments) '\(binary.path)'\(words)\(then)"
    }
}

extension Session {
    /// Runs `command` (the screen by default) from a shell script in tmux, as a person's shell would:
    /// when it ends the script prints `EXITED=status`, and with `modes` stty's report of the terminal.
    func scriptedScreen(_ command: String? = nil, ignoringInterrupts: Bool = false, modes: Bool = false) throws
        -> TmuxSession
    {
        let script = stateDirectory.appendingPathComponent("run-\(UUID().uuidString).sh")
        let lines =
            (ignoringInterrupts ? ["trap '' INT"] : []) + [command ?? screenCommand(), "echo EXITED=$?"]
            + (modes ? ["stty -a"] : []) + ["sleep 60"]
        try (lines.joined(separator: "\n") + "\n").write(to: script, atomically: true, encoding: .utf8)
        return try TmuxSession(command: "sh '\(script.path)'")
    }
}

extension TmuxSession {
    /// Waits for the script of `scriptedScreen(modes: true)` to report the exit and the modes; returns
    /// the screen and the modes' words.
    func waitForExitAndModes() throws -> (screen: String, modes: [String]) {
        // Wait for stty's report too: "EXITED=" alone can be captured before stty has printed.
        let screen = try waitUntil(description: "EXITED= and stty's modes") {
            $0.contains("EXITED=") && $0.contains("icanon") && $0.contains("echoe")
        }
        return (screen, screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    }
}

// The screen program in a real terminal: tmux runs it, send-keys types, capture-pane reads.
import Foundation
import Subprocess
import SystemPackage
import Testing

/// One tmux server of our own (its own socket), with one window running `command`.
final class TmuxSession {
    let socket = "storefront-test-\(UUID().uuidString.prefix(8))"
    static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The tmux server's process: ended at deinit, with every window in it.
    private var serverProcess: pid_t = 0

    init(command: String, columns: Int = 100, rows: Int = 30) async throws {
        // tmux is part of the test set-up (.ci/run installs it): a missing one fails.
        _ = try #require(Self.executable, "tmux is not installed: .ci/run installs it (apt-get install tmux)")
        try await tmux(["-f", "/dev/null", "-u", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
        try await tmux(["set-option", "-g", "remain-on-exit", "on"])
        let pid = try await tmux(["display-message", "-p", "#{pid}"])
        serverProcess = try #require(pid_t(pid.trimmingCharacters(in: .whitespacesAndNewlines)), "tmux's pid: \(pid)")
    }

    /// SIGTERM ends the server and the programs in its windows (they get SIGHUP), as kill-server does.
    deinit { if serverProcess > 0 { kill(serverProcess, SIGTERM) } }

    /// Runs tmux, its output in a file: the server that new-session forks keeps any pipe open, so
    /// only the process's own end is waited for. Subprocess gives the child the default signal
    /// dispositions and an empty mask, so tmux and what it runs get SIGWINCH and SIGINT as a
    /// terminal would give them, whatever the test runner's threads block or ignore.
    @discardableResult
    func tmux(_ arguments: [String]) async throws -> String {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileDescriptor.open(
            FilePath(outputURL.path), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
        // A minimal environment: the test runner's own (NO_COLOR, COLUMNS, LINES, …) must not leak in.
        let environment = [
            "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": FileManager.default.temporaryDirectory.path,
            "LANG": "C.UTF-8", "TERM": "xterm-256color",
        ]
        // Not one of the ProgramSlots: a capture is quick, and one that waited for a slot would miss
        // a screen that shows for a moment (a scenario's caption).
        _ = try await Subprocess.run(
            .path(FilePath(Self.executable ?? "/usr/bin/tmux")), arguments: Arguments(["-L", socket] + arguments),
            environment: .exactly(environment), input: .none,
            output: .fileDescriptor(output, closeAfterSpawningProcess: true), error: .discarded)
        return (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
    }

    func send(_ keys: String...) async throws { try await tmux(["send-keys", "-t", "0"] + keys) }

    /// Types text literally.
    func type(_ text: String) async throws { try await tmux(["send-keys", "-t", "0", "-l", text]) }

    func capture(colors: Bool = false) async throws -> String {
        try await tmux(["capture-pane", "-t", "0", "-p"] + (colors ? ["-e"] : []))
    }

    func resize(columns: Int, rows: Int) async throws {
        try await tmux(["resize-window", "-t", "0", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Waits until the screen contains `text` (or `predicate` holds). `seconds` is a ceiling for a
    /// screen that never comes, generous so that a loaded machine never fails a test by its speed.
    @discardableResult
    func waitFor(
        _ text: String, seconds: Double = 60, colors: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        try await waitUntil(seconds: seconds, colors: colors, description: text, sourceLocation: sourceLocation) {
            $0.contains(text)
        }
    }

    @discardableResult
    func waitUntil(
        seconds: Double = 60, colors: Bool = false, description: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: (String) async -> Bool
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        var pause = PollingPause()
        while Date() < deadline {
            screen = try await capture(colors: colors)
            if await predicate(screen) { return try await settled(screen, colors: colors, predicate) }
            await pause.sleep()
        }
        Issue.record("the screen never showed \(description); it shows:\n\(screen)", sourceLocation: sourceLocation)
        return screen
    }

    /// A capture can come while the program is still writing a frame: the first lines new, the
    /// rest not yet. Captures again until two in a row agree (a few tries: a screen that animates
    /// never does), and returns the last one that still holds.
    private func settled(_ first: String, colors: Bool, _ predicate: (String) async -> Bool) async throws -> String {
        var last = first
        for _ in 0..<10 {
            try await Task.sleep(for: .milliseconds(50))
            let next = try await capture(colors: colors)
            guard await predicate(next) else { return last }
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
    func scriptedScreen(_ command: String? = nil, ignoringInterrupts: Bool = false, modes: Bool = false)
        async throws -> TmuxSession
    {
        let script = stateDirectory.appendingPathComponent("run-\(UUID().uuidString).sh")
        let lines =
            (ignoringInterrupts ? ["trap '' INT"] : []) + [command ?? screenCommand(), "echo EXITED=$?"]
            + (modes ? ["stty -a"] : []) + ["sleep 60"]
        try (lines.joined(separator: "\n") + "\n").write(to: script, atomically: true, encoding: .utf8)
        return try await TmuxSession(command: "sh '\(script.path)'")
    }
}

extension TmuxSession {
    /// Waits for the script of `scriptedScreen(modes: true)` to report the exit and the modes; returns
    /// the screen and the modes' words.
    func waitForExitAndModes() async throws -> (screen: String, modes: [String]) {
        // Wait for stty's report too: "EXITED=" alone can be captured before stty has printed.
        let screen = try await waitUntil(description: "EXITED= and stty's modes") {
            $0.contains("EXITED=") && $0.contains("icanon") && $0.contains("echoe")
        }
        return (screen, screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    }
}

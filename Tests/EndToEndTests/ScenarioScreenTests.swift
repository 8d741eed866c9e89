// The scenario player on the screen, in tmux (D1): play, casts replayed by asciinema, record.
import Foundation
import TestSupport
import Testing

extension ScreenTests {
    @Test("scenario play: a short scenario plays to the end with its captions and screens; q quits")
    func scenarioPlay() async throws {
        let session = try await Session()
        let file = session.stateDirectory.appendingPathComponent("demo.scenario")
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        try """
        caption "A reader buys a comic"
        sign up alice password secret
        buy "Cat Judge"
        expect row "Cat Judge" shows ✓
        pause
        open random
        buy "Random Comics ×5"
        random
        expect views 4
        """.write(to: file, atomically: true, encoding: .utf8)
        // The caption shows for two seconds of the scenario's time (0.67 s at speed 3): a capture may
        // come after it, on a busy machine. The recording has every frame.
        let cast = session.stateDirectory.appendingPathComponent("demo.cast")
        let tmux = try await session.scriptedScreen(
            session.screenCommand(arguments: ["scenario", "play", file.path, "--speed", "3", "--cast", cast.path]))
        let checked = try await tmux.waitFor("Paused — space to continue")
        let catRow = try #require(checked.split(separator: "\n").first { $0.contains("Cat Judge ") })
        #expect(catRow.hasSuffix("✓"), "\(catRow)")
        try await tmux.send("Space")
        try await tmux.waitFor("Random comics left")
        try await tmux.waitFor("Scenario finished: 2 passed, 0 failed")
        try await tmux.send("q")
        let after = try await tmux.waitFor("EXITED=")
        #expect(after.contains("EXITED=0"), "\(after)")
        #expect(try AsciiCast(cast).output.contains("A reader buys a comic"), "the caption is in the recording")
    }
}

extension ScreenTests {
    @Test(
        "D1 scenario play --cast writes the demo as an asciicast v2 recording whose frames end on the finished banner; the sign-up is filled in on the form"
    )
    func scenarioCast() async throws {
        let session = try await Session()
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        let file = session.stateDirectory.appendingPathComponent("cast.scenario")
        let cast = session.stateDirectory.appendingPathComponent("demo.cast")
        try "caption \"Buying a comic\"\nsign up bo\nbuy \"Cat Judge\"\nexpect owned \"Cat Judge\"\n".write(
            to: file, atomically: true, encoding: .utf8)
        let tmux = try await session.scriptedScreen(
            session.screenCommand(arguments: ["scenario", "play", file.path, "--speed", "20", "--cast", cast.path]))
        try await tmux.waitFor("Scenario finished: 1 passed, 0 failed")
        try await tmux.send("q")
        #expect(try await tmux.waitFor("EXITED=").contains("EXITED=0"))
        let recording = try AsciiCast(cast)
        let header = recording.header
        #expect(
            header["version"] as? Int == 2 && (header["width"] as? Int ?? 0) >= 40
                && (header["height"] as? Int ?? 0) >= 12, "\(header)")
        let times = recording.events.compactMap { $0[0] as? Double }
        #expect(times.count == recording.events.count && times == times.sorted(), "times only go forward")
        let output = recording.output
        for text in ["Buying a comic", "Cat Judge", "Scenario finished: 1 passed, 0 failed"] {
            #expect(output.contains(text), "\(text) is in the recording")
        }
        // D1: the sign-up is seen on the form: its fields, the password as dots, the button.
        for text in ["Password", "••••••", "[Sign up]"] {
            #expect(output.contains(text), "the sign-up form shows \(text) in the recording")
        }
    }

    @Test(
        "D1 the flagship scenario, played by name from /, ends on a comic: its picture in many colours and its title above the banner; the footer offers the player's keys"
    )
    func flagshipFinale() async throws {
        let session = try await Session()
        let tmux = try await session.scriptedScreen(
            "cd / && " + session.screenCommand(arguments: ["scenario", "play", "in-app-rage", "--speed", "20"]))
        let paused = try await tmux.waitFor("Paused")
        #expect(
            paused.contains("space next") && paused.contains("q stop") && !paused.contains("b buy"),
            "only the keys that work while playing")
        try await tmux.send("Space")
        let finale = try await tmux.waitFor("Scenario finished: 12 passed, 0 failed", seconds: 180, colors: true)
        let lines = try await tmux.capture().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let banner = try #require(lines.firstIndex { $0.contains("Scenario finished") })
        let title = lines[banner - 1].trimmingCharacters(in: .whitespaces)
        #expect(!title.isEmpty && !title.contains("▀"), "the comic's title sits above the banner: \(lines.suffix(4))")
        #expect(lines[..<banner].filter { $0.contains("▀") }.count >= 10, "the picture fills the viewer")
        let colours = Set(
            finale.components(separatedBy: "48;5;").dropFirst().compactMap {
                $0.split(separator: "m").first.flatMap { Int($0) }
            })
        #expect(colours.count >= 4, "a comic, not a blank: \(colours.count) background colours")
        try await tmux.send("q")
        #expect(try await tmux.waitFor("EXITED=").contains("EXITED=0"))
    }

    @Test(
        "D1 while a scenario plays, checks are small marks at the side of the footer, not banners; a failed check stops the play on its line, in words, exit 1"
    )
    func playedChecks() async throws {
        let session = try await Session()
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        let file = session.stateDirectory.appendingPathComponent("checks.scenario")
        try """
        caption "Buying a comic"
        sign up bo
        buy "Cat Judge"
        expect owned "Cat Judge"
        expect row "Cat Judge" shows ✓
        device tablet
        pause
        expect owned "Night Shift"
        buy "Rain Check"
        """.write(to: file, atomically: true, encoding: .utf8)
        let tmux = try await session.scriptedScreen(
            session.screenCommand(arguments: ["scenario", "play", file.path, "--speed", "20"]))
        let paused = try await tmux.waitFor("Paused")
        // Two devices: a pane each (D2), the player's footer in both, the tablet's on the right.
        let footer = try #require(
            paused.split(separator: "\n").last { $0.contains("space next") }.map(String.init), "\(paused)")
        #expect(
            footer.trimmingCharacters(in: .whitespaces).hasSuffix("✓ 2") && footer.contains("│"),
            "two checks passed, at the side, kept across a device switch: \(footer)")
        #expect(!paused.contains("line 4") && !paused.contains("line 5"), "no banner reads like a test log: \(paused)")
        try await tmux.send("Space")
        let stopped = try await tmux.waitFor("Stopped at line 8")
        #expect(
            stopped.contains("Stopped at line 8 ✗ expect owned \"Night Shift\""),
            "the failed check, in words: \(stopped)")
        #expect(stopped.contains("✓ 2  ✗ 1"), "\(stopped)")
        try await tmux.send("q")
        let after = try await tmux.waitFor("EXITED=")
        #expect(
            after.contains("EXITED=1") && after.contains("stopped at line 8, a check that failed: 2 passed, 1 failed"),
            "\(after)")
        #expect(
            !(try await session.object(["status"])["owned"] as? [String] ?? []).contains(
                "com.storefront.comic.raincheck"),
            "the steps after the failure did not run")
    }

    @Test(
        "D1 Ask to Buy played: the deferred purchase is seen waiting in the transaction manager, and the parent's approval settles it there"
    )
    func askToBuyPlayed() async throws {
        let session = try await Session()
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        let file = session.stateDirectory.appendingPathComponent("ask.scenario")
        try "sign up kid\npolicy defer\nbuy \"Random Comics ×5\"\npause\napprove last\npause\n".write(
            to: file, atomically: true, encoding: .utf8)
        let tmux = try await session.scriptedScreen(
            session.screenCommand(arguments: ["scenario", "play", file.path, "--speed", "20"]))
        let waiting = try await tmux.waitFor("Paused")
        let pendingRow = waiting.split(separator: "\n").first {
            $0.contains("Random Comics ×5") && !$0.contains("purchasing")
        }
        #expect(
            waiting.contains("Log") && pendingRow != nil,
            "the transaction manager, with the request waiting: \(waiting)")
        try await tmux.send("Space")
        let approved = try await tmux.waitUntil(description: "the approval in the log") { screen in
            screen.contains("Paused")
                && screen.split(separator: "\n").contains {
                    $0.contains("Random Comics ×5") && $0.contains("purchased")
                }
        }
        #expect(approved.contains("Log"), "still the transaction manager: \(approved)")
        try await tmux.send("Space")
        try await tmux.waitFor("Scenario finished")
        try await tmux.send("q")
        #expect(try await tmux.waitFor("EXITED=").contains("EXITED=0"))
    }

    @Test("D1 a play stopped part way says how far it got in one line: q and Ctrl-C exit 130, SIGTERM 143")
    func stoppedPlay() async throws {
        let session = try await Session()
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        for (how, status) in [("q", 130), ("C-c", 130), ("TERM", 143)] {
            let file = session.stateDirectory.appendingPathComponent("stop-\(UUID().uuidString).scenario")
            try "sign up bo\nbuy \"Cat Judge\"\nexpect owned \"Cat Judge\"\npause\nbuy \"Night Shift\"\n".write(
                to: file, atomically: true, encoding: .utf8)
            // The shell ignores Ctrl-C, as a login shell does, so that it lives to print the status.
            let tmux = try await session.scriptedScreen(
                session.screenCommand(arguments: ["scenario", "play", file.path, "--speed", "20"]),
                ignoringInterrupts: true)
            try await tmux.waitFor("Paused")
            if how == "TERM" {
                try await runProgram(URL(fileURLWithPath: "/usr/bin/pkill"), ["-TERM", "-f", file.path])
            } else {
                try await tmux.send(how)
            }
            let after = try await tmux.waitFor("EXITED=")
            #expect(after.contains("EXITED=\(status)"), "\(how): \(after)")
            #expect(after.contains("stopped at line 4: 1 passed, 0 failed"), "\(how): \(after)")
        }
    }

    @Test("scenario record: what a person does in tmux becomes a scenario that plays back to the same state")
    func scenarioRecord() async throws {
        let session = try await Session()
        let file = session.stateDirectory.appendingPathComponent("recorded.scenario")
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        let tmux = try await session.scriptedScreen(
            session.screenCommand(arguments: ["scenario", "record", file.path]))
        try await tmux.waitFor("Sign in or sign up")
        try await tmux.type("rita")
        try await tmux.send("Tab")
        try await tmux.type("pw")
        try await tmux.send("Tab", "Tab", "Enter")
        try await tmux.waitFor("Signed in as rita")
        try await tmux.send("b")
        try await tmux.waitFor("Purchased Night Shift")
        try await tmux.send("End", "Up", "Up", "b")
        try await tmux.waitFor("Purchased Random Comics")
        try await tmux.send("End", "b")
        try await tmux.waitFor("Subscribed! Expires:")
        try await tmux.send("q")
        let after = try await tmux.waitFor("EXITED=")
        #expect(after.contains("EXITED=0"), "\(after)")
        let recorded = try String(contentsOf: file, encoding: .utf8)
        #expect(recorded.contains("sign up rita"))
        #expect(recorded.contains("buy \"Night Shift\""))
        #expect(recorded.contains("expect views 5"))
        #expect(recorded.contains("expect header \"Subscribed! Expires: 16/07/2026 (182 Days)\""), "\(recorded)")
        let replay = try await session.run(["scenario", "check", file.path])
        #expect(replay.status == 0, "\(replay)")
        #expect(replay.stdout.contains(" passed, 0 failed"))
    }
}

/// Every shipped scenario, by the name `scenario list` gives it ("in-app-rage", "selfies/billing").
let shippedScenarioNames: [String] = {
    let root = repositoryRoot.appendingPathComponent("assets/scenarios")
    let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    return files.filter { $0.hasSuffix(".scenario") }.map { String($0.dropLast(".scenario".count)) }.sorted()
}()

extension ScreenTests {
    @Test(
        "D1 every shipped scenario plays by name from / to its end, and its cast, replayed by asciinema in another terminal, ends on a frame that is not empty",
        arguments: shippedScenarioNames
    )
    func everyScenarioCast(name: String) async throws {
        let session = try await Session()
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        let cast = session.stateDirectory.appendingPathComponent(
            "\(name.replacingOccurrences(of: "/", with: "-")).cast")
        let tmux = try await session.scriptedScreen(
            "cd / && "
                + session.screenCommand(arguments: ["scenario", "play", name, "--speed", "100", "--cast", cast.path]))
        // Space through the pauses until the scenario says it finished.
        let end = try await tmux.waitUntil(seconds: 300, description: "\(name) finished") { screen in
            if screen.contains("Paused") { _ = try? await tmux.send("Space") }
            return screen.contains("Scenario finished")
        }
        #expect(end.contains(", 0 failed"), "\(name): \(end)")
        try await tmux.send("q")
        #expect(try await tmux.waitFor("EXITED=").contains("EXITED=0"), "\(name)")
        // The judge: asciinema (Debian's package) replays the recording into a terminal of the
        // recording's size; the last frame is what an audience sees at the end.
        let size = try AsciiCast(cast).header
        let replay = try await TmuxSession(
            command: "asciinema cat '\(cast.path)'; sleep 60", columns: size["width"] as? Int ?? 100,
            rows: size["height"] as? Int ?? 30
        )
        let last = try await replay.waitFor("Scenario finished", seconds: 120)
        let drawn = last.filter { !$0.isWhitespace }.count
        #expect(
            drawn > 200, "\(name): the replayed last frame shows the store, not a blank (\(drawn) characters): \(last)")
    }
}

/// An asciicast v2 recording (`scenario play --cast`): its header, its events, and what they wrote.
struct AsciiCast {
    let header: [String: Any]
    /// `[time, kind, data]` each.
    let events: [[Any]]

    init(_ file: URL) throws {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        header = try #require(
            try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any],
            "the recording's first line is its header")
        events = try lines.dropFirst().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any], "an event: \($0)")
        }
    }

    /// Everything the recording wrote to the terminal, in order.
    var output: String { events.compactMap { $0[2] as? String }.joined() }
}

extension ScreenTests {
    @Test(
        "F3 D1 a storefront change played on the screen: dollars, then pounds on the next frame with the change said; the waiting purchase the app let continue is bought in Britain, the one it cancelled fails; the shipped scenario plays to its end"
    )
    func storefrontChangePlayed() async throws {
        let session = try await Session()
        try FileManager.default.createDirectory(at: session.stateDirectory, withIntermediateDirectories: true)
        let file = session.stateDirectory.appendingPathComponent("move.scenario")
        try """
        catalog world.json
        sign up kid password secret
        policy defer
        on-storefront-change cancel
        buy "Night Shift"
        on-storefront-change continue
        buy "Cat Judge"
        open list
        pause
        storefront GBR
        pause
        approve last
        approve last
        open transactions
        pause
        """.write(to: file, atomically: true, encoding: .utf8)
        let tmux = try await session.scriptedScreen(
            session.screenCommand(arguments: ["scenario", "play", file.path, "--speed", "20"]))
        func row(_ screen: String, _ title: String) -> String {
            screen.split(separator: "\n").first { $0.contains(title) }.map(String.init) ?? ""
        }
        let dollars = try await tmux.waitFor("Paused")
        #expect(dollars.split(separator: "\n").first?.hasSuffix("kid · USA") == true, "the title bar: \(dollars)")
        #expect(row(dollars, "Monday Coffee").contains("$0.99"), "\(dollars)")
        #expect(row(dollars, "Rain Check").contains("Not sold in this storefront"), "\(dollars)")
        try await tmux.send("Space")
        let pounds = try await tmux.waitUntil(description: "the list in pounds") { screen in
            screen.contains("Paused") && row(screen, "Monday Coffee").contains("£0.79")
        }
        // Storefront.updates: the title bar says where the account buys now (the banner that says
        // the change is ReduceTests' to see: here the pause's prompt stands in its place).
        #expect(pounds.split(separator: "\n").first?.hasSuffix("kid · GBR") == true, "the title bar: \(pounds)")
        #expect(row(pounds, "Rain Check").contains("£0.99") && row(pounds, "Deploy Friday").contains("Not sold"))
        try await tmux.send("Space")
        func logged(_ screen: String, _ title: String, _ state: String) -> Bool {
            screen.split(separator: "\n").contains { $0.contains(title) && $0.contains(state) }
        }
        let settled = try await tmux.waitUntil(description: "both answers in the log") { screen in
            screen.contains("Paused") && logged(screen, "Cat Judge", "purchased")
                && logged(screen, "Night Shift", "failed: the product is not available in this storefront")
        }
        #expect(settled.contains("GBR · GBP"), "the transaction manager names the storefront: \(settled)")
        try await tmux.send("Space")
        try await tmux.waitFor("Scenario finished")
        try await tmux.send("q")
        #expect(try await tmux.waitFor("EXITED=").contains("EXITED=0"))

        // The shipped scenario, by name: every check passes (a later purchase signed GBR included).
        let shipped = try await session.scriptedScreen(
            "cd / && " + session.screenCommand(arguments: ["scenario", "play", "storefront-change", "--speed", "50"]))
        try await shipped.waitFor("Scenario finished: 19 passed, 0 failed", seconds: 180)
        try await shipped.send("q")
        #expect(try await shipped.waitFor("EXITED=").contains("EXITED=0"))
    }
}

// Plays a scenario on the screen for an audience: the selection walks to each product before it
// is bought, captions show in the banner, each passed expectation is a small ✓ at the side of the
// footer (an audience sees the story, not a test log), a failed one stops the play on its line for
// the author, `pause` waits for space, and q stops. The pace is the terminal's input timeout, so
// keys work at any moment.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

public final class ScenarioPlayer {
    private let runner: ScenarioRunner
    private let terminal: FrameRendering & EventListening
    /// The devices' panes (D2): one, the whole terminal, unless the story moves between devices.
    private let wall: DeviceWall
    /// The screen the story is on now.
    private var app: App { wall.focused.app }
    private var playedStore: ObjectIdentifier
    /// 1 is the demo pace; larger is faster.
    public var speed: Double
    public private(set) var passed = 0
    public private(set) var failed = 0
    /// Why the play stopped before its end, and the line it was at; nil when it ran to the end.
    public enum Stop: Equatable, Sendable { case key, interrupt }
    public private(set) var stopped: Stop?
    public private(set) var line = 0
    /// The line of the check that failed, which ended the play.
    public private(set) var failedLine: Int?

    public init(
        runner: ScenarioRunner, terminal: FrameRendering & EventListening, pictures: PictureCache, speed: Double
    ) {
        self.runner = runner
        self.terminal = terminal
        self.speed = max(0.05, speed)
        wall = DeviceWall(terminal: terminal, pictures: pictures)
        // The story's other devices wait for it to come to them: only the one it is on ticks.
        wall.ticksEveryPane = false
        wall.takesKeys = false
        wall.add(device: runner.device, store: LiveStore(store: runner.store))
        playedStore = ObjectIdentifier(runner.store)
        app.dispatch(.playing(true))
    }

    /// The devices a story moves between, in the order it reaches them, the one it starts on first.
    public static func devices(in steps: [ScenarioStep], startingOn first: String) -> [String] {
        var names = [first]
        for step in steps {
            if case .device(let name) = step.kind, !names.contains(where: { $0.lowercased() == name.lowercased() }) {
                names.append(name)
            }
        }
        return names
    }

    /// Every pane hears it (the player's footer and its marks are on each).
    private func broadcast(_ action: Action) {
        for pane in wall.panes { pane.app.dispatch(action) }
    }

    /// Plays every step; returns false when the viewer stopped it with q.
    @discardableResult
    public func play(_ steps: [ScenarioStep], file: String) -> Bool {
        // D2: a story on two or three devices plays in a pane each, side by side; with more, on one screen.
        let devices = Self.devices(in: steps, startingOn: runner.device)
        if (2...3).contains(devices.count), wall.panes.count == 1 {
            for name in devices.dropFirst() {
                wall.add(device: name, store: WaitingStore(catalog: runner.catalog, device: name))
            }
            broadcast(.playing(true))
        }
        for step in steps {
            line = step.line
            // The rail tells the account steps the runner takes off screen.
            switch step.kind {
            case .signIn(let name, let password):
                wall.note(device: runner.device, .signIn(name: name, password: password))
            case .signUp(let name, let password):
                wall.note(device: runner.device, .signUp(name: name, password: password))
            case .signOut: wall.note(device: runner.device, .signOut)
            case .restore: wall.note(device: runner.device, .restore)
            default: break
            }
            guard perform(step) else { return false }
            // A failure stops the story where it went wrong, for the author to see.
            if failedLine != nil { break }
        }
        if let failedLine {
            // Where the play stopped first, then the failed check in words (the footer's marks
            // count; q quits).
            let check = app.state.banner?.text.replacingOccurrences(of: "✗ line \(failedLine): ", with: "") ?? ""
            app.dispatch(.showBanner(Banner("Stopped at line \(failedLine) ✗ \(check)", kind: .failure)))
        } else {
            app.dispatch(
                .showBanner(Banner("Scenario finished: \(passed) passed, \(failed) failed — q to quit", kind: .success))
            )
        }
        // Finished: whichever key or signal closes the last frame, the scenario ran to its end.
        _ = waitForKey(["q"])
        stopped = nil
        return true
    }

    private func perform(_ step: ScenarioStep) -> Bool {
        switch step.kind {
        case .caption(let text):
            app.dispatch(.showBanner(Banner(text)))
            return wait(seconds: 2)
        case .pause:
            app.dispatch(.showBanner(Banner("Paused — space to continue, q to stop")))
            guard waitForKey([" "]) == " " else { return false }
            // Once it goes on, the screen no longer says it is paused.
            app.dispatch(.clearBanner)
            return true
        case .open(let screen):
            switch screen.lowercased() {
            case "random": app.dispatch(.navigate(.random))
            case "transactions": app.dispatch(.navigate(.transactions))
            default:
                // `open "PRODUCT"`: the selection walks to its row, and its detail view opens (C8).
                guard let product = runner.product(named: screen) else {
                    app.dispatch(.navigate(.products))
                    break
                }
                guard walk(to: product.id) else { return false }
                app.dispatch(.navigate(.detail(product.id)))
            }
            return wait(seconds: 0.8)
        case .buy(let name, _), .buyBilled(let name, _), .buyIntro(let name, _):
            // The audience sees the selection walk to the row, then the purchase.
            if let product = runner.product(named: name) {
                guard walk(to: product.id) else { return false }
            } else {
                app.dispatch(.navigate(.products))
            }
            guard run(step) else { return false }
            // Ask to Buy: the request is seen waiting in the transaction manager, where the
            // parent's answer will come.
            if runner.lastTransaction?.state == .deferred {
                app.dispatch(.navigate(.transactions))
                return wait(seconds: 1.2)
            }
            return true
        case .signUp(let name, let password), .signIn(let name, let password):
            // The audience sees the form filled in: the name typed, the password as dots, the
            // button chosen; then the account is made (or opened) as the step says.
            guard
                fillIn(
                    name: name, password: password,
                    button: { if case .signUp = step.kind { .signUp } else { .signIn } }())
            else { return false }
            let done = run(step, pause: false)
            app.dispatch(.navigate(.products))
            return done && wait(seconds: 0.8)
        case .plan(.cancel, let name), .retention(.accept(let name)):
            // M2: the customer opens the plan to cancel it where a tester does, the transaction
            // manager; what the developer's endpoint chose is seen first, then the answer.
            app.dispatch(.navigate(.transactions))
            if let shown = runner.retentionPreview(of: name), !shown.isQuiet, let product = runner.product(named: name),
                let sheet = try? RetentionSheet(productID: product.id, offer: shown, store: runner.store)
            {
                app.dispatch(.retentionShown(sheet))
                guard wait(seconds: 3) else { return false }
                app.dispatch(.retentionShown(nil))
            }
            return run(step)
        case .approve, .decline, .resolve:
            // The answer is given where a tester gives it: the transaction manager, whose log
            // shows the waiting purchase settle.
            app.dispatch(.navigate(.transactions))
            guard wait(seconds: 0.6) else { return false }
            return run(step) && wait(seconds: 0.8)
        case .random:
            // The audience sees the comic drawn, as the viewer's `n` shows it.
            let before = runner.lastRandom
            let done = run(step, pause: false)
            if let drawn = runner.lastRandom, drawn != before {
                app.dispatch(.navigate(.random))
                app.dispatch(.randomShown(drawn))
            }
            return done && wait(seconds: 1.5)
        case .uploadReceipt:
            // V10: what the app's backend answered its receipt is seen in the banner.
            let done = run(step, pause: false)
            if let answer = runner.lastUpload { app.dispatch(.showBanner(Banner("SelfieService: \(answer)"))) }
            return done && wait(seconds: 2)
        default:
            return run(step)
        }
    }

    /// Runs a step through the scenario runner, then shows what it did (and lets it be seen,
    /// unless `pause` is false).
    private func run(_ step: ScenarioStep, pause: Bool = true) -> Bool {
        do {
            if let expectation = try runner.step(step) {
                if expectation.passed { passed += 1 } else { failed += 1 }
                broadcast(.checks(PlayChecks(passed: passed, failed: failed)))
                if !expectation.passed {
                    let text =
                        "✗ line \(expectation.line): \(expectation.text)\(expectation.detail.map { " — \($0)" } ?? "")"
                    app.dispatch(.showBanner(Banner(text, kind: .failure)))
                    failedLine = expectation.line
                }
            }
        } catch {
            failed += 1
            broadcast(.checks(PlayChecks(passed: passed, failed: failed)))
            app.dispatch(.showBanner(Banner("✗ line \(step.line): \(error)", kind: .failure)))
            failedLine = step.line
        }
        if ObjectIdentifier(runner.store) != playedStore {
            // A `device`, `restart` or `reset device` step: watch the store the scenario now uses,
            // in its device's pane, which the story moves to.
            wall.focus(device: runner.device)
            let app = wall.replace(device: runner.device, store: LiveStore(store: runner.store))
            playedStore = ObjectIdentifier(runner.store)
            app.dispatch(.playing(true))
            app.dispatch(.checks(PlayChecks(passed: passed, failed: failed)))
        }
        // A crashed app does nothing until `restart`: no tick, so no recovery that the scenario
        // says has not happened yet (crash-after-payment's "expect views 0").
        if runner.isDown { wall.collectRail() } else { wall.refresh() }
        wall.draw()
        return pause ? wait(seconds: step.isExpectation ? 0.4 : 0.8) : true
    }

    /// Types `name` and `password` into the sign-in form as a person would and moves to `button`;
    /// false when q stops the play.
    private func fillIn(name: String, password: String, button: SignInForm.Field) -> Bool {
        app.dispatch(.navigate(.signIn))
        func focus(_ field: SignInForm.Field) {
            var moves = 0
            while app.state.form.focus != field, moves < SignInForm.Field.allCases.count {
                app.dispatch(.command(.nextField))
                moves += 1
            }
        }
        focus(.name)
        while !app.state.form.name.isEmpty { app.dispatch(.command(.erase)) }
        guard wait(seconds: 0.4) else { return false }
        for character in name {
            app.dispatch(.key(.character(character)))
            guard wait(seconds: 0.08) else { return false }
        }
        focus(.password)
        while !app.state.form.password.isEmpty { app.dispatch(.command(.erase)) }
        for character in password {
            app.dispatch(.key(.character(character)))
            guard wait(seconds: 0.05) else { return false }
        }
        focus(button)
        return wait(seconds: 0.6)
    }

    /// q, Escape, Ctrl-C or a signal: the play stops, and `stopped` says how.
    private func stops(_ event: TerminalEvent) -> Bool {
        switch event {
        case .key(.character("q")), .key(.escape): stopped = .key
        case .interrupt: stopped = .interrupt
        default: return false
        }
        return true
    }

    /// Shows the screen for `seconds` at the current speed; false when q (or Ctrl-C) stops it.
    /// The product list, its selection walking to `productID`'s row for the audience to see.
    private func walk(to productID: String) -> Bool {
        app.dispatch(.navigate(.products))
        guard let target = app.state.snapshot?.rows.firstIndex(where: { $0.product.id == productID }) else {
            return true
        }
        while app.state.selection != target {
            app.dispatch(.command(app.state.selection < target ? .down : .up))
            guard wait(seconds: 0.15) else { return false }
        }
        return true
    }

    private func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds / speed)
        repeat {
            wall.draw()
            let remaining = Int(max(1, deadline.timeIntervalSinceNow * 1000))
            let event = terminal.nextEvent(timeoutMilliseconds: min(remaining, 100))
            if stops(event) { return false }
            switch event {
            case .key(.character(" ")): return true
            case .key(.character("+")), .key(.character("=")): speed = min(speed * 2, 64)
            case .key(.character("-")): speed = max(speed / 2, 0.25)
            case .resize: wall.handle(event)
            default: break
            }
        } while Date() < deadline
        return true
    }

    /// Waits for one of `keys` (q always stops). Returns the key, or nil when stopped.
    private func waitForKey(_ keys: Set<Character>) -> Character? {
        while true {
            wall.draw()
            let event = terminal.nextEvent(timeoutMilliseconds: 250)
            if case .key(.character(let character)) = event, keys.contains(character) { return character }
            if stops(event) { return nil }
            switch event {
            case .resize: wall.handle(event)
            case .timeout: if !runner.isDown { wall.refresh() }
            default: break
            }
        }
    }
}

// `storefront scenario check FILE…`: runs scenarios headless, each in its own temporary state.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import StorefrontApp
import TerminalUI

/// A scenario file's name and steps, or the one line that says why not (naming the path as typed).
func loadScenario(_ path: String) throws(ScenarioError) -> (name: String, steps: [ScenarioStep]) {
    let name = URL(fileURLWithPath: path).lastPathComponent
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        let reason =
            FileManager.default.fileExists(atPath: path)
            ? "cannot be read" : "no such file, and no shipped scenario of that name (`storefront scenario list`)"
        throw ScenarioError(file: path, line: 0, message: reason)
    }
    return (name, try ScenarioParser.parse(text, file: name))
}

/// The scenario a person named: a file, else a shipped scenario by its name with or without
/// `.scenario` (`in-app-rage`, `selfies/win-back`), so that shipped ones play from any folder.
func scenarioPath(_ typed: String, common: CommonOptions) -> String {
    if FileManager.default.fileExists(atPath: typed) { return typed }
    let wanted = typed.hasSuffix(".scenario") ? typed : typed + ".scenario"
    let shipped = shippedScenarios(common)
    return shipped.first { $0.hasSuffix("/scenarios/" + wanted) }
        ?? shipped.first { URL(fileURLWithPath: $0).lastPathComponent == wanted }
        ?? typed
}

/// The catalog a scenario runs on: the one its `catalog FILE` step names (beside the scenario,
/// else a shipped file of that name), else the command line's. One clear line when it cannot be
/// found or read.
func scenarioCatalog(_ steps: [ScenarioStep], path: String, name: String, common: CommonOptions) throws -> LoadedCatalog
{
    guard case .catalog(let file)? = steps.first?.kind else { return try Context.loadCatalog(common) }
    let beside = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(file)
    var candidates = [file.hasPrefix("/") ? URL(fileURLWithPath: file) : beside]
    if let assets = Context.locateAssets(common.assets) { candidates.append(assets.appendingPathComponent(file)) }
    guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
        throw CommandFailure(
            message:
                "\(name):\(steps[0].line): catalog \"\(file)\" is neither beside the scenario nor a shipped catalog",
            status: 2)
    }
    var options = common
    options.catalog = found.path
    return try Context.loadCatalog(options)
}

/// Every shipped scenario, in the shipped folder and the folders under it, in order.
func shippedScenarios(_ common: CommonOptions) -> [String] {
    guard let assets = Context.locateAssets(common.assets) else { return [] }
    let folder = assets.appendingPathComponent("scenarios")
    let found = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
    return found.filter { $0.hasSuffix(".scenario") }.sorted().map { folder.appendingPathComponent($0).path }
}

/// A temporary state folder for one scenario, removed after `body`: a scenario never touches a
/// real store.
func withScenarioFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "storefront-scenario-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Scenarios: plain-text demos and edge-case tests (assets/scenarios).",
        subcommands: [Check.self, Play.self, Record.self, List.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The shipped scenarios, each with its one-line story.")
        @OptionGroup var catalogOptions: CatalogOptions

        func run() throws {
            let paths = shippedScenarios(catalogOptions.common)
            let folder = "/scenarios/"
            let names = paths.map { path in
                let relative =
                    path.range(of: folder, options: .backwards).map { String(path[$0.upperBound...]) } ?? path
                return String(relative.dropLast(".scenario".count))
            }
            let width = names.map(\.count).max() ?? 0
            for (name, path) in zip(names, paths) {
                print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + Self.story(path))
            }
        }

        /// The first sentence of the file's opening comment.
        static func story(_ path: String) -> String {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let comment = text.split(separator: "\n").prefix { $0.hasPrefix("#") }
                .map { $0.dropFirst().trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            guard let end = comment.range(of: ". ") else { return comment }
            return String(comment[..<end.lowerBound]) + "."
        }
    }

    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open the screen on a fresh store and write what you do as a scenario (q to finish)."
        )
        @Argument(help: "The scenario file to write.") var file: String
        @OptionGroup var catalogOptions: CatalogOptions

        func run() throws {
            let common = catalogOptions.common
            try requireTerminal()
            try reportingFailures {
                let loaded = try Context.loadCatalog(common)
                // A fresh store on the scenarios' own calendar and start, so that the recording
                // plays back to the same state.
                try withScenarioFolder { folder in
                    var utc = Calendar(identifier: .gregorian)
                    utc.timeZone = TimeZone(identifier: "UTC")!
                    let factory = try StoreFactory(
                        stateDirectory: StateDirectory(folder), catalog: loaded.catalog, calendar: utc,
                        time: .shared(override: nil))
                    try factory.server.setClockSetting(ClockSetting(mode: .frozen, frozenAt: ScenarioRunner.start))
                    factory.passwordHasher = PasswordHasher(cost: 1 << 10)
                    factory.randomIndex = { _ in 0 }
                    let store = try factory.open(device: "phone")
                    let recorder = ScenarioRecorder(
                        catalog: loaded.catalog, title: "Recorded \(ISO8601DateFormatter().string(from: Date()))")
                    try withScreen(log: folder.appendingPathComponent("storefront.log")) { terminal in
                        let app = App(
                            store: LiveStore(store: store), terminal: terminal,
                            pictures: PictureCache(root: loaded.imageRoot, catalog: loaded.catalog), route: .signIn)
                        app.onEffect = { recorder.record($0) }
                        app.run()
                    }
                    recorder.finish(with: try store.entitlements.status())
                    do {
                        try recorder.text.write(toFile: file, atomically: true, encoding: .utf8)
                    } catch {
                        throw CommandFailure(message: "\(file): cannot be written", status: 3)
                    }
                    print("recorded \(recorder.lines.count) lines to \(file)")
                }
            }
        }
    }

    struct Play: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Play a scenario on the screen for an audience: captions in the banner, pauses wait for space, q stops."
        )
        @Argument(help: "The scenario file, or a shipped scenario's name (`storefront scenario list`).") var file:
            String
        @Option(help: "Pace: 1 is a demo, 2 twice as fast, 0.5 slower.") var speed: Double = 1
        @Option(
            help: ArgumentHelp(
                "Also write the demo as an asciicast v2 recording (asciinema's players read it).",
                valueName: "file.cast"))
        var cast: String?
        @OptionGroup var catalogOptions: CatalogOptions

        func run() throws {
            let common = catalogOptions.common
            try reportingFailures {
                guard speed > 0, speed <= 100 else {
                    throw CommandFailure(message: "--speed must be more than 0 and at most 100", status: 2)
                }
                // What was typed is checked before the terminal: a missing file is the first thing to say.
                let file = scenarioPath(file, common: common)
                let scenario: (name: String, steps: [ScenarioStep])
                do {
                    scenario = try loadScenario(file)
                } catch let error as ScenarioError {
                    throw CommandFailure(message: error.description, status: 2)
                }
                let loaded = try scenarioCatalog(scenario.steps, path: file, name: scenario.name, common: common)
                try requireTerminal()
                // A recording that cannot be written is said before the screen opens.
                if let cast, !FileManager.default.createFile(atPath: cast, contents: nil) {
                    throw CommandFailure(message: "\(cast): cannot be written", status: 2)
                }
                try withScenarioFolder { folder in
                    let runner = try ScenarioRunner(catalog: loaded.catalog, stateDirectory: folder)
                    var failed = 0
                    var passed = 0
                    var line = 0
                    var stopped: ScenarioPlayer.Stop?
                    var failedLine: Int?
                    try withScreen(log: folder.appendingPathComponent("storefront.log")) { curses in
                        var terminal: FrameRendering & EventListening = curses
                        if let cast {
                            let writer: AsciicastWriter
                            do {
                                writer = try AsciicastWriter(
                                    url: URL(fileURLWithPath: cast), size: curses.size,
                                    title: "Storefront: \(scenario.name)")
                            } catch {
                                throw CommandFailure(message: "\(error)", status: 2)
                            }
                            terminal = RecordingTerminal(curses, writer: writer)
                        }
                        let player = ScenarioPlayer(
                            runner: runner, terminal: terminal,
                            pictures: PictureCache(root: loaded.imageRoot, catalog: loaded.catalog), speed: speed)
                        player.play(scenario.steps, file: scenario.name)
                        (failed, passed, line, stopped) = (player.failed, player.passed, player.line, player.stopped)
                        failedLine = player.failedLine
                    }
                    // One line once the screen is gone: how far it got, and what passed.
                    let tally = "\(passed) passed, \(failed) failed"
                    switch stopped {
                    case .key?, .interrupt?:
                        let signal = stopped == .interrupt ? TerminalSignals.lastSignal : SIGINT
                        FileHandle.standardError.write(
                            Data("storefront: \(scenario.name) stopped at line \(line): \(tally)\n".utf8))
                        throw ExitCode(128 + (signal == SIGTERM ? SIGTERM : SIGINT))
                    case nil:
                        print(
                            "\(scenario.name): "
                                + (failedLine.map { "stopped at line \($0), a check that failed: " } ?? "") + tally)
                    }
                    if failed > 0 { throw ExitCode(1) }
                }
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Run scenarios without a screen; each expectation passes or fails with its line. Exit 1 if any failed."
        )
        @Argument(help: "Scenario files or shipped scenarios' names (default: every shipped one).") var files:
            [String] = []
        @OptionGroup var catalogOptions: CatalogOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() throws {
            let common = catalogOptions.common
            try reportingFailures {
                let paths = files.isEmpty ? shippedScenarios(common) : files.map { scenarioPath($0, common: common) }
                guard !paths.isEmpty else {
                    throw CommandFailure(message: "no scenario files given or shipped", status: 2)
                }
                var results: [ScenarioResult] = []
                for path in paths { results.append(try Self.check(path, common: common)) }
                Self.print(results, json: json)
                let failed = results.filter { !$0.passed }
                if results.contains(where: { $0.error != nil && $0.expectations.isEmpty && $0.error?.line == 0 }) {
                    throw ExitCode(2)
                }
                if !failed.isEmpty { throw ExitCode(1) }
            }
        }

        static func check(_ path: String, common: CommonOptions) throws -> ScenarioResult {
            let scenario: (name: String, steps: [ScenarioStep])
            do {
                scenario = try loadScenario(path)
            } catch {
                return ScenarioResult(file: error.file, expectations: [], error: error)
            }
            let catalog = try scenarioCatalog(scenario.steps, path: path, name: scenario.name, common: common).catalog
            return try withScenarioFolder { folder in
                try ScenarioRunner(catalog: catalog, stateDirectory: folder).run(scenario.steps, file: scenario.name)
            }
        }

        static func print(_ results: [ScenarioResult], json: Bool) {
            if json {
                struct Checked: Encodable {
                    struct Expectation: Encodable {
                        var line: Int
                        var text: String
                        var passed: Bool
                        var detail: String?
                    }
                    var file: String
                    var passed: Bool
                    var error: String?
                    var expectations: [Expectation]
                }
                let value = results.map { result in
                    Checked(
                        file: result.file, passed: result.passed, error: result.error?.description,
                        expectations: result.expectations.map {
                            Checked.Expectation(line: $0.line, text: $0.text, passed: $0.passed, detail: $0.detail)
                        })
                }
                Swift.print(OutputEncoder.encode(value).rendered())
                return
            }
            var passed = 0
            var failed = 0
            for result in results {
                Swift.print(result.file)
                for expectation in result.expectations {
                    if expectation.passed { passed += 1 } else { failed += 1 }
                    let mark = expectation.passed ? "✓" : "✗"
                    Swift.print(
                        "  \(mark) line \(expectation.line): \(expectation.text)"
                            + (expectation.detail.map { " — \($0)" } ?? ""))
                }
                if let error = result.error {
                    failed += 1
                    Swift.print("  ✗ \(error.description)")
                }
            }
            Swift.print("scenarios: \(passed) passed, \(failed) failed")
        }
    }
}

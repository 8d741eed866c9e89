// The pages say what the program prints, and this suite holds them to it: every command block of
// README.md and docs/ is run against the real binary, and what the page shows after a command must
// be in what the command printed. A page that drifts from the program fails here.
//
// A page's conventions:
// - ```console blocks are run: `$ command` lines (a trailing `\` continues one), each followed by
//   lines of its output, each of which must appear, in order (`…` stands for any text). A command
//   must exit 0 unless a line `(exit N)` says otherwise.
// - ```sh, ```bash and ```python blocks are commands a reader runs elsewhere (the screen, a server
//   that keeps running, an install); each needs `<!-- not run: why -->` on the line before it.
// - Blocks of one page share a state folder (a fresh one per page), in order; each block is one
//   shell, so `export` lasts to the block's end. `storefront` is the built binary; the working
//   folder is an empty one where `assets`, `Tests` and `scripts` lead to the repository's.
import Foundation
import Testing

struct DocsPage: CustomStringConvertible, Sendable {
    let path: String
    var description: String { path }

    struct Command: Sendable {
        let line: Int
        let text: String
        var expected: [String] = []
        var exitStatus: Int32 = 0
    }

    enum Block: Sendable {
        case run(line: Int, commands: [Command])
        case shown(line: Int, language: String, reason: String?)
    }

    static let all: [DocsPage] = {
        let docs =
            (try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path))
            ?? []
        return [DocsPage(path: "README.md")]
            + docs.filter { $0.hasSuffix(".md") }.sorted().map { DocsPage(path: "docs/\($0)") }
    }()

    func blocks() throws -> [Block] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard line.hasPrefix("```"), line.count > 3 else {
                index += 1
                continue
            }
            let language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            let start = index + 1
            var end = start
            while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
            let body = Array(lines[start..<min(end, lines.count)])
            if language == "console" {
                blocks.append(.run(line: start, commands: Self.commands(body, firstLine: start + 1)))
            } else if ["sh", "bash", "python", "shell"].contains(language) {
                let before = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
                let reason = before.hasPrefix("<!-- not run:") ? before : nil
                blocks.append(.shown(line: start, language: language, reason: reason))
            }
            index = end + 1
        }
        return blocks
    }

    static func commands(_ body: [String], firstLine: Int) -> [Command] {
        var commands: [Command] = []
        var continuing = false
        for (offset, line) in body.enumerated() {
            if continuing, var last = commands.popLast() {
                last = Command(
                    line: last.line, text: last.text + "\n" + line, expected: last.expected, exitStatus: last.exitStatus
                )
                commands.append(last)
                continuing = line.hasSuffix("\\")
            } else if line.hasPrefix("$ ") {
                commands.append(Command(line: firstLine + offset, text: String(line.dropFirst(2))))
                continuing = line.hasSuffix("\\")
            } else if !commands.isEmpty {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("(exit "), let status = Int32(trimmed.dropFirst(6).dropLast()) {
                    commands[commands.count - 1].exitStatus = status
                } else if !trimmed.isEmpty {
                    commands[commands.count - 1].expected.append(trimmed)
                }
            }
        }
        return commands
    }
}

/// A folder to run a page's commands in: its own state, and links to the repository's folders.
final class DocsWorkspace {
    let folder: URL
    var work: URL { folder.appendingPathComponent("work") }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        for name in ["assets", "Tests", "scripts"] {
            try FileManager.default.createSymbolicLink(
                at: work.appendingPathComponent(name), withDestinationURL: repositoryRoot.appendingPathComponent(name))
        }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Runs a block's commands in one shell; what each printed (standard output and error) and its status.
    func run(_ commands: [DocsPage.Command]) async throws -> [(output: String, status: Int32)] {
        var script = "cd \(work.path)\n"
        for (index, command) in commands.enumerated() {
            script += "echo '@@@start \(index)'\n{ \(command.text)\n} 2>&1\necho \"@@@end \(index) $?\"\n"
        }
        // Each block's commands write their errors into standard output (2>&1 above); the shell's
        // own complaints, if any, come after.
        let result = try await runProgram(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: [
                "PATH": "\(storefrontBinary.deletingLastPathComponent().path):/usr/bin:/bin",
                "HOME": folder.path, "TZ": "UTC", "STOREFRONT_STATE_DIR": folder.appendingPathComponent("state").path,
                "STOREFRONT_PASSWORD": "secret", "LANG": "C.UTF-8", "NO_COLOR": "1",
            ])
        let printed = result.stdout + result.stderr
        var results: [(output: String, status: Int32)] = []
        var current: [Substring] = []
        for line in printed.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("@@@start ") {
                current = []
            } else if line.hasPrefix("@@@end ") {
                let status = Int32(line.split(separator: " ").last ?? "") ?? -1
                results.append((current.joined(separator: "\n"), status))
            } else {
                current.append(line)
            }
        }
        return results
    }
}

/// Does `expected` (with `…` for any text) stand in one of `lines` from `start` on? The index after it.
func docsMatch(_ expected: String, in lines: [Substring], from start: Int) -> Int? {
    let parts = expected.components(separatedBy: "…").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
        !$0.isEmpty
    }
    for index in start..<lines.count {
        var position = lines[index].startIndex
        var matched = true
        for part in parts {
            guard let found = lines[index].range(of: part, range: position..<lines[index].endIndex) else {
                matched = false
                break
            }
            position = found.upperBound
        }
        if matched { return index + 1 }
    }
    return nil
}

@Suite("The README and docs say what the program does")
struct DocsTests {
    @Test("every console block of a page runs and prints what the page says", arguments: DocsPage.all)
    func page(_ page: DocsPage) async throws {
        let workspace = try DocsWorkspace()
        for block in try page.blocks() {
            guard case .run(let line, let commands) = block else { continue }
            let results = try await workspace.run(commands)
            #expect(
                results.count == commands.count,
                "\(page):\(line): the block stopped after \(results.count) of \(commands.count) commands")
            for (command, result) in zip(commands, results) {
                let place = "\(page):\(command.line): $ \(command.text)"
                #expect(result.status == command.exitStatus, "\(place) exited \(result.status)\n\(result.output)")
                let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
                var from = 0
                for expected in command.expected {
                    guard let next = docsMatch(expected, in: lines, from: from) else {
                        Issue.record("\(place): the page says \"\(expected)\", but it printed:\n\(result.output)")
                        break
                    }
                    from = next
                }
            }
        }
    }

    @Test("every page runs something, and every block that is not run says why")
    func unrun() throws {
        for page in DocsPage.all {
            let blocks = try page.blocks()
            for case .shown(let line, let language, let reason) in blocks where reason == nil {
                Issue.record(
                    "\(page):\(line): a \(language) block is neither a console block nor marked <!-- not run: why -->")
            }
        }
        let running = try DocsPage.all.filter { page in
            try page.blocks().contains { if case .run = $0 { true } else { false } }
        }
        #expect(running.count >= 8, "pages with console blocks: \(running)")
    }

    @Test("links stay inside the repository or go to public sites, and every relative link leads to a file")
    func links() throws {
        let pattern = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        for page in DocsPage.all {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(page.path), encoding: .utf8)
            let folder = repositoryRoot.appendingPathComponent(page.path).deletingLastPathComponent()
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let target = String(text[Range(match.range(at: 1), in: text)!])
                if target.hasPrefix("https://") || target.hasPrefix("#") { continue }
                #expect(!target.hasPrefix("http:") && !target.contains("../shared"), "\(page): \(target)")
                let file = folder.appendingPathComponent(String(target.split(separator: "#").first ?? ""))
                #expect(
                    file.standardizedFileURL.path.hasPrefix(repositoryRoot.standardizedFileURL.path),
                    "\(page): \(target) leaves the repository")
                #expect(FileManager.default.fileExists(atPath: file.path), "\(page): \(target) leads nowhere")
            }
        }
    }

    @Test("every decision record has its three parts and names files of the repository, each of which exists")
    func decisionRecords() throws {
        let folder = repositoryRoot.appendingPathComponent("docs/decisions")
        let records = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }
            .sorted()
        #expect(records.count >= 3, "\(records)")
        let path = try Regex(#"(Sources|Tests|scripts|Benchmarks|assets)/[A-Za-z0-9_./+-]*[A-Za-z0-9_+-]"#)
        for record in records {
            let text = try String(contentsOf: folder.appendingPathComponent(record), encoding: .utf8)
            for part in ["## Context", "## Decision", "## Consequences"] {
                #expect(text.contains(part), "\(record) has no \(part)")
            }
            let named = text.matches(of: path).map { String(text[$0.range]) }
            #expect(!named.isEmpty, "\(record) names no file")
            for file in named {
                #expect(
                    FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(file).path),
                    "\(record) names \(file), which does not exist")
            }
        }
    }

    @Test(
        "BENCHMARKS.md: at most 200 lines, and its table of targets is the bench's own: every row a target `storefront-bench --targets` names, every target a row"
    )
    func benchmarks() async throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("BENCHMARKS.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        #expect(lines.count <= 200, "BENCHMARKS.md has \(lines.count) lines")
        let table = lines.drop { $0 != "## Every target" }.dropFirst().drop { !$0.hasPrefix("|") }.prefix {
            $0.hasPrefix("|")
        }.dropFirst(2)
        let rows = table.map { $0.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        let bench = storefrontBinary.deletingLastPathComponent().appendingPathComponent("storefront-bench")
        let listed = try await runProgram(bench, ["--targets"])
        #expect(listed.status == 0, "\(listed)")
        let goals = listed.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
        #expect(goals.count >= 30, "\(listed.stdout)")
        #expect(Set(rows).subtracting(goals).isEmpty, "rows no target names: \(Set(rows).subtracting(goals))")
        #expect(Set(goals).subtracting(rows).isEmpty, "targets with no row: \(Set(goals).subtracting(rows))")
    }

    @Test("README.md: at most 160 lines, and its first code block gives the two commands")
    func readme() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        #expect(lines.count <= 160, "README.md has \(lines.count) lines")
        let first = lines.drop { !$0.hasPrefix("```") }.dropFirst().prefix { !$0.hasPrefix("```") }.joined(
            separator: "\n")
        #expect(first.contains("scripts/run") && first.contains("scripts/test"), "\(first)")
    }
}

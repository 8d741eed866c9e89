// The source tree's shape (docs/architecture.md, the account server's roles): no protocol with more
// than 15 requirements, no source or test file over 600 lines, at most 8 files at StoreCore's root.
// The sources are read as text; a protocol's requirements are the declarations at its body's top
// level.
import Foundation
import TestSupport
import Testing

@Suite("The source tree's shape")
struct ShapeTests {
    static let sources = TestTools.repositoryRoot.appendingPathComponent("Sources")

    /// The lines of `file`, as an editor numbers them.
    static func lineCount(of file: URL) throws -> Int {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
    }

    static func swiftFiles(in folder: URL = sources) throws -> [URL] {
        let walker = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// Each `protocol Name … { … }` in `text` (comments and strings left out), with the number of
    /// requirements declared at the top level of its body.
    static func protocols(in text: String) -> [(name: String, requirements: Int)] {
        let code = withoutCommentsAndStrings(text)
        var found: [(String, Int)] = []
        var rest = Substring(code)
        while let range = rest.range(of: #"(^|[\s;{}])protocol\s+[A-Za-z_][A-Za-z0-9_]*"#, options: .regularExpression)
        {
            let declaration = rest[range]
            let name =
                declaration.split(whereSeparator: { $0.isWhitespace || $0 == ";" || $0 == "{" || $0 == "}" }).last.map(
                    String.init) ?? "?"
            guard let open = rest[range.upperBound...].firstIndex(of: "{") else { break }
            var depth = 0
            var index = open
            var line = ""
            var requirements = 0
            func finish(_ line: String) {
                let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
                    .drop {
                        $0.hasPrefix("@")
                            || ["static", "mutating", "nonmutating", "nonisolated", "public", "package", "class"]
                                .contains($0)
                    }
                if let first = words.first,
                    ["func", "var", "let", "init", "init?", "subscript", "associatedtype"].contains(where: {
                        first == $0 || first.hasPrefix($0 + "(") || first.hasPrefix($0 + "<")
                    })
                {
                    requirements += 1
                }
            }
            while index < rest.endIndex {
                let character = rest[index]
                if character == "{" {
                    if depth == 1 {
                        finish(line)
                        line = ""
                    }
                    depth += 1
                } else if character == "}" {
                    depth -= 1
                    if depth == 0 {
                        finish(line)
                        break
                    }
                } else if depth == 1 {
                    if character == "\n" || character == ";" {
                        finish(line)
                        line = ""
                    } else {
                        line.append(character)
                    }
                }
                index = rest.index(after: index)
            }
            found.append((name, requirements))
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return found
    }

    /// `text` with comments and string literals blanked (their newlines kept).
    static func withoutCommentsAndStrings(_ text: String) -> String {
        var out = ""
        var characters = Array(text)[...]
        while let character = characters.first {
            if characters.starts(with: "//") {
                while let next = characters.first, next != "\n" { characters = characters.dropFirst() }
            } else if characters.starts(with: "/*") {
                while !characters.isEmpty, !characters.starts(with: "*/") {
                    if characters.first == "\n" { out.append("\n") }
                    characters = characters.dropFirst()
                }
                characters = characters.dropFirst(2)
            } else if characters.starts(with: "\"\"\"") {
                characters = characters.dropFirst(3)
                while !characters.isEmpty, !characters.starts(with: "\"\"\"") {
                    if characters.first == "\n" { out.append("\n") }
                    characters = characters.dropFirst()
                }
                characters = characters.dropFirst(3)
                out.append("\"\"")
            } else if character == "\"" {
                characters = characters.dropFirst()
                while let next = characters.first, next != "\"", next != "\n" {
                    characters = characters.dropFirst(next == "\\" ? 2 : 1)
                }
                characters = characters.dropFirst()
                out.append("\"\"")
            } else {
                out.append(character)
                characters = characters.dropFirst()
            }
        }
        return out
    }

    @Test("the counter counts: a protocol's requirements at its top level, not its comments, strings or nested bodies")
    func counterCounts() {
        let text = """
            /// protocol Fake { func a() }
            public protocol Sample: AnyObject, Sendable {
                // func commented()
                func one() throws(StoreError) -> Int
                var two: String { get }
                static func three(_ x: Int)
                init(four: Int)
                associatedtype Five
                /// A requirement written over two lines.
                func six(
                    a: Int, b: "func no"
                ) -> Bool
                @discardableResult mutating func seven() -> Int; subscript(eight: Int) -> Int { get set }
            }
            extension Sample { func notARequirement() { let inner = { func nested() {} } } }
            protocol Empty {}
            """
        let counted = Self.protocols(in: text)
        #expect(counted.map(\.name) == ["Sample", "Empty"])
        #expect(counted.map(\.requirements) == [8, 0])
    }

    @Test("no protocol under Sources/ has more than 15 requirements")
    func protocolsAreRoleSized() throws {
        var seen = 0
        var over: [String] = []
        for file in try Self.swiftFiles() {
            for found in Self.protocols(in: try String(contentsOf: file, encoding: .utf8)) {
                seen += 1
                if found.requirements > 15 {
                    over.append("\(file.lastPathComponent): \(found.name) has \(found.requirements)")
                }
            }
        }
        // The roles are there to be counted (AccountDirectory, Ledger, PlanBook, …).
        #expect(seen >= 20)
        #expect(over.isEmpty, "\(over)")
    }

    @Test("no source file is over 600 lines, and no test file either")
    func filesAreShort() throws {
        let tests = TestTools.repositoryRoot.appendingPathComponent("Tests")
        let files = try Self.swiftFiles() + Self.swiftFiles(in: tests)
        #expect(files.count > 150)
        let long = try files.compactMap { file -> String? in
            let lines = try Self.lineCount(of: file)
            return lines > 600
                ? "\(file.path.replacingOccurrences(of: TestTools.repositoryRoot.path + "/", with: "")): \(lines) lines"
                : nil
        }
        #expect(long.isEmpty, "\(long)")
    }

    @Test("StoreCore's root holds at most 8 files; the rest are in folders by role")
    func storeCoreInFolders() throws {
        let root = Self.sources.appendingPathComponent("StoreCore")
        let entries = try FileManager.default.contentsOfDirectory(
            at: root, includingPropertiesForKeys: [.isDirectoryKey])
        let files = try entries.filter { try $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory != true }
        #expect(files.count <= 8, "\(files.map(\.lastPathComponent).sorted())")
        for folder in [
            "Catalog", "Queue", "Subscriptions", "Receipt", "Offers", "Family", "Refunds", "Signing", "Notifications",
            "Persistence",
        ] {
            #expect(entries.contains { $0.lastPathComponent == folder }, "StoreCore/\(folder)")
        }
    }
}

// The targets' layers (docs/architecture.md, decision 14): the arrows are read from the package as
// SwiftPM declares it (`swift package dump-package`), so a dependency that points up fails here
// before a reader meets it. The model's imports are read from its files: a target with no package
// dependency can still import a system module, and the model may import Foundation alone.
import Foundation
import TestSupport
import Testing

@Suite("The targets' layers")
struct LayerTests {
    static let sources = TestTools.repositoryRoot.appendingPathComponent("Sources")

    /// What a target depends on: our own targets by name, and products as "package/product".
    struct Target {
        var name: String
        var targets: [String] = []
        var products: [String] = []
    }

    /// The package's targets, read once for every test that asks.
    static let dumped = Task { try await dumpedTargets() }

    /// The package as SwiftPM reads its manifest, with a scratch folder of its own so that it never
    /// waits for the build's lock.
    static func dumpedTargets() async throws -> [String: Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try await runProgram(
            URL(fileURLWithPath: "/usr/bin/env"), ["swift", "package", "--scratch-path", scratch.path, "dump-package"],
            in: TestTools.repositoryRoot)
        #expect(result.status == 0, "\(result.stderr)")
        let package = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let declared = try #require(package["targets"] as? [[String: Any]])
        var targets: [String: Target] = [:]
        for entry in declared {
            let name = try #require(entry["name"] as? String)
            var target = Target(name: name)
            for dependency in entry["dependencies"] as? [[String: Any]] ?? [] {
                if let byName = dependency["byName"] as? [Any], let first = byName.first as? String {
                    target.targets.append(first)
                } else if let declared = dependency["target"] as? [Any], let first = declared.first as? String {
                    target.targets.append(first)
                } else if let product = dependency["product"] as? [Any], let name = product.first as? String,
                    let package = product.dropFirst().first as? String
                {
                    target.products.append("\(package)/\(name)")
                }
            }
            targets[name] = target
        }
        return targets
    }

    /// `name` and every target it reaches, with the products all of them use.
    static func closure(of name: String, in targets: [String: Target]) -> (targets: Set<String>, products: Set<String>)
    {
        var seen: Set<String> = []
        var products: Set<String> = []
        var next = [name]
        while let current = next.popLast() {
            guard seen.insert(current).inserted, let target = targets[current] else { continue }
            products.formUnion(target.products)
            next += target.targets
        }
        return (seen, products)
    }

    @Test("the model target depends on no package and no other target")
    func modelStandsAlone() async throws {
        let targets = try await Self.dumped.value
        let model = try #require(targets["StoreModel"])
        #expect(model.targets.isEmpty, "\(model.targets)")
        #expect(model.products.isEmpty, "\(model.products)")
        // Every library of ours builds on it.
        for name in ["StoreCore", "StorefrontApp", "StorefrontServer"] {
            #expect(Self.closure(of: name, in: targets).targets.contains("StoreModel"), "\(name)")
        }
    }

    @Test("no arrow points up: the store and the screen reach no server, HTTP server or PostgreSQL")
    func arrowsPointDown() async throws {
        let targets = try await Self.dumped.value
        let serverPackages = ["hummingbird", "postgres-nio", "swift-service-lifecycle"]
        for name in ["StoreModel", "StoreCore", "StorefrontApp", "TerminalUI"] {
            let (reached, products) = Self.closure(of: name, in: targets)
            #expect(!reached.contains("StorefrontServer"), "\(name) reaches StorefrontServer")
            #expect(!reached.contains("storefront"), "\(name) reaches the executable")
            let server = products.filter { product in serverPackages.contains { product.hasPrefix($0 + "/") } }
            #expect(server.isEmpty, "\(name) uses \(server.sorted())")
        }
        let terminal = Self.closure(of: "TerminalUI", in: targets)
        #expect(!terminal.targets.contains("StoreCore") && !terminal.targets.contains("StoreModel"))
        #expect(!Self.closure(of: "StoreCore", in: targets).targets.contains("TerminalUI"))
    }

    @Test("the model's files import Foundation and nothing else")
    func modelImportsFoundationOnly() throws {
        let folder = Self.sources.appendingPathComponent("StoreModel")
        let files = try ShapeTests.swiftFiles(in: folder)
        #expect(files.count > 30)
        var imports: [String] = []
        for file in files {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").drop { $0.hasPrefix("@") }
                guard words.first == "import", let module = words.dropFirst().first else { continue }
                if module != "Foundation" { imports.append("\(file.lastPathComponent): \(line)") }
            }
        }
        #expect(imports.isEmpty, "\(imports)")
    }

    @Test("no target holds more than 35% of the sources' Swift lines, and no source file is over 400")
    func targetsShareTheLines() throws {
        var linesByTarget: [String: Int] = [:]
        var long: [String] = []
        for file in try ShapeTests.swiftFiles() {
            let relative = file.path.replacingOccurrences(of: Self.sources.path + "/", with: "")
            let target = String(relative.prefix { $0 != "/" })
            let lines = try ShapeTests.lineCount(of: file)
            linesByTarget[target, default: 0] += lines
            if lines > 400 { long.append("\(relative): \(lines) lines") }
        }
        let total = linesByTarget.values.reduce(0, +)
        #expect(total > 20_000)
        let heavy = linesByTarget.filter { Double($0.value) > 0.35 * Double(total) }
        #expect(heavy.isEmpty, "\(heavy) of \(total)")
        #expect(long.isEmpty, "\(long)")
    }

    /// Types only `storefront serve` uses: the Server API's bearer tokens, where a team server's
    /// PostgreSQL URL comes from, the server's own store.
    static let serverOnly = ["APIToken", "TokenRefusal", "DatabaseURL", "ServedStore", "PostgresAccountServer"]

    /// The names of the types `folder`'s files declare.
    static func declaredTypes(in folder: String) throws -> Set<String> {
        var names: Set<String> = []
        for file in try ShapeTests.swiftFiles(in: sources.appendingPathComponent(folder)) {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").drop { $0.hasPrefix("@") || $0.hasSuffix(")") }
                    .drop { ["public", "package", "final", "indirect", "private", "fileprivate"].contains($0) }
                guard let kind = words.first, ["enum", "struct", "class", "actor", "protocol"].contains(kind),
                    let name = words.dropFirst().first
                else { continue }
                names.insert(String(name.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            }
        }
        return names
    }

    @Test("server-only types live in the server's target, not in what a device links")
    func serverOnlyTypesStayOnTheServer() throws {
        let server = try Self.declaredTypes(in: "StorefrontServer")
        #expect(Set(Self.serverOnly).isSubset(of: server), "\(Set(Self.serverOnly).subtracting(server))")
        for folder in ["StoreModel", "StoreCore", "StorefrontApp", "TerminalUI"] {
            let misplaced = try Self.declaredTypes(in: folder).intersection(Self.serverOnly)
            #expect(misplaced.isEmpty, "\(folder) declares \(misplaced.sorted())")
        }
    }
}

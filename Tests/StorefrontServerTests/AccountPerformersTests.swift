// The wire declares each method in StoreCore; the server registers what it does with it. A method
// declared and never registered would compile, then answer 400 "no method" at run time: these
// tests read the declarations from the source and hold them against the registry.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@testable import StorefrontServer

@Suite("The account wire's declarations against the server's registry")
struct AccountPerformersTests {
    /// Every `AccountMethod` the wire's source declares, by its name on the wire.
    static func declaredNames() throws -> [String] {
        let folder = TestTools.repositoryRoot.appendingPathComponent("Sources/StoreCore/Remote")
        let pattern = try Regex(#"static let \w+ = Method<[^\n]*?>\(\s*"(\w+)""#)
        var names: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where file.hasSuffix(".swift") {
            let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in source.matches(of: pattern) {
                if let name = match.output[1].substring { names.append(String(name)) }
            }
        }
        return names
    }

    @Test("every method the wire declares has a performer, under one name each, and nothing else is registered")
    func registryMatchesDeclarations() throws {
        let declared = try Self.declaredNames()
        // The reading of the source found the table, not a handful of methods.
        #expect(declared.count >= 50, "\(declared.count) declarations found")
        #expect(Set(declared).count == declared.count, "a name declared twice: \(declared.sorted())")
        let registered = Set(AccountPerformers.all.byName.keys)
        #expect(Set(declared).subtracting(registered).sorted() == [], "declared, not registered")
        #expect(registered.subtracting(declared).sorted() == [], "registered, not declared")
    }

    @Test("the declared, unregistered check is not vacuous: a registry without one method is caught")
    func missingOneIsSeen() throws {
        var registry = AccountPerformers()
        AccountPerformers.registerRecords(&registry)
        // The settings' half left out: every one of its methods must show as missing.
        let missing = Set(try Self.declaredNames()).subtracting(registry.byName.keys)
        #expect(missing.contains(AccountWire.clockSetting.name) && missing.contains(AccountWire.signed.name))
    }
}

// The wire declares each method in StoreCore, as a field of `AccountWire.Methods`; the server
// registers what it does with it. A method declared and never registered would compile, then
// answer 400 "no method" at run time: these tests hold the declarations, read from the value by
// reflection (no source text), against the registry.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@testable import StorefrontServer

@Suite("The account wire's declarations against the server's registry")
struct AccountPerformersTests {
    /// Every method the wire declares, by its name on the wire.
    static func declaredNames() -> [String] { AccountWire.all.map(\.name) }

    @Test("every method the wire declares has a performer, under one name each, and nothing else is registered")
    func registryMatchesDeclarations() throws {
        let declared = Self.declaredNames()
        // Reflection found the table, not a handful of methods.
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
        let missing = Set(Self.declaredNames()).subtracting(registry.byName.keys)
        #expect(
            missing.contains(AccountWire.methods.clockSetting.name) && missing.contains(AccountWire.methods.signed.name)
        )
    }
}

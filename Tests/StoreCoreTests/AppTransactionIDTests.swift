// W18: an account's app transaction id is minted when it signs up, where the records are kept:
// unguessable, of Apple's shape, never derived from the name. Accounts made before keep the id
// their name gave them, since it was signed already.
import Foundation
import GRDB
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("App transaction ids, minted")
struct AppTransactionIDTests {
    @Test(
        "W18 ten thousand sign-ups: no app transaction id is predictable from the name, no two are alike, and each names its account back"
    )
    func tenThousand() throws {
        let state = TemporaryState()
        try state.directory.prepare()
        let server = try ServerDatabase(url: state.directory.serverDatabase)
        let hasher = PasswordHasher(cost: 1 << 2)
        let at = Date(timeIntervalSince1970: 1_768_478_400)
        var ids: [String: String] = [:]
        for index in 0..<10_000 {
            let name = "user\(index)"
            _ = try server.signUp(name: name, password: "pw", hasher: hasher, device: "d", at: at)
            ids[name] = try #require(try server.appTransactionID(account: name))
        }
        #expect(Set(ids.values).count == 10_000, "no two alike")
        #expect(ids.allSatisfy { $0.value != SignedUnits.legacyAppTransactionID($0.key) }, "none from the name")
        #expect(ids.values.allSatisfy { $0.count == 16 && $0.hasPrefix("7") && TransactionID.isAppleShaped($0) })
        for name in ["user0", "user4321", "user9999"] {
            #expect(try server.account(appTransactionID: ids[name]!) == name)
            #expect(try server.appTransactionID(account: name.uppercased()) == ids[name], "names in any case")
        }
        #expect(try server.account(appTransactionID: SignedUnits.legacyAppTransactionID("user0")) == nil)
        #expect(try server.appTransactionID(account: "nobody") == nil)
    }

    @Test("W18 an account made before ids were minted keeps the one it was signed with; a new one is minted")
    func migrationKeepsSigned() throws {
        let state = TemporaryState()
        try state.directory.prepare()
        let queue = try DatabaseQueue(path: state.directory.serverDatabase.path)
        try ServerDatabase.migrator.migrate(queue, upTo: "v16: storefronts")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO account (name, passwordHash, createdAt) VALUES ('Ann', 'x', 0)")
        }
        let server = try ServerDatabase(url: state.directory.serverDatabase)
        #expect(try server.appTransactionID(account: "ann") == SignedUnits.legacyAppTransactionID("Ann"))
        #expect(try server.account(appTransactionID: SignedUnits.legacyAppTransactionID("ann")) == "Ann")
        _ = try server.signUp(
            name: "bob", password: "pw", hasher: PasswordHasher(cost: 1 << 2), device: "d", at: Date())
        #expect(try server.appTransactionID(account: "bob") != SignedUnits.legacyAppTransactionID("bob"))
    }
}

// P2 W5: a row of the PostgreSQL account server that Storefront did not write is reported by its
// table and column, as SQLite's are, never as a decoder's trace.
import Foundation
import StoreCore
import StoreModel
import StorefrontServer
import TestSupport
import Testing

@Suite("PostgreSQL rows changed by hand", .tags(.postgres), .notInFastRun)
struct PostgresRowsTests {
    /// Runs one statement on the database at `url` with psql, as a person at its prompt would.
    func psql(_ url: String, _ statement: String) throws {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: ["/usr/bin/psql", "/usr/local/bin/psql"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            } ?? "/usr/bin/psql")
        process.arguments = [url, "-qc", statement]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "psql: \(statement)")
    }

    @Test(
        "P2 W5 a receipt line or a setting changed by hand in PostgreSQL is named by its table, its column and what it holds; the rows beside it still read"
    )
    func changedByHand() throws {
        let url = try TestPostgres.freshDatabase()
        let state = TemporaryState()
        let factory = try StoreFactory(
            stateDirectory: state.directory, catalog: testCatalog, calendar: utcCalendar, time: .manual(state.clock),
            server: try PostgresAccountServer.open(url: url)
        )
        factory.passwordHasher = .fastForTests
        let store = try factory.open(device: "phone")
        try store.accounts.signUp("ann", password: "secret")
        try store.accounts.signUp("bob", password: "secret")
        try store.queue.buy("comic.a")
        try store.accounts.signIn("ann", password: "secret")
        try store.queue.buy("comic.a")
        try store.server.setWebhook(Webhook(url: "http://127.0.0.1:9/apple"))
        try psql(url, #"UPDATE receipt SET entry = '{"garbage":1}' WHERE accountKey = 'ann'"#)
        try psql(url, #"UPDATE setting SET value = '"sideways"' WHERE key = 'webhook'"#)
        let server = try PostgresAccountServer.open(url: url)
        for (what, read) in [
            ("receipt.entry", { _ = try server.receipt(account: "ann") }),
            ("setting.value", { _ = try server.webhook() }),
        ] as [(String, () throws -> Void)] {
            guard case .storage(let path, let reason) = error(read) else {
                Issue.record("\(what): not refused as storage trouble")
                continue
            }
            #expect(
                path.hasPrefix("postgres://") && reason.hasPrefix(what + " holds ")
                    && reason.hasSuffix("which is not a value Storefront writes"), "\(what): \(reason)")
            #expect(!reason.contains("DecodingError"), "\(reason)")
        }
        #expect(
            try server.receipt(account: "bob").map(\.productID) == ["comic.a"], "another account's line still reads")
    }

    @Test(
        "O3 W5 a PostgreSQL server whose claims hold several spellings of an offer code merges them when it opens: one per account"
    )
    func claimSpellingsMerged() throws {
        let url = try TestPostgres.freshDatabase()
        let first = try PostgresAccountServer.open(url: url)
        #expect(try first.claims("offer-code:GIFT") == 0)
        // As a server of an earlier build left them: the merge not applied, the spellings apart.
        try psql(url, "DELETE FROM storefrontMigration WHERE name = 'v5: offer-code claims in one spelling'")
        try psql(
            url,
            """
            INSERT INTO claim (key, accountKey, at) VALUES ('offer-code:GIFT', 'ann', 0), ('offer-code:gift', 'ann', 0),
            ('offer-code:gift', 'bob', 0), ('offer-code:gIfT', 'bob', 0), ('offer-code:Gift', 'cat', 0),
            ('offer-nonce:abc', 'ann', 0)
            """)
        let reopened = try PostgresAccountServer.open(url: url)
        #expect(try reopened.claims("offer-code:gift") == 3, "ann, bob and cat, once each")
        #expect(try reopened.claims("offer-nonce:abc") == 1)
        #expect(try !reopened.claim("offer-code:Gift", account: "bob", limit: 5, at: Date()), "bob's use is taken")
    }

    @Test(
        "W18 on PostgreSQL an account made before app transaction ids were minted gets the one it was signed with when the server opens; one made after keeps its minted id"
    )
    func appTransactionIDsMigrate() throws {
        let url = try TestPostgres.freshDatabase()
        let server = try PostgresAccountServer.open(url: url)
        _ = try server.signUp(name: "Ann", password: "pw", hasher: .fastForTests, device: "d", at: Date())
        _ = try server.signUp(name: "bob", password: "pw", hasher: .fastForTests, device: "d", at: Date())
        let bobs = try #require(try server.appTransactionID(account: "bob"))
        #expect(bobs != SignedUnits.legacyAppTransactionID("bob"))
        try psql(url, "UPDATE account SET appTransactionID = NULL WHERE name = 'Ann'")
        let reopened = try PostgresAccountServer.open(url: url)
        #expect(try reopened.appTransactionID(account: "ann") == SignedUnits.legacyAppTransactionID("Ann"))
        #expect(try reopened.account(appTransactionID: SignedUnits.legacyAppTransactionID("ann")) == "Ann")
        #expect(try reopened.appTransactionID(account: "BOB") == bobs)
    }
}

// Kept answers by account: what the App Store Server API keeps about one customer is made again
// when that customer's records, their family's or the shared settings change, and outlives every
// other customer's purchases (V1), on both backends. The counts behind it are kept by triggers on
// every table an answer reads; a table in neither list fails here.
import Foundation
import GRDB
import StoreCore
import StoreModel
import TestSupport
import Testing

@testable import StorefrontServer

@Suite("Kept answers by account", .tags(.postgres), .notInFastRun)
struct KeptAnswerScopeTests {
    @Test(
        "V1 a kept answer outlives another customer's purchases and ends at the customer's own, a family member's, or a shared setting's change",
        arguments: Backend.allCases)
    func keptByAccount(backend: Backend) async throws {
        let fixture = try ServerAPITests.Fixture(purchases: 1, backend: backend)
        let id = try #require(try fixture.store.queue.history().first?.id)
        let request = APIRequest(method: "GET", path: "/inApps/v2/history/\(id)", authorization: try fixture.token())
        // ES256 signatures differ every time they are made: the same bytes twice mean a kept answer.
        func page() async throws -> [String] {
            let body = try #require(
                try JSONSerialization.jsonObject(with: try await fixture.api.respond(to: request).body)
                    as? [String: Any])
            return try #require(body["signedTransactions"] as? [String])
        }
        let kept = try await page()
        #expect(try await page() == kept)
        let carol = try fixture.state.signedIn("carol", device: "carols-phone")
        for _ in 0..<3 { try carol.queue.buy("pack") }
        #expect(try await page() == kept, "another customer's purchases leave it kept")

        try fixture.store.queue.buy("pack")
        let own = try await page()
        #expect(own.count == 2, "the customer's own purchase shows at once")

        let bob = try fixture.state.signedIn("bob", device: "bobs-phone")
        _ = try fixture.store.family.create()
        _ = try fixture.store.family.add("bob")
        _ = try bob.family.accept()
        let inFamily = try await page()
        #expect(inFamily != own, "the families are shared: a change to them is made again")
        #expect(try await page() == inFamily)
        try bob.queue.buy("pack")
        let afterBob = try await page()
        #expect(afterBob != inFamily && afterBob.count == 2, "a family member's purchase makes it again")

        #expect(try await page() == afterBob)
        try fixture.store.server.setWebhook(Webhook(url: "http://127.0.0.1:9/hook"))
        #expect(try await page() != afterBob, "a shared setting's change makes it again")
    }

    @Test(
        "V1 the stamp of one account moves with its receipt, plans and claims and with the shared settings, not with another account's",
        arguments: Backend.allCases)
    func stampByAccount(backend: Backend) throws {
        let fixture = try ServerAPITests.Fixture(catalog: selfiesCatalog, backend: backend)
        let server = fixture.store.server
        let keeper = try #require(server.keeper.here)
        let carol = try fixture.state.signedIn("carol", device: "carols-phone", catalog: selfiesCatalog)
        func stamp(_ accounts: [String] = ["ann"]) throws -> ChangeStamp { try server.changeStamp(accounts: accounts) }
        var before = try stamp()
        try carol.queue.buy("allaccess")
        #expect(try stamp() == before, "carol's purchase and plan")
        #expect(try stamp(["Carol"]) != stamp(["ann"]), "carol's own stamp, by any case of her name")
        for change in [
            ("a purchase", { _ = try fixture.store.queue.buy("allaccess") }),
            ("a claim", { _ = try keeper.claim("offer-code:ANNGIFT", account: "ann", limit: 1, at: startDate) }),
            (
                "a price change",
                {
                    try server.setPriceChange(
                        PriceChange(
                            productID: "allaccess", price: 2, previous: 1, consentRequired: false, at: startDate))
                }
            ),
        ] as [(String, () throws -> Void)] {
            try change.1()
            let after = try stamp()
            #expect(after != before, "\(change.0)")
            before = after
        }
    }

    @Test(
        "V1 every table of the embedded account server is either counted by its account or scope, or named as read by no kept answer"
    )
    func everyTableCounted() throws {
        let state = TemporaryState()
        let server = try state.store().server
        let tables = try DatabaseQueue(path: server.location).read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'"
            )
        }
        let known = Set(ServerDatabase.countedTables.map(\.table) + ServerDatabase.uncountedTables + ["changeCount"])
        #expect(Set(tables) == known)
        let triggers = try DatabaseQueue(path: server.location).read { db in
            try String.fetchAll(db, sql: "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger'")
        }
        for (table, _) in ServerDatabase.countedTables {
            #expect(triggers.filter { $0 == table }.count == 3, "\(table)")
        }
    }

    @Test(
        "V1 every table of the PostgreSQL account server is either counted by its account or scope, or named as read by no kept answer"
    )
    func everyPostgresTableCounted() throws {
        let url = try TestPostgres.freshDatabase()
        _ = try PostgresAccountServer.open(url: url)
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: ["/usr/bin/psql", "/usr/local/bin/psql"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            } ?? "/usr/bin/psql")
        process.arguments = [
            url, "-Atqc", "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let tables = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(
            separator: "\n"
        ).map(String.init)
        process.waitUntilExit()
        let known = Set(PostgresAccountServer.countedTables.map(\.table) + PostgresAccountServer.uncountedTables)
        #expect(!tables.isEmpty && Set(tables) == known)
    }
}

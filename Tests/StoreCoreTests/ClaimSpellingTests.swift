// O3: offer codes are case-insensitive, and so are their claims. A state folder that took claims of
// one code under several spellings (before they were keyed in one) has them merged when it opens:
// one use per account, every account's counted against the code's limit.
import Foundation
import GRDB
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Offer-code claims in one spelling")
struct ClaimSpellingTests {
    @Test("a claim under any spelling of a code is the code's claim; the second spelling takes nothing")
    func anySpelling() throws {
        let state = TemporaryState()
        try state.directory.prepare()
        let server = try ServerDatabase(url: state.directory.serverDatabase)
        let at = Date(timeIntervalSince1970: 1_768_478_400)
        #expect(try server.claim("offer-code:GiftCode", account: "ann", limit: 2, at: at))
        #expect(try !server.claim("offer-code:GIFTCODE", account: "ann", limit: 2, at: at), "the same account again")
        #expect(try server.claim("offer-code:giftcode", account: "bob", limit: 2, at: at))
        #expect(try !server.claim("offer-code:giftCODE", account: "cat", limit: 2, at: at), "past the limit")
        #expect(try server.claims("offer-code:GIFTCODE") == 2 && server.claims("offer-code:giftcode") == 2)
    }

    @Test("opening a server whose claims hold several spellings of a code merges them: one per account")
    func migrationMerges() throws {
        let state = TemporaryState()
        try state.directory.prepare()
        let queue = try DatabaseQueue(path: state.directory.serverDatabase.path)
        try ServerDatabase.migrator.migrate(queue, upTo: "v12: change counts")
        try queue.write { db in
            for (key, account) in [
                ("offer-code:GIFT", "ann"), ("offer-code:gift", "ann"), ("offer-code:Gift", "ANN"),
                ("offer-code:gift", "bob"), ("offer-code:gIfT", "bob"), ("offer-code:gift", "cat"),
                ("offer-nonce:abc", "ann"), ("win-back:welcome:ann", "ann"),
            ] {
                try db.execute(
                    sql: "INSERT INTO claim (key, account, at) VALUES (?, ?, 0)", arguments: [key, account])
            }
        }
        try queue.close()
        let server = try ServerDatabase(url: state.directory.serverDatabase)
        #expect(try server.claims("offer-code:GIFT") == 3, "ann, bob and cat, once each")
        #expect(try server.claims("offer-nonce:abc") == 1 && server.claims("win-back:welcome:ann") == 1)
        let keys = try server.read { db in try String.fetchAll(db, sql: "SELECT key FROM claim ORDER BY key") }
        #expect(
            keys == [
                "offer-code:GIFT", "offer-code:GIFT", "offer-code:GIFT", "offer-nonce:abc", "win-back:welcome:ann",
            ])
    }
}

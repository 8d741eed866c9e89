// The app receipt (`storefront app receipt`), judged by peers no one here wrote: `openssl cms
// -verify` checks its PKCS #7 signature against the store's root, Apple's `ReceiptUtility` finds a
// transaction id in it, and Apple's API client takes that id to Get Transaction History, the path
// Apple gives a backend moving off verifyReceipt. Its in-app receipts are the account's purchases,
// every non-renewing one among them (the receipt-chaining note), with the dates `history` shows.
import Foundation
import TestSupport
import Testing

@Suite("the app receipt, read by openssl and Apple's ReceiptUtility", .serialized, .tags(.python), .notInFastRun)
struct AppReceiptTests {
    static let script = repositoryRoot.appendingPathComponent("Tests/Python/read_receipt.py")

    /// What Apple's ReceiptUtility and the `asn1` package read in each base64 receipt.
    func readReceipts(_ receipts: [String]) async throws -> [[String: Any]] {
        try await AppleVerifier.run(Self.script, ["items": receipts.map { ["receipt": $0] }])
    }

    /// `openssl cms -verify` of the DER receipt at `file` with `session`'s root: the exit status.
    func opensslVerifies(_ file: URL, _ session: Session) async throws -> Bool {
        let root = session.stateDirectory.appendingPathComponent("receipt-root.pem")
        try await session.run(["certificate", "--pem", root.path]).expectSuccess()
        let openssl = try await runProgram(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "cms", "-verify", "-inform", "DER", "-in", file.path, "-CAfile", root.path, "-purpose", "any", "-out",
                "/dev/null",
            ])
        return openssl.status == 0
    }

    /// The receipt `session`'s device shows, written to a file and in base64.
    func receipt(_ session: Session) async throws -> (URL, String) {
        let file = session.stateDirectory.appendingPathComponent("receipt-\(UUID().uuidString.prefix(6)).der")
        try await session.run(["app", "receipt", "--out", file.path]).expectSuccess()
        let printed = try #require(try await session.object(["app", "receipt"])["appReceipt"] as? String)
        return (file, printed)
    }

    @Test(
        "a comic, two non-renewing subscriptions and random views: the receipt lists the comic and both subscriptions with history's ids and dates, not the views, and a refund's cancellation date; openssl verifies it with the root, not once altered; ReceiptUtility finds one of its ids"
    )
    func local() async throws {
        let session = try await Session()
        try await session.signUp("ann")
        for product in ["com.storefront.comic.nightshift", "com.storefront.randomviews", "com.storefront.sub.3months"] {
            try await session.run(["buy", product]).expectSuccess()
        }
        try await session.run(["clock", "advance", "2 months"]).expectSuccess()
        try await session.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        let history = try await session.array(["history"])
        let expected = history.filter { $0["product"] as? String != "com.storefront.randomviews" }
        #expect(expected.count == 3)
        let (file, printed) = try await receipt(session)
        #expect(try await opensslVerifies(file, session))
        var altered = try Data(contentsOf: file)
        let at = try #require(altered.range(of: Data("com.storefront.comic.nightshift".utf8))).lowerBound
        altered[at] = UInt8(ascii: "C")
        let alteredFile = session.stateDirectory.appendingPathComponent("altered.der")
        try altered.write(to: alteredFile)
        #expect(try await !opensslVerifies(alteredFile, session), "a receipt altered after signing")
        #expect(try await !opensslVerifies(file, try await Session()), "another store's root")

        let read = try #require(try await readReceipts([printed]).first)
        let app = try #require(read["app"] as? [String: Any])
        #expect(
            app["2"] as? String == "com.storefront.comics" && app["3"] as? String == "1" && app["19"] as? String == "1",
            "\(app)")
        let inApps = try #require(read["inApps"] as? [[String: Any]])
        let byID = Dictionary(
            uniqueKeysWithValues: inApps.compactMap { item in (item["1703"] as? String).map { ($0, item) } })
        #expect(Set(byID.keys) == Set(expected.compactMap { $0["id"] as? String }), "\(inApps)")
        for transaction in expected {
            let id = try #require(transaction["id"] as? String)
            let item = try #require(byID[id])
            #expect(item["1702"] as? String == transaction["product"] as? String)
            #expect(item["1704"] as? String == transaction["purchaseDate"] as? String, "\(item) \(transaction)")
            #expect(item["1701"] as? Int == 1 && item["1705"] as? String != nil)
        }
        #expect(
            byID.values.allSatisfy { $0["1708"] == nil && $0["1711"] == nil }, "no subscription fields on these kinds")
        let extracted = try #require(read["extracted"] as? String)
        #expect(byID[extracted] != nil, "\(read)")
        // A refunded comic stays, with its cancellation date: the revocation date history shows.
        let comic = try #require(
            expected.first { $0["product"] as? String == "com.storefront.comic.nightshift" }?["id"] as? String)
        try await session.run(["refund-request", "policy", "approve"]).expectSuccess()
        try await session.run(["refund-request", comic]).expectSuccess()
        let revoked = try #require(
            try await session.array(["history"]).first { $0["id"] as? String == comic }?["revocationDate"] as? String)
        let refunded = try #require(
            try await readReceipts([try await receipt(session).1]).first?["inApps"] as? [[String: Any]])
        #expect(refunded.first { $0["1703"] as? String == comic }?["1712"] as? String == revoked, "\(refunded)")
        #expect(refunded.filter { $0["1712"] != nil }.count == 1, "\(refunded)")
        // A guest's receipt lists nothing; text that is not a receipt is an error of Apple's own.
        try await session.run(["account", "logout"]).expectSuccess()
        let guest = try await readReceipts([
            try await receipt(session).1, Data("not a receipt".utf8).base64EncodedString(),
        ])
        #expect((guest[0]["inApps"] as? [Any])?.isEmpty == true && guest[0]["extracted"] is NSNull, "\(guest[0])")
        #expect(guest[1]["error"] != nil, "\(guest[1])")
    }

    @Test(
        "W1 V4 on a team: the server signs the receipt of every device's purchases; the id Apple's ReceiptUtility finds opens Get Transaction History with Apple's client"
    )
    func served() async throws {
        let host = try await Session()
        host.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        let key = try await ServeTests().makeKey(host)
        let server = try await Server(host)
        let phone = try await server.machine(catalogOf: host)
        let laptop = try await server.machine(catalogOf: host)
        try await phone.signUp("ann")
        try await phone.run(["buy", "com.storefront.selfies.sub.allaccess.monthly"]).expectSuccess()
        try await laptop.signIn("ann")
        // The store's clock is the developer's to move: the server's own machine moves it.
        try await host.run(["clock", "advance", "5 weeks"]).expectSuccess()
        let (file, printed) = try await receipt(laptop)
        #expect(try await opensslVerifies(file, laptop), "verified with the server's root")
        let read = try #require(try await readReceipts([printed]).first)
        let inApps = try #require(read["inApps"] as? [[String: Any]])
        // The purchase (its free week, then the introductory price flag off) and the renewal after it.
        #expect(
            inApps.count == 2
                && inApps.allSatisfy { $0["1702"] as? String == "com.storefront.selfies.sub.allaccess.monthly" },
            "\(inApps)")
        #expect(
            inApps.allSatisfy { $0["1708"] as? String != nil && $0["1711"] as? Int != nil && $0["1719"] as? Int == 0 },
            "\(inApps)")
        let extracted = try #require(read["extracted"] as? String)
        let history = try await ServeTests().call(
            server, key, bundleID: "com.storefront.selfies", [["call": "history", "id": extracted]])
        let signed = try #require(ServeTests().result(history[0])["signedTransactions"] as? [String], "\(history)")
        #expect(signed.count == 2)
        _ = try await server.stop()
    }
}

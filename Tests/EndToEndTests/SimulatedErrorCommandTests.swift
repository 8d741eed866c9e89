// Q7 on the command line and in scenarios: `storefront errors`, and each failing API's command
// says one line, exits 1 and changes nothing.
import Foundation
import Testing

@Suite("storefront errors")
struct SimulatedErrorCommandTests {
    @Test("Q7 set, list and clear; buy and restore fail with one line and exit 1, nothing changed; bad names exit 2")
    func commands() async throws {
        let session = try await Session()
        try await session.signUp("ann")
        let listed = try await session.array(["errors"])
        #expect(listed.count == 10 && listed.allSatisfy { $0["error"] is NSNull }, "\(listed)")
        try await session.run(["errors", "set", "purchase", "Product.PurchaseError.purchaseNotAllowed"]).expectSuccess()
        let buy = try await session.run(["buy", "com.storefront.comic.nightshift"])
        #expect(
            buy.status == 1
                && buy.stderr
                    == "storefront: Purchase failed: Product.PurchaseError.purchaseNotAllowed (a simulated StoreKit error; `storefront errors clear purchase` stops it)\n",
            "\(buy)")
        #expect(try await session.array(["history"]).isEmpty)
        try await session.run(["errors", "set", "app-store-sync", "networkError"]).expectSuccess()
        let restore = try await session.run(["restore"])
        #expect(
            restore.status == 1 && restore.stderr.contains("App Store Sync failed: StoreKitError.networkError"),
            "\(restore)")
        let shown = try await session.run(["errors"])
        #expect(
            shown.stdout
                == "Purchase: Product.PurchaseError.purchaseNotAllowed\nApp Store Sync: StoreKitError.networkError\n",
            "\(shown)")
        try await session.run(["errors", "clear", "purchase"]).expectSuccess()
        try await session.run(["buy", "com.storefront.comic.nightshift"]).expectSuccess()
        try await session.run(["errors", "clear"]).expectSuccess()
        #expect(try await session.run(["errors"]).stdout == "no simulated errors\n")
        for arguments in [
            ["errors", "set", "shopping", "networkError"], ["errors", "set", "purchase", "invalidSignature"],
            ["errors", "clear", "x"],
        ] {
            let bad = try await session.run(arguments)
            #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1, "\(arguments): \(bad)")
        }
        try await session.run(["errors", "set", "verification", "invalidEncoding"]).expectSuccess()
        let unverified = try await session.object(["buy", "com.storefront.comic.catjudge", "--json"])
        #expect(
            unverified["verified"] as? Bool == false
                && unverified["verificationError"] as? String == "VerificationResult.VerificationError.invalidEncoding")
    }

    @Test("Q7 a scenario sets and clears errors and expects them")
    func scenario() async throws {
        let session = try await Session()
        let file = session.stateDirectory.appendingPathComponent("errors.scenario")
        try """
        sign up ann
        error purchase productUnavailable
        buy "Cat Judge"
        expect error "Product.PurchaseError.productUnavailable"
        expect not owned "Cat Judge"
        error purchase off
        buy "Cat Judge"
        expect owned "Cat Judge"
        error app-store-sync networkError
        restore
        expect error "App Store Sync failed"
        errors clear
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await session.run(["scenario", "check", file.path])
        #expect(result.status == 0 && result.stdout.contains("4 passed, 0 failed"), "\(result)")
        try "error purchase invalidSignature\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try await session.run(["scenario", "check", file.path])
        #expect(
            bad.status != 0
                && bad.stdout.contains("errors.scenario:1: \"invalidSignature\" is not an error Purchase can have"),
            "\(bad)")
    }
}

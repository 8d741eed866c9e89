// What the Play Developer API will answer for a purchase, judged by Google's own discovery document
// (androidpublisher v3, as google-api-python-client ships it) through Tests/Python/play_schema.py.
import Foundation
import TestSupport
import Testing

@testable import StoreModel

@Suite("Play answers against Google's discovery document", .tags(.python))
struct PlayAnswerSchemaTests {
    /// The judge's verdict on `value` as schema `name`: nil when it fits, else its misfits.
    func misfits(_ value: some Encodable, as name: String) throws -> String? {
        let process = Process()
        process.executableURL = try TestTools.python()
        process.arguments = [TestTools.repositoryRoot.appendingPathComponent("Tests/Python/play_schema.py").path, name]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONEncoder().encode(value))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : "status \(process.terminationStatus): \(said)"
    }

    @Test(
        "G5 a pending, a purchased, a consumed and a voided purchase each answer a ProductPurchase that fits; the void a VoidedPurchase; a wrong one does not fit"
    )
    func answersFit() throws {
        let start = Date(timeIntervalSince1970: 1_775_000_000.123)
        func started(_ instrument: PlayTestInstrument) throws -> PlayPurchase {
            try PlayPurchase.started(
                productId: "com.storefront.comic.nightshift", account: "ann", instrument: instrument,
                token: "token-1", orderId: "GPA.1234-5678-9012-34567", at: start
            ).get()
        }
        let pending = try started(.slowApproves)
        let purchased = try started(.approves)
        let consumed = try purchased.consuming()
        let (voided, _) = purchased.advanced(to: start.addingTimeInterval(4 * 86_400))
        for purchase in [pending, purchased, consumed, voided] {
            let answer = purchase.productPurchase(regionCode: "US", obfuscatedAccountId: "a1")
            #expect(try misfits(answer, as: "ProductPurchase") == nil, "\(answer)")
        }
        #expect(pending.productPurchase(regionCode: "US").purchaseState == 2)
        #expect(purchased.productPurchase(regionCode: "US").purchaseTimeMillis == "1775000000123")
        let void = try #require(voided.voidedPurchase)
        #expect(void.voidedReason == 8 && void.voidedSource == 2)
        #expect(try misfits(void, as: "VoidedPurchase") == nil)
        // The judge can say no: a time as a number, and a field Google does not have.
        struct Wrong: Encodable {
            var purchaseTimeMillis = 1_775_000_000_123
            var purchaseStatus = 0
        }
        let verdict = try #require(try misfits(Wrong(), as: "ProductPurchase"))
        #expect(
            verdict.contains("purchaseTimeMillis: expected a string")
                && verdict.contains("purchaseStatus: not a property"))
    }
}

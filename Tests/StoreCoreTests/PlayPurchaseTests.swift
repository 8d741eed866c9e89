// G1 G2: a one-time Play purchase as a value over the store's clock: license-test instruments,
// PENDING then PURCHASED or canceled, acknowledgement within three days or a refund and a void.
import Foundation
import Testing

@testable import StoreModel

@Suite("a Google Play one-time purchase")
struct PlayPurchaseTests {
    let start = Date(timeIntervalSince1970: 1_775_000_000)

    func started(_ instrument: PlayTestInstrument) -> Result<PlayPurchase, PlayBillingResponseError> {
        PlayPurchase.started(
            productId: "com.storefront.comic.nightshift", account: "ann", instrument: instrument, token: "tok",
            orderId: "GPA.1234-5678-9012-34567", at: start)
    }

    @Test(
        "the four license-test instruments: approves at once, declines with ERROR, slow cards PENDING for three minutes, then PURCHASED or canceled"
    )
    func instruments() throws {
        #expect(try started(.approves).get().state == .purchased)
        #expect(throws: PlayBillingResponseError(.error)) { try started(.declines).get() }
        let slow = try started(.slowApproves).get()
        #expect(slow.state == .pending && !slow.owns)
        #expect(slow.advanced(to: start.addingTimeInterval(179)).1.isEmpty, "a second before")
        let (paid, events) = slow.advanced(to: start.addingTimeInterval(180))
        #expect(paid.state == .purchased && events == [.purchased] && paid.owns)
        #expect(paid.purchaseTime == start.addingTimeInterval(180), "purchased when the payment settled")
        let (declined, told) = try started(.slowDeclines).get().advanced(to: start.addingTimeInterval(3_600))
        #expect(declined.state == .canceled && told == [.canceled] && !declined.owns)
        #expect(PlayTestInstrument.slowApproves.words == "Slow test card, approves after a few minutes")
    }

    @Test(
        "G2 not acknowledged within three days of store time: refunded and revoked, a void by Google for an unacknowledged purchase; acknowledged in time, it stays; a pending one's window starts when it is purchased"
    )
    func acknowledgement() throws {
        let bought = try started(.approves).get()
        let threeDays = PlayPurchase.acknowledgementWindow
        #expect(bought.advanced(to: start.addingTimeInterval(threeDays - 1)).1.isEmpty)
        let (lapsed, events) = bought.advanced(to: start.addingTimeInterval(threeDays))
        let void = PlayVoid(at: start.addingTimeInterval(threeDays), source: .google, reason: .unacknowledgedPurchase)
        #expect(events == [.voided(void)] && lapsed.voided?.reason.rawValue == 8 && !lapsed.owns)
        #expect(lapsed.advanced(to: start.addingTimeInterval(2 * threeDays)).1.isEmpty, "voided once")
        #expect(throws: PlayBillingResponseError(.itemNotOwned)) { try lapsed.acknowledging() }
        let kept = try bought.acknowledging()
        #expect(kept.advanced(to: start.addingTimeInterval(10 * threeDays)) == (kept, []))
        #expect(try kept.acknowledging() == kept, "acknowledging again changes nothing")
        // A slow card: pending for three minutes, and three days from then.
        let slow = try started(.slowApproves).get()
        #expect(throws: PlayBillingResponseError(.itemNotOwned)) { try slow.acknowledging() }
        let (paid, _) = slow.advanced(to: start.addingTimeInterval(180))
        #expect(paid.advanced(to: start.addingTimeInterval(threeDays + 179)).1.isEmpty)
        #expect(paid.advanced(to: start.addingTimeInterval(threeDays + 180)).1.count == 1)
    }

    @Test("consuming a purchased one: once, and it acknowledges it; the account no longer owns it")
    func consumption() throws {
        let bought = try started(.approves).get()
        let consumed = try bought.consuming()
        #expect(consumed.consumed && consumed.acknowledged && !consumed.owns)
        #expect(throws: PlayBillingResponseError(.itemNotOwned)) { try consumed.consuming() }
        #expect(
            consumed.advanced(to: start.addingTimeInterval(30 * 86_400)).1.isEmpty,
            "never voided for want of an acknowledgement")
    }

    @Test(
        "billing response codes by the library's names and numbers; order ids of Play's shape, fifty minted, none alike"
    )
    func codesAndOrders() {
        #expect(PlayBillingResponse(name: "item_already_owned") == .itemAlreadyOwned)
        #expect(
            PlayBillingResponse.networkError.rawValue == 12 && PlayBillingResponse.userCanceled.name == "USER_CANCELED")
        #expect(PlayBillingResponse(name: "NOPE") == nil)
        var generator = SystemRandomNumberGenerator()
        let minted = (0..<50).map { _ in PlayOrderID.mint(using: &generator) }
        #expect(minted.allSatisfy(PlayOrderID.isValid) && Set(minted).count == 50, "\(minted.prefix(3))")
        #expect(!PlayOrderID.isValid("GPA.1234-5678-9012-3456") && !PlayOrderID.isValid("1234-5678-9012-34567"))
    }
}

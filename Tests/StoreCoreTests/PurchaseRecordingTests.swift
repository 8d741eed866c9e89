// The recording of a purchase line as a rule of values (A2, A4, A6, N2, W10): what both account
// servers write, from what they read. No database, no folder: the reads are plain values.
import Foundation
import Testing

@testable import StoreModel

@Suite("Recording a purchase, as values")
struct PurchaseRecordingTests {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01, UTC

    static func day(_ n: Int) -> Date { start.addingTimeInterval(Double(n) * 86_400) }

    static func pass(_ id: String, months: Int, on date: Date) -> ReceiptEntry {
        ReceiptEntry(
            transactionID: id, account: "ann", productID: "pass.\(months)m", kind: .nonRenewingSubscription,
            months: months, purchaseDate: date, device: "phone")
    }

    static func comic(_ id: String, on date: Date) -> ReceiptEntry {
        ReceiptEntry(
            transactionID: id, account: "ann", productID: "comic.night", kind: .nonConsumable, purchaseDate: date,
            device: "phone")
    }

    @Test("R5 a pass bought after the latest extends the stored expiry, and is written with it")
    func extendsInOrder() {
        let stored = Self.calendar.date(byAdding: .month, value: 3, to: Self.day(0))!
        let latest = Self.pass("1", months: 3, on: Self.day(0))
        let entry = Self.pass("2", months: 6, on: Self.day(10))
        #expect(!PurchaseRecording.needsReceipt(entry, isOnReceipt: false, latest: latest))
        let write = PurchaseRecording.record(
            entry, read: .init(isOnReceipt: false, latest: latest, storedExpiry: stored), calendar: Self.calendar)
        let expected = Self.calendar.date(byAdding: .month, value: 6, to: stored)!
        #expect(write.line == entry)
        #expect(write.expiry == expected && write.answer == expected)
    }

    @Test("A6 a pass that lands before the latest replays the receipt with it, not R5 on the stored expiry")
    func outOfOrderReplays() {
        // The latest pass started after a lapse, so the late one extends the first, not the latest.
        let first = Self.pass("1", months: 1, on: Self.day(0))
        let latest = Self.pass("3", months: 1, on: Self.day(100))
        let late = Self.pass("2", months: 1, on: Self.day(30))
        #expect(PurchaseRecording.needsReceipt(late, isOnReceipt: false, latest: latest))
        let receipt = [first, latest]
        let stored = SubscriptionMath.recomputeExpiry(from: receipt, calendar: Self.calendar)
        let write = PurchaseRecording.record(
            late, read: .init(isOnReceipt: false, latest: latest, storedExpiry: stored, receipt: receipt),
            calendar: Self.calendar)
        #expect(write.line == late)
        #expect(write.expiry == SubscriptionMath.recomputeExpiry(from: [first, late, latest], calendar: Self.calendar))
        #expect(write.expiry == stored && write.answer == write.expiry, "the lapse keeps the latest's expiry")
        let extended = SubscriptionMath.extend(
            expiry: stored, purchaseDate: late.purchaseDate, months: 1, days: 0, bonusDays: 0, calendar: Self.calendar)
        #expect(write.expiry != extended)
    }

    @Test("A4 a line already on the receipt writes nothing and answers the stored expiry")
    func repeatWritesNothing() {
        let stored = Self.day(90)
        let entry = Self.pass("1", months: 3, on: Self.day(0))
        #expect(!PurchaseRecording.needsReceipt(entry, isOnReceipt: true, latest: entry))
        let write = PurchaseRecording.record(
            entry, read: .init(isOnReceipt: true, latest: entry, storedExpiry: stored), calendar: Self.calendar)
        #expect(write == .init(line: nil, notification: nil, expiry: nil, answer: stored))
    }

    @Test("W10 a comic the account owns already is charged once: the second purchase writes nothing")
    func ownedComicWritesNothing() {
        let owned = Self.comic("1", on: Self.day(0))
        let again = Self.comic("2", on: Self.day(1))
        #expect(PurchaseRecording.needsReceipt(again, isOnReceipt: false, latest: nil))
        let write = PurchaseRecording.record(
            again, read: .init(isOnReceipt: false, latest: nil, storedExpiry: nil, receipt: [owned]),
            calendar: Self.calendar)
        #expect(write == .init(line: nil, notification: nil, expiry: nil, answer: nil))
        let first = PurchaseRecording.record(
            owned, read: .init(isOnReceipt: false, latest: nil, storedExpiry: nil, receipt: []),
            calendar: Self.calendar)
        #expect(first.line == owned && first.expiry == nil)
    }

    @Test("N2 a one-time purchase is written with the notification that reports it, and no expiry")
    func oneTimeChargeIsNotified() {
        let views = ReceiptEntry(
            transactionID: "7", account: "ann", productID: "random.5", kind: .consumable, quantity: 5,
            purchaseDate: Self.day(2), device: "phone")
        let write = PurchaseRecording.record(
            views, read: .init(isOnReceipt: false, latest: nil, storedExpiry: Self.day(40)), calendar: Self.calendar)
        #expect(write.line == views && write.expiry == nil && write.answer == Self.day(40))
        #expect(write.notification?.transactionID == "7" && write.notification?.account == "ann")
    }

    static func plan(_ id: String, event: ReceiptEvent, on date: Date, reference: String? = nil) -> ReceiptEntry {
        ReceiptEntry(
            transactionID: id, account: "ann", productID: "selfies.monthly", kind: .autoRenewableSubscription,
            months: 1, purchaseDate: date, device: "phone", event: event, group: "selfies",
            expiresDate: calendar.date(byAdding: .month, value: 1, to: date), price: 2.99, reference: reference)
    }

    @Test(
        "N2 plan lines new on the receipt change their plan and report it; a line recorded already, or twice in one write, does not"
    )
    func planLinesRecorded() {
        let bought = Self.plan("10", event: .purchase, on: Self.day(0))
        let renewed = Self.plan("11", event: .renewal, on: Self.day(31), reference: "10")
        let write = RecordingRules.record([bought, bought, renewed], onto: [:], recorded: [])
        #expect(write.lines == [bought, renewed])
        #expect(write.plans["selfies"]?.transactionID == "11" && write.plans["selfies"]?.renewals == 1)
        #expect(write.notifications.map(\.transactionID) == ["10", "11"])
        #expect(write.notifications.first?.type == "SUBSCRIBED")
        let plans = ["selfies": PlanState.apply(nil, bought)!]
        let again = RecordingRules.record([bought, renewed], onto: plans, recorded: ["10"])
        #expect(again.lines == [renewed] && again.notifications.map(\.transactionID) == ["11"])
        let none = RecordingRules.record([bought], onto: plans, recorded: ["10"])
        #expect(none == .init())
    }
}

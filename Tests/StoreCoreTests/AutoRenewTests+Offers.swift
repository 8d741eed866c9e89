// Auto-renewable plans on offers and at Xcode's time rates: promotional offers for past and current
// subscribers and on an upgrade (O2), and the first period's length at every rate of a .storekit file.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

extension AutoRenewTests {
    // MARK: Promotional offers (O2)

    @Test(
        "O2 a past subscriber resubscribes on a promotional offer: three months at 2.99, then the full price, periods from the offer's start"
    )
    func promotionalOfferForPastSubscriber() throws {
        let state = TemporaryState()
        let store = try store(state, "ann", at: utc(2026, 1, 10))
        let key = try TestOfferKey(installedIn: store)
        try store.queue.buy("allaccess")
        _ = try store.plans.perform(.expire, on: "allaccess")
        state.clock.set(utc(2026, 1, 31, 10))
        let bought = try store.queue.buy(
            "allaccess.monthly", offer: try key.request(store, product: "allaccess.monthly", offer: "comeback"))
        #expect(bought.offer == OfferRedemption(type: .promotional, id: "comeback"))
        #expect(try plan(store).phase == .introductoryOffer)
        state.clock.set(utc(2026, 6, 1))
        let periods = try lines(store, "ann").filter {
            $0.productID == "allaccess.monthly" && ($0.event == .purchase || $0.event == .renewal)
        }
        // Full price counts its months from where the offer ended, as after an introductory offer.
        #expect(
            periods.map(\.purchaseDate) == [
                utc(2026, 1, 31, 10), utc(2026, 2, 28, 10), utc(2026, 3, 31, 10), utc(2026, 4, 30, 10),
                utc(2026, 5, 30, 10),
            ])
        #expect(periods.map(\.price) == ["2.99", "2.99", "2.99", "5.99", "5.99"].map { Decimal(string: $0) })
        #expect(periods.map(\.offerID) == ["comeback", "comeback", "comeback", nil, nil])
        #expect(
            periods.prefix(3).allSatisfy { $0.soldOn == .promotional }
                && periods.dropFirst(3).allSatisfy { $0.soldOn == nil })
        // The introductory offer was never used: a promotional one is not it (O1).
        #expect(try plan(store).introOfferUsed == false)
        let report = try store.entitlements.receipt()
        #expect(report.storedPlans == report.recomputedPlans)
    }

    @Test("O2 a current subscriber's promotional offer starts at the next renewal, and renewal info says so until then")
    func promotionalOfferAtNextRenewal() throws {
        let state = TemporaryState()
        let store = try store(state, "ann", at: utc(2026, 1, 10))
        let key = try TestOfferKey(installedIn: store)
        try store.queue.buy("allaccess.monthly")
        #expect(try plan(store).phase == .trial)
        try store.queue.buy(
            "allaccess.monthly", offer: try key.request(store, product: "allaccess.monthly", offer: "free.month"))
        #expect(try plan(store).pendingOffer == OfferRedemption(type: .promotional, id: "free.month"))
        #expect(try plan(store).phase == .trial, "the trial runs on")
        let info = try store.signed.renewalInfo(try plan(store)).payload
        #expect(
            info["offerType"] as? Int == 2 && info["offerIdentifier"] as? String == "free.month"
                && info["renewalPrice"] as? Int64 == 0)
        state.clock.set(utc(2026, 1, 18))
        let renewal = try #require(try lines(store, "ann").last)
        #expect(
            renewal.event == .renewal && renewal.purchaseDate == utc(2026, 1, 17)
                && renewal.expiresDate == utc(2026, 2, 17))
        #expect(renewal.offer == .freeTrial && renewal.offerID == "free.month" && renewal.price == 0)
        #expect(try plan(store).pendingOffer == nil)
        state.clock.set(utc(2026, 2, 18))
        #expect(try lines(store, "ann").last?.price == Decimal(string: "5.99"))
    }

    @Test(
        "O2 an upgrade bought with a promotional offer starts at once on it, with the credit for the rest of the old period"
    )
    func promotionalOfferOnUpgrade() throws {
        let state = TemporaryState()
        let store = try store(state, "ann", at: utc(2026, 1, 10))
        let key = try TestOfferKey(installedIn: store)
        try store.queue.buy("oneaweek")
        state.clock.set(utc(2026, 1, 12))
        try store.queue.buy(
            "allaccess.monthly", offer: try key.request(store, product: "allaccess.monthly", offer: "comeback"))
        let recent = try lines(store, "ann").suffix(2)
        #expect(recent.map(\.event) == [.credit, .purchase])
        #expect(
            recent.last?.price == Decimal(string: "2.99") && recent.last?.offerID == "comeback"
                && recent.last?.expiresDate == utc(2026, 2, 12))
        #expect(try plan(store).productID == "allaccess.monthly")
    }

    // MARK: Time rates

    /// Apple's SKDemo file at Xcode time rate `timeRate`, its Premium plan made yearly.
    static func skDemo(timeRate: Int) throws -> Catalog {
        var text = try String(
            contentsOf: storeKitFixtures.appendingPathComponent("samples/skdemo.storekit"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"_timeRate\" : 15", with: "\"_timeRate\" : \(timeRate)")
        let monthly = "\"recurringSubscriptionPeriod\" : \"P1M\""
        let premium = try #require(text.range(of: "\"productID\" : \"subscription.premium\""))
        let period = try #require(text.range(of: monthly, range: premium.upperBound..<text.endIndex))
        text.replaceSubrange(period, with: "\"recurringSubscriptionPeriod\" : \"P1Y\"")
        return try StoreKitCatalog.parse(Data(text.utf8), fileName: "SKDemo.storekit").0
    }

    /// How many store days the first period of `product` lasts for a new account under `setting`.
    func firstPeriodDays(
        _ state: TemporaryState, _ catalog: Catalog, _ product: String, _ setting: ClockSetting, account: String
    ) throws -> Double {
        let store = try state.signedIn(account, catalog: catalog)
        try store.server.setClockSetting(setting)
        let bought = try store.queue.buy(product)
        let line = try #require(try store.server.planLines(account: account).first { $0.transactionID == bought.id })
        return try #require(line.expiresDate).timeIntervalSince(line.purchaseDate) / 86_400
    }

    @Test(
        "C6 at the real files' own rates (SKDemo and Cisum 15, Superwall 1003, react-native-purchases 1002) a P1M plan lasts 28–31 store days and a P1Y one 365–366; only `clock rate sandbox` takes the sandbox's table",
        arguments: [15, 1003, 1002]
    )
    func calendarPeriodsAtEveryRate(timeRate: Int) throws {
        let catalog = try Self.skDemo(timeRate: timeRate)
        let rate = try #require(catalog.clockRate, "the file's _timeRate is an accelerated clock")
        let state = TemporaryState()
        state.clock.set(utc(2026, 1, 31, 10))
        let accelerated = ClockSetting.standard.accelerated(rate: rate, real: Date())
        let month = try firstPeriodDays(state, catalog, "subscription.standard", accelerated, account: "ann")
        let year = try firstPeriodDays(state, catalog, "subscription.premium", accelerated, account: "bo")
        #expect((28...31).contains(month), "a month at _timeRate \(timeRate): \(month) store days")
        #expect((365...366).contains(year), "a year at _timeRate \(timeRate): \(year) store days")
        // The sandbox, imitated on purpose: a month in five real minutes is 30 days, a year in an hour 360.
        let sandbox = ClockSetting.standard.accelerated(rate: ClockSetting.sandboxRate, real: Date(), sandbox: true)
        #expect(try firstPeriodDays(state, catalog, "subscription.standard", sandbox, account: "cy") == 30)
        #expect(try firstPeriodDays(state, catalog, "subscription.premium", sandbox, account: "di") == 360)
    }
}

// Q3 P1 A4 A5 A6: every named crash point, for every kind of purchase, on two devices of one
// account. Each case runs the same story twice, once stopped at the point and once not, restarts
// the stopped device (the next command), and compares what both devices then show. Which points a
// story passes is itself checked, so a point that stops being reached fails here.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Crash points")
struct CrashPointTests {
    /// One product of each kind, and a plan.
    static let catalog = Catalog(
        name: "Every kind", bonusDays: 1,
        products: testCatalog.products + selfiesCatalog.products.filter { $0.id == "allaccess.monthly" }
    )

    enum Story: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case pack, comic, sub3, plan
        case deferredPack, deferredComic, deferredSub3, deferredPlan
        case restore, renewal

        var testDescription: String { rawValue }

        var productID: String {
            switch self {
            case .pack, .deferredPack: "pack"
            case .comic, .deferredComic, .restore: "comic.a"
            case .sub3, .deferredSub3: "sub3"
            case .plan, .deferredPlan, .renewal: "allaccess.monthly"
            }
        }

        var isDeferred: Bool { rawValue.hasPrefix("deferred") }

        /// The points the step that can crash passes, in order.
        var points: [CrashPoint] {
            switch self {
            case .pack, .comic, .sub3, .plan:
                [.purchaseRecorded, .paymentRecorded, .purchaseMarked, .purchaseDelivered]
            case .deferredPack, .deferredComic, .deferredSub3, .deferredPlan:
                [.purchaseRecorded, .purchaseWaiting, .paymentRecorded, .purchaseMarked, .purchaseDelivered]
            case .restore:
                [.restoreRecorded, .restoreDelivered]
            case .renewal:
                [.renewalsRecorded, .renewalsReceived]
            }
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let story: Story
        let point: CrashPoint
        var testDescription: String { "\(story.rawValue) at \(point.rawValue)" }
    }

    static let cases = Story.allCases.flatMap { story in story.points.map { Case(story: story, point: $0) } }

    /// What a device shows, without the random transaction ids.
    struct Seen: Equatable, CustomStringConvertible {
        var status: String
        var history: [String]
        var receipt: [String]
        var consistent: Bool
        var description: String { "status \(status)\nhistory \(history)\nreceipt \(receipt)\nconsistent \(consistent)" }
    }

    static func seen(_ store: Store) throws -> Seen {
        let status = try store.entitlements.status()
        let plans = status.plans.map {
            "\($0.productID) \($0.phase) until \($0.expiresDate.timeIntervalSince1970) renewals \($0.renewals)"
        }
        let receipt = try store.entitlements.receipt()
        return Seen(
            status:
                "owned \(status.owned) unlocked \(status.unlocked.count) views \(status.randomViewsRemaining) expiry \(String(describing: status.expiry)) plans \(plans)",
            history: try store.queue.history().map {
                "\($0.productID) \($0.states.map(\.rawValue)) \($0.reason?.rawValue ?? "-") finished \($0.isFinished)"
            },
            receipt: receipt.entries.map {
                "\($0.productID) \($0.event.rawValue) \($0.purchaseDate.timeIntervalSince1970)"
            },
            consistent: receipt.isConsistent
        )
    }

    /// Plays the story; `crashAt` stops the step that can crash at that point. Returns what both
    /// devices show after the stopped one restarts, and the points the crashing step passed.
    static func play(_ story: Story, crashAt: CrashPoint?, completeAfterCrash: Bool) throws -> (
        phone: Seen, tablet: Seen, passed: [CrashPoint]
    ) {
        let state = TemporaryState()
        var phone = try state.signedIn("ann", device: "phone", catalog: catalog)
        var tablet = try state.signedIn("ann", device: "tablet", catalog: catalog)
        var passed: [CrashPoint] = []
        let arm = { (store: Store) in
            store.crashPoints = { point throws(StoreError) in
                passed.append(point)
                if point == crashAt { throw .stopped(at: point) }
            }
        }
        // The step that may crash, and whether it stopped.
        var stopped = false
        func crashing(_ store: Store, _ step: (Store) throws -> Void) throws {
            arm(store)
            do { try step(store) } catch StoreError.stopped { stopped = true }
            store.crashPoints = { _ in }
        }
        switch story {
        case .pack, .comic, .sub3, .plan:
            try crashing(phone) { _ = try $0.queue.buy(story.productID, outcome: .approve) }
        case .deferredPack, .deferredComic, .deferredSub3, .deferredPlan:
            try crashing(phone) { store in
                let waiting = try store.queue.buy(story.productID, outcome: .defer)
                // A crash before the decision leaves nothing to approve on this store value.
                _ = try store.queue.approve(waiting.id)
            }
        case .restore:
            _ = try tablet.queue.buy(story.productID, outcome: .approve)
            try crashing(phone) { _ = try $0.queue.restore() }
        case .renewal:
            _ = try phone.queue.buy(story.productID, outcome: .approve)
            state.clock.advance(.months(2), calendar: utcCalendar)
            try crashing(phone) { _ = try $0.queue.recover() }
        }
        #expect(
            stopped == (crashAt != nil),
            "the step \(stopped ? "stopped" : "did not stop") at \(String(describing: crashAt))")
        if stopped {
            // The next command: a new process on the same device.
            phone = try state.store(device: "phone", catalog: catalog)
            try phone.queue.recover()
            if completeAfterCrash, story.isDeferred, let waiting = try phone.queue.pending().first {
                _ = try phone.queue.approve(waiting.id)
            }
        }
        tablet = try state.store(device: "tablet", catalog: catalog)
        try tablet.queue.recover()
        if story != .restore { _ = try tablet.queue.restore() }
        return (try seen(phone), try seen(tablet), passed)
    }

    @Test(
        "Q3 A4 A5 a crash at each point: the next command leaves both devices exactly as if it had not crashed, or as if the purchase was never charged",
        arguments: cases)
    func crashAtEveryPoint(_ example: Case) throws {
        let reference = try Self.play(example.story, crashAt: nil, completeAfterCrash: true)
        #expect(reference.passed == example.story.points, "the story passes \(reference.passed)")
        let crashed = try Self.play(example.story, crashAt: example.point, completeAfterCrash: true)
        #expect(crashed.phone.consistent && crashed.tablet.consistent)
        if example.point == .purchaseRecorded {
            // Cut before the store answered: nothing was charged, and the purchase failed (network).
            let neverBought = try Self.play(
                example.story, crashAt: nil, completeAfterCrash: false, skippingPurchase: true)
            #expect(crashed.phone.status == neverBought.phone.status)
            #expect(crashed.phone.receipt == neverBought.phone.receipt)
            #expect(crashed.tablet == neverBought.tablet)
            #expect(
                crashed.phone.history.last
                    == "\(example.story.productID) [\"purchasing\", \"failed\"] network finished true")
        } else {
            #expect(crashed.phone == reference.phone, "phone")
            #expect(crashed.tablet == reference.tablet, "tablet")
        }
    }
}

extension CrashPointTests {
    /// The story with its purchase left out: what "never charged" looks like.
    static func play(_ story: Story, crashAt: CrashPoint?, completeAfterCrash: Bool, skippingPurchase: Bool) throws -> (
        phone: Seen, tablet: Seen, passed: [CrashPoint]
    ) {
        let state = TemporaryState()
        let phone = try state.signedIn("ann", device: "phone", catalog: catalog)
        let tablet = try state.signedIn("ann", device: "tablet", catalog: catalog)
        try phone.queue.recover()
        try tablet.queue.recover()
        _ = try tablet.queue.restore()
        return (try seen(phone), try seen(tablet), [])
    }
}

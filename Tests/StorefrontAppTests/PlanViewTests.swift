// Auto-renewable plans on the screen: plan rows, the plan line in the header, and the transaction manager's
// plan keys, through the reducer and the renderer against a real store.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("Plans on the screen")
struct PlanViewTests {
    @Test("plan rows show the price per period, the trial, and Subscribed/Upgrade/Downgrade")
    func rows() throws {
        let harness = try Harness(size: Size(columns: 90, rows: 16), catalog: selfiesCatalog, user: "ann")
        var lines = harness.lines()
        #expect(
            lines.contains {
                $0.contains("All Access (Monthly)") && $0.hasSuffix("1 week free, then $5.99/month Subscribe")
            })
        // Too long for half the width: the offer is left out rather than cut.
        #expect(lines.contains { $0.contains("Comics (Yearly)") && $0.hasSuffix("  $9.99/year Subscribe") })
        #expect(
            actionText(
                try #require(harness.state.snapshot?.rows.last { $0.product.id == "comics.yearly" }),
                harness.state.snapshot!)
                == "2 years at $4.99 a year, then $9.99/year Subscribe")
        harness.press(.down, .enter)
        try harness.refresh()
        lines = harness.lines()
        #expect(
            lines[1] == " All Access (Monthly): free trial, renews 22/01/2026",
            "the plan replaces R6's header: no non-renewing products here")
        #expect(lines.contains { $0.contains("All Access (Monthly)") && $0.hasSuffix("✓ Subscribed") })
        #expect(lines.contains { $0.contains("One a Week (Weekly)") && $0.hasSuffix("$0.99/week Downgrade") })
        #expect(lines.contains { $0.contains("All Access (Weekly)") && $0.hasSuffix("$1.99/week Switch") })
        harness.press(.enter)
        #expect(harness.state.banner?.text == "Subscribed to All Access (Monthly) ✓ — t to manage the plan")
    }

    @Test("the transaction manager cancels, turns renewal back on, toggles billing and grace, renews, refunds")
    func managerKeys() throws {
        let harness = try Harness(
            size: Size(columns: 90, rows: 16), catalog: selfiesCatalog, user: "ann", route: .transactions)
        harness.press(.character("c"))
        #expect(harness.state.banner?.text == "No auto-renewable plan yet: subscribe to one first")
        try harness.store.queue.buy("allaccess")
        try harness.refresh()
        harness.press(.character("c"))
        #expect(harness.effects.last == .plan(.cancel, productID: "allaccess"))
        #expect(harness.state.banner?.text == "All Access (Weekly): cancelled, ends 22/01/2026")
        harness.press(.character("o"))
        #expect(try harness.store.plans.subscriptions().first?.autoRenew == true)
        harness.press(.character("g"), .character("B"))
        try harness.refresh()
        #expect(harness.state.snapshot?.billing == BillingSetting(failing: true, graceDays: 16))
        #expect(harness.lines().contains(" Renewals       billing fails (retry) · grace 16 days"))
        harness.press(.character("w"))
        #expect(try harness.store.plans.subscriptions().first?.renewals == 1)
        harness.press(.character("f"))
        try harness.refresh()
        #expect(harness.state.banner?.kind == .success)
        #expect(try harness.store.plans.subscriptions().first?.hasAccess == false)
        harness.press(.character("e"))
        #expect(harness.state.banner?.text.contains("it has expired") == true)
    }

    @Test("D3 the transaction manager's log labels a renewal as one; a purchase made here has no label")
    func renewalLabel() throws {
        let harness = try Harness(
            size: Size(columns: 90, rows: 20), catalog: selfiesCatalog, user: "ann", route: .transactions)
        try harness.store.queue.buy("allaccess")
        try harness.refresh()
        harness.press(.character("w"))
        try harness.refresh()
        harness.tick()
        let arrivals = harness.state.log.map(\.arrival)
        #expect(
            arrivals.contains(.renewal) && harness.state.log.first.map { $0.arrival == nil } == true,
            "\(harness.state.log)")
        let logged = harness.lines().filter { $0.contains("All Access (Weekly)") && $0.contains("purchased") }
        #expect(logged.count == 2 && logged.filter { $0.contains("(renewal)") }.count == 1, "\(logged)")
    }

    @Test("with comics and a plan in one catalog, R6's header stays and the plan goes under it")
    func bothKinds() throws {
        var products = appCatalog.products
        products.append(selfiesCatalog.products.first { $0.id == "comics.yearly" }!)
        let harness = try Harness(
            size: Size(columns: 90, rows: 16), catalog: Catalog(name: "Both", products: products), user: "ann")
        try harness.store.queue.buy("comics.yearly")
        try harness.refresh()
        let lines = harness.lines()
        #expect(lines[1] == " Not Subscribed")
        #expect(lines[2] == " Plan: Comics (Yearly): introductory offer, renews 15/01/2027")
        #expect(lines.contains { $0.contains("Night Shift") && $0.hasSuffix("✓") }, "all-comics unlocks every comic")
    }
}

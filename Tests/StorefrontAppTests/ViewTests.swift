// Frames rendered from states and compared as text (T1, R1–R3, R6–R8, T3's sizes).
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import TestSupport
import Testing

@testable import StorefrontApp

@Suite("Views")
struct ViewTests {
    @Test("R1 R3 the guest's product list: prices with Buy, subscriptions ask to sign in")
    func guestList() throws {
        let harness = try Harness()
        #expect(
            harness.lines() == [
                " Comics                                               guest",
                " Not Subscribed",
                "",
                "▸ Night Shift         An owl bakes b…             $0.99 Buy",
                "  Cat Judge           Order in the c…             $1.49 Buy",
                "  Random Comics ×5    Five random vi…    0 left · $0.99 Buy",
                "  3 Months of Comics  Everything, 3 …  Sign in to subscribe",
                "", "", "", "", "", "",
                " ↑↓ move  ⏎ open  b buy  r restore  n random  t u ? q",
            ])
    }

    @Test(
        "S2 N6 the transaction manager: i inspects the newest transaction's signed form; the notifications panel follows delivery"
    )
    func inspectorAndNotifications() throws {
        let harness = try Harness(size: Size(columns: 80, rows: 30), user: "ann")
        try harness.store.notifications.setWebhook(Webhook(url: "http://127.0.0.1:9/apple"))
        harness.press(.character("b"), .character("t"), .character("i"))
        let inspection = try #require(harness.state.inspection)
        #expect(inspection.title == "Night Shift — signed transaction")
        #expect(
            inspection.lines.contains("productId: comic.owl") && inspection.lines.contains("price: 990"),
            "\(inspection.lines)")
        #expect(harness.lines().contains { $0.contains("transactionReason: PURCHASE") })
        harness.press(.character("x"))
        #expect(harness.state.inspection == nil, "any key closes it, and does nothing else")
        try harness.refresh()
        let lines = harness.lines()
        #expect(lines.contains(" Notifications  → http://127.0.0.1:9/apple"), "\(lines.joined(separator: "\n"))")
        #expect(
            lines.contains { $0.contains("               12:00:00  ONE_TIME_CHARGE  pending") },
            "\(lines.joined(separator: "\n"))")
        // Three months on, the same notification says which day it was written.
        harness.temporary.clock.advance(seconds: 90 * 86_400)
        try harness.refresh()
        #expect(
            harness.lines().contains { $0.contains("2026-01-15 12:00:00  ONE_TIME_CHARGE  pending") },
            "\(harness.lines().joined(separator: "\n"))")
    }

    @Test("V7 the transaction manager lists the newest requests storefront serve answered")
    func servedRequests() throws {
        let harness = try Harness(size: Size(columns: 80, rows: 24))
        for (path, status) in [
            ("/inApps/v1/transactions/2000000000000001", 200), ("/inApps/v2/history/abc", 400),
            ("/inApps/v1/subscriptions/2000000000000001", 200),
        ] {
            try harness.store.records.recordRequests([
                ServedRequest(
                    at: Date(timeIntervalSince1970: 1_768_478_400), method: "GET", path: path, status: status,
                    milliseconds: 3)
            ])
        }
        try harness.refresh()
        harness.press(.character("t"))
        let lines = harness.lines().filter { $0.contains("API request") }
        #expect(
            lines == [
                " API request    12:00:00  GET /inApps/v2/history/abc  400",
                " API request    12:00:00  GET /inApps/v1/subscriptions/2000000000000001  200",
            ], "the newest two, oldest first: \(harness.lines().joined(separator: "\n"))")
    }

    @Test(
        "Q7 a simulated Load Products error: the list says so and retries each tick; E in the transaction manager steps the errors"
    )
    func simulatedErrors() throws {
        let harness = try Harness()
        harness.press(.character("t"), .character("E"))
        #expect(harness.state.snapshot?.simulatedErrors.lines == ["Load Products: StoreKitError.networkError"])
        #expect(
            harness.lines().contains(" StoreKit errors Load Products: StoreKitError.networkError"), "\(harness.lines())"
        )
        harness.press(.character("q"))
        var lines = harness.lines()
        #expect(lines.contains { $0.contains("Could not load the products") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("Load Products failed: StoreKitError.networkError") })
        #expect(harness.state.snapshot?.rows.isEmpty == true)
        harness.press(.character("b"))
        try harness.store.settings.setSimulatedErrors(SimulatedErrors())
        harness.tick()
        lines = harness.lines()
        #expect(lines[3].contains("Night Shift"), "the next tick loads the list again: \(lines)")
        #expect(try harness.store.queue.history().isEmpty, "b on a failed list bought nothing")
    }

    @Test(
        "RESCIND_CONSENT: a member whose organizer withdrew consent finds the app closed, says who; b, ⏎, n and r open and buy nothing; consent given again opens it at the next tick"
    )
    func consentWithdrawn() throws {
        let harness = try Harness(user: "ann")
        let family = Family(organizer: "mom", members: ["ann"])
        var withdrawn = family
        withdrawn.consentWithdrawn = [ConsentWithdrawal(member: "ann", at: Date(timeIntervalSince1970: 1_768_478_400))]
        #expect(try harness.store.server.changeFamily(FamilyChange(organizer: "mom", expected: nil, new: withdrawn)))
        try harness.refresh()
        var lines = harness.lines()
        #expect(lines.contains { $0.contains("This app is closed to ann") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("ann's parent or guardian, mom, withdrew") })
        #expect(harness.state.snapshot?.rows.isEmpty == true && harness.state.snapshot?.consentWithdrawnBy == "mom")
        harness.press(.character("b"), .enter, .character("n"), .character("b"), .character("r"))
        #expect(
            harness.state.route == .products
                && harness.state.banner?.text == "Closed: mom withdrew consent for this app")
        #expect(try harness.store.queue.history().isEmpty, "b, ⏎, n and r on a closed app opened and bought nothing")
        #expect(try harness.store.server.changeFamily(FamilyChange(organizer: "mom", expected: withdrawn, new: family)))
        harness.tick()
        lines = harness.lines()
        #expect(lines[3].contains("Night Shift"), "open again: \(lines)")
    }

    @Test(
        "C6 an empty configuration opens as an empty store that says there are no products yet; keys do nothing harmful"
    )
    func emptyCatalog() throws {
        let harness = try Harness(catalog: Catalog(name: "New", products: []))
        harness.press(.down, .enter, .character("b"), .up)
        let lines = harness.lines()
        #expect(lines[0].hasPrefix(" New"))
        #expect(lines.contains { $0.contains("No products yet.") }, "\(lines.joined(separator: "\n"))")
        #expect(harness.state.route == .products)
    }

    @Test("R1 R2 R3 R6 bought comic checked; subscribed: every comic checked, Renew, the header")
    func subscribedList() throws {
        let harness = try Harness(user: "ann")
        harness.press(.character("b"))
        #expect(harness.lines()[3] == "▸ Night Shift         An owl bakes bre…                   ✓")
        #expect(harness.lines()[4] == "  Cat Judge           Order in the cou…           $1.49 Buy")
        #expect(harness.lines()[6] == "  3 Months of Comics  Everything, 3 mo…     $2.99 Subscribe")
        #expect(harness.lines()[12] == " Purchased Night Shift ✓")
        harness.press(.down, .down, .down, .character("b"))
        #expect(
            harness.lines() == [
                " Comics                                                 ann",
                " Subscribed! Expires: 16/04/2026 (91 Days)",
                "",
                "  Night Shift         An owl bakes bre…                   ✓",
                "  Cat Judge           Order in the cou…                   ✓",
                "  Random Comics ×5    Five random view…  ∞ left · $0.99 Buy",
                "▸ 3 Months of Comics  Everything, 3 mo…         $2.99 Renew",
                "", "", "", "", "",
                " Purchased 3 Months of Comics ✓",
                " ↑↓ move  ⏎ open  b buy  r restore  n random  t u ? q",
            ])
    }

    @Test("R6 the header says less than a day in words, and Not Subscribed at the second of expiry")
    func headerAtExpiry() throws {
        let harness = try Harness(user: "ann")
        harness.press(.down, .down, .down, .character("b"))
        harness.temporary.clock.set(utc(2026, 4, 16, 11, 59, 59))
        try harness.refresh()
        #expect(harness.lines()[1] == " Subscribed! Expires: 16/04/2026 (less than 1 Day: 1s left)")
        harness.temporary.clock.set(utc(2026, 4, 16, 12))
        try harness.refresh()
        #expect(harness.lines()[1] == " Not Subscribed")
        #expect(harness.lines()[6].hasSuffix("$2.99 Subscribe"))
    }

    @Test("rows in flight say so: purchasing, waiting for approval, needs action")
    func inFlight() throws {
        let harness = try Harness()
        try harness.store.queue.buy("comic.owl", outcome: .delayed(after: .seconds(60), approve: true))
        try harness.store.queue.buy("comic.cat", outcome: .defer)
        try harness.store.queue.buy("pack", outcome: .interrupt)
        try harness.refresh()
        let lines = harness.lines()
        #expect(lines[3].hasSuffix("Purchasing…"))
        #expect(lines[4].hasSuffix("Waiting for approval"))
        #expect(lines[5].hasSuffix("Needs action"))
    }

    @Test("R8 a locked comic says Purchase to see comic!")
    func lockedDetail() throws {
        let harness = try Harness()
        harness.press(.enter)
        #expect(
            harness.lines() == [
                " Comics › Night Shift                                 guest",
                " Not Subscribed",
                " Night Shift",
                " An owl bakes bread.",
                " ┌────────────────────────────────────────────────────────┐",
                " │                                                        │",
                " │                                                        │",
                " │                 Purchase to see comic!                 │",
                " │                      b Buy $0.99                       │",
                " │                                                        │",
                " │                                                        │",
                " └────────────────────────────────────────────────────────┘",
                "",
                " b buy  r restore  t transactions  ? help  q back",
            ])
    }

    @Test("T4 an unlocked comic shows its picture; a bad one a framed placeholder with file and reason")
    func unlockedDetail() throws {
        let harness = try Harness()
        harness.press(.character("b"), .enter)
        let picture = Picture(RGBAImage(width: 8, height: 8, fill: RGBA(255, 255, 255)))
        let drawn = harness.lines(pictures: { _ in .picture(picture) })
        #expect(drawn.contains { $0.contains("@@@@") })
        #expect(!drawn.joined().contains("Purchase to see comic!"))
        let colour = harness.screen(depth: .palette256, pictures: { _ in .picture(picture) })
        #expect(colour.cells.contains { $0.text == "▀" && $0.style.foreground == .indexed(231) })
        let broken = harness.lines(pictures: { path in .failure(file: path ?? "", reason: "Not a PNG file") })
        #expect(broken.contains { $0.contains("[ picture unavailable ]") })
        #expect(broken.contains { $0.contains("owl.png") })
        #expect(broken.contains { $0.contains("Not a PNG file") })
    }

    @Test("R7 the random viewer: views left, the comic, and at zero how to get more")
    func randomViewer() throws {
        let harness = try Harness()
        harness.press(.character("n"))
        var lines = harness.lines()
        #expect(lines[2] == " Random comics left: 0")
        #expect(lines.contains { $0.contains("No random comics left") })
        #expect(lines.contains { $0.contains("b Buy Random Comics ×5") })
        harness.press(.character("b"))
        harness.press(.character("n"))
        lines = harness.lines()
        #expect(lines[2] == " Random comics left: 4")
        #expect(
            lines[lines.count - 3].contains("Night Shift"),
            "the title sits above the banner row, so a banner never hides it")
    }

    /// A guest's pack bought under the defer policy, seen waiting in the transaction manager.
    func deferredPackInManager() throws -> Harness {
        let harness = try Harness()
        try harness.store.queue.setPolicy(.defer)
        try harness.refresh()
        harness.press(.down, .down, .character("b"), .character("t"))
        return harness
    }

    @Test("T1 the transaction manager: clock, policy, pending list and the live log")
    func transactionManager() throws {
        let harness = try deferredPackInManager()
        let id = try #require(harness.state.snapshot?.pending.first?.id.prefix(8))
        #expect(
            harness.lines() == [
                " Comics › Transactions                                guest",
                " Not Subscribed",
                " Clock          2026-01-15 12:00:00 · real time (no offset)",
                " Next purchase  defer",
                " Pending        1",
                " ▸ \(id)  Random Comics ×5  Waiting for approval",
                " Log",
                " 12:00:00  \(id)  Random Comics ×5  purchasing",
                " 12:00:00  \(id)  Random Comics ×5  deferred",
                "", "", "", "",
                " ↑↓ select  a approve  x decline  s p d m h 0 r i E ? q",
            ])
        // D3: after `a` the line it caused is the newest one shown, above the banner's row.
        harness.press(.character("a"))
        let lines = harness.lines()
        let newest = lines.dropLast(2).last { !$0.isEmpty }
        #expect(newest?.contains("\(id)  Random Comics ×5  purchased") == true, "\(lines.suffix(6))")
        #expect(!lines[lines.count - 2].isEmpty, "the banner says what happened")
    }

    @Test(
        "W1 W4 a failure too long for the banner's line is worded in full on up to three lines, above the log's newest line"
    )
    func longFailure() throws {
        let harness = try deferredPackInManager()
        let failure = StoreError.notSoldByServer(productID: "com.storefront.comic.owl", server: "http://127.0.0.1:8080")
            .description
        harness.send(.failed(failure))
        let lines = harness.lines()
        let banner = lines[(lines.count - 4)...].dropLast()
        #expect(banner.count == 3 && banner.allSatisfy { $0.hasPrefix(" ") && TextWidth.of($0) <= 59 }, "\(lines)")
        // Its words, in order, with the fix the end names; the rest cut with "…".
        let words = banner.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(
            words.hasPrefix("the account server http://127.0.0.1:8080 does not sell com.storefront.comic.owl:"),
            "\(words)")
        #expect(words.contains("`storefront serve --catalog FILE`") && words.hasSuffix("…"), "\(words)")
        #expect(failure.hasPrefix(String(words.dropLast())), "\(words)")
        // The log keeps its newest line above the banner, as with one line.
        let newest = lines.dropLast(4).last { !$0.isEmpty }
        #expect(newest?.contains("Random Comics ×5  deferred") == true, "\(lines)")
        // The next key takes it away; news stays on one line, cut.
        harness.press(.character("z"))
        harness.send(.failed("short"))
        #expect(
            harness.lines()[lines.count - 2] == " short" && harness.lines()[lines.count - 3].isEmpty,
            "\(harness.lines())")
        // The account server's problem is a failure too.
        harness.state.serverProblem = failure
        #expect(harness.lines()[(lines.count - 4)...].dropLast().allSatisfy { !$0.isEmpty }, "\(harness.lines())")
    }

    @Test(
        "D1 T2 news too long for a narrow pane is worded in full too: the key it names at its end (q to quit, t to approve) is seen"
    )
    func longNews() throws {
        let harness = try Harness(size: Size(columns: 40, rows: 12))
        for text in [
            "Scenario finished: 4 passed, 0 failed — q to quit",
            "Random Comics ×5: waiting for approval (Ask to Buy) — t to approve or decline",
        ] {
            harness.send(.showBanner(Banner(text, kind: .success)))
            let lines = harness.lines()
            let banner = lines.dropLast().suffix(2)
            #expect(banner.allSatisfy { $0.hasPrefix(" ") && TextWidth.of($0) <= 39 }, "\(lines)")
            #expect(banner.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") == text, "\(lines)")
            harness.press(.character("z"))
        }
    }

    @Test(
        "D3 once the log spans more than a day its times carry dates; a catalog without random comics offers no random key"
    )
    func datedLogAndNoRandom() throws {
        let harness = try deferredPackInManager()
        harness.temporary.clock.advance(seconds: 2 * 86_400)
        harness.press(.character("a"))
        let log = harness.lines().drop { $0 != " Log" }.filter { $0.contains("Random Comics ×5  ") }
        #expect(
            log.first?.hasPrefix(" 2026-01-15 12:00:00") == true && log.last?.contains("2026-01-17") == true,
            "\(Array(log))")
        // A catalog whose random viewer would be empty does not offer it.
        let selfies = try Harness(
            catalog: Catalog(products: selfiesCatalog.products.filter { $0.kind == .autoRenewableSubscription }))
        #expect(!selfies.lines().last!.contains("random"))
        selfies.press(.character("n"))
        #expect(selfies.state.route == .products && selfies.lines().contains { $0.contains("no random comics") })
    }

    @Test("T1 sign in screen, with the typed name and a masked password")
    func signIn() throws {
        let harness = try Harness(route: .signIn)
        harness.type("ann")
        harness.press(.tab)
        harness.type("pw")
        let lines = harness.lines()
        #expect(lines[2] == "       Sign in or sign up to buy subscriptions")
        #expect(lines[4] == "       Name ann")
        #expect(lines[5] == "       Password ••_")
        #expect(lines[6] == "       [Sign in] [Sign up] [Guest]")
    }

    @Test("T3 at 20×6 the list still works; below it says too small and recovers")
    func smallSizes() throws {
        let harness = try Harness(size: Size(columns: 20, rows: 6))
        #expect(
            harness.lines() == [
                " Comics       guest",
                " Not Subscribed",
                "▸ Night … $0.99 Buy",
                "  Cat Ju… $1.49 Buy",
                "",
                " ↑↓ ⏎ b r n t u ? q",
            ])
        harness.send(.resize(Size(columns: 19, rows: 5)))
        #expect(harness.lines() == ["Window too small", "need 20×6", "now 19×5", "", ""])
        harness.send(.resize(Size(columns: 2, rows: 1)))
        #expect(harness.lines() == ["W…"])
        harness.send(.resize(Size(columns: 20, rows: 6)))
        #expect(harness.lines()[0] == " Comics       guest")
        // Moving past the visible rows pages the list.
        harness.press(.down, .down)
        #expect(harness.lines()[2] == "▸ Random… $0.99 Buy")
    }

    @Test("T3 a large 200×60 window")
    func largeSize() throws {
        let harness = try Harness(size: Size(columns: 200, rows: 60))
        let lines = harness.screen().lines
        #expect(lines.count == 60 && lines.allSatisfy { TextWidth.of($0) == 200 })
        #expect(lines[3].hasPrefix("▸ Night Shift         An owl bakes bread."))
        #expect(lines[3].hasSuffix("$0.99 Buy "))
        #expect(
            lines[59].hasPrefix(
                " ↑↓ move  ⏎ open  b buy  r restore  n random  t transactions  u account  ? help  q quit"))
    }

    @Test("wide-character names are laid out by column width")
    func wideNames() throws {
        let catalog = Catalog(
            name: "漫画店",
            products: [
                Product(
                    id: "c1", kind: .nonConsumable, title: "夜勤のフクロウ", description: "パン屋の夜",
                    price: Decimal(string: "120")!, image: "a.png"),
                Product(
                    id: "c2", kind: .nonConsumable, title: "قصص القطط", description: "قاضي",
                    price: Decimal(string: "1")!, image: "b.png"),
            ])
        let harness = try Harness(catalog: catalog)
        let lines = harness.screen().lines
        #expect(lines.allSatisfy { TextWidth.of($0) == 60 })
        #expect(lines[0].hasPrefix(" 漫画店"))
        #expect(lines[3].hasPrefix("▸ 夜勤のフクロウ  パン屋の夜"))
        #expect(lines[4].hasPrefix("  قصص القطط       قاضي"))
        // Descriptions line up whatever the names' widths, and prices end at the same column.
        let column = { (line: String, text: String) in TextWidth.of(String(line[..<line.range(of: text)!.lowerBound])) }
        #expect(column(lines[3], "パン屋の夜") == column(lines[4], "قاضي"))
        #expect(lines[3].hasSuffix("$120.00 Buy ") && lines[4].hasSuffix("$1.00 Buy "))
    }

    @Test("the help overlay lists every key and any key closes it")
    func help() throws {
        let harness = try Harness(size: Size(columns: 60, rows: 18))
        harness.press(.character("?"))
        let text = harness.lines().joined(separator: "\n")
        // Every key the product list binds is in its help, as the key map names it.
        for binding in keyMap
        where binding.places.contains(.products) && !binding.helpKeys.isEmpty && binding.command != .help {
            #expect(
                text.contains(binding.helpKeys + " ") && text.contains(binding.label),
                "help lacks \(binding.helpKeys) \(binding.label)")
        }
        #expect(harness.lines()[17] == " any key closes help")
        harness.press(.character("x"))
        #expect(!harness.state.showsHelp)
        // The transaction manager's help has its own keys.
        harness.press(.character("t"), .character("?"))
        let manager = harness.lines().joined(separator: "\n")
        for label in ["approve", "decline", "resolve", "policy", "+1 day", "+1 month", "+1 hour", "real time"] {
            #expect(manager.contains(label), "help lacks \(label)")
        }
    }

    @Test("without colour the frame uses no colours; with 8 colours only the first eight")
    func colourDepths() throws {
        let harness = try Harness(user: "ann")
        harness.press(.character("b"))
        let plain = harness.screen(depth: .none)
        #expect(plain.cells.allSatisfy { $0.style.foreground == .default && $0.style.background == .default })
        #expect(plain.cells.contains { $0.style.isReverse })
        let eight = harness.screen(depth: .eight)
        for cell in eight.cells {
            for color in [cell.style.foreground, cell.style.background] {
                if case .indexed(let index) = color { #expect(index <= 7, "cell \(cell)") }
            }
        }
    }
}

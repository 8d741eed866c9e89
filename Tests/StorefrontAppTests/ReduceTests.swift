// Key sequences through reduce, with whole-state assertions (T2, Q1, Q4).
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("Reduce")
struct ReduceTests {
    @Test("T2 arrows and j/k move within the list; q quits")
    func movement() throws {
        let harness = try Harness()
        var expected = harness.state
        harness.press(.down, .character("j"), .down, .down, .down)
        expected.selection = 3
        #expect(harness.state == expected)
        harness.press(.up, .character("k"), .up, .up)
        expected.selection = 0
        #expect(harness.state == expected)
        harness.press(.end)
        expected.selection = 3
        #expect(harness.state == expected)
        harness.press(.character("q"))
        expected.isRunning = false
        #expect(harness.state == expected)
        #expect(harness.effects == [.quit])
    }

    @Test("T2 Enter opens a comic, q goes back; Esc quits from the list")
    func navigation() throws {
        let harness = try Harness()
        var expected = harness.state
        harness.press(.down, .enter)
        expected.selection = 1
        expected.route = .detail("comic.cat")
        #expect(harness.state == expected)
        harness.press(.escape)
        expected.route = .products
        #expect(harness.state == expected)
        harness.press(.character("t"))
        expected.route = .transactions
        #expect(harness.state == expected)
        harness.press(.character("q"), .escape)
        expected.route = .products
        expected.isRunning = false
        #expect(harness.state == expected)
    }

    @Test("Q1 Q4 a deferred purchase approved from the transaction manager")
    func deferredApproved() throws {
        let harness = try Harness()
        try harness.store.queue.setPolicy(.defer)
        try harness.refresh()
        harness.press(.down, .down, .character("b"))
        var expected = harness.state
        let pending = try #require(harness.state.snapshot?.pending.first)
        #expect(pending.state == .deferred)
        #expect(
            harness.state.banner
                == Banner("Random Comics ×5: waiting for approval (Ask to Buy) — t to approve or decline"))
        #expect(harness.state.log.map(\.state) == [.purchasing, .deferred])
        #expect(harness.state.snapshot?.rows[2].pending == .deferred)

        harness.press(.character("t"))
        expected.route = .transactions
        expected.banner = nil
        #expect(harness.state == expected)

        harness.press(.character("a"))
        #expect(harness.effects.last == .approve(pending.id))
        expected.banner = Banner("Purchased Random Comics ×5 ✓", kind: .success)
        expected.log += harness.state.log.suffix(1)
        expected.snapshot = try harness.live.snapshot()
        #expect(harness.state == expected)
        #expect(harness.state.log.map(\.state) == [.purchasing, .deferred, .purchased])
        #expect(harness.state.snapshot?.pending.isEmpty == true)
        #expect(harness.state.snapshot?.status.randomViewsRemaining == 5)
    }

    @Test("Q4 a declined request and a cancelled interruption fail with their reasons")
    func declined() throws {
        let harness = try Harness()
        try harness.store.queue.buy("comic.owl", outcome: .defer)
        try harness.store.queue.buy("comic.cat", outcome: .interrupt)
        try harness.refresh()
        harness.press(.character("t"), .character("x"))
        #expect(
            harness.state.banner
                == Banner("Purchase of Night Shift failed (declined: the request to buy was declined)", kind: .failure))
        harness.press(.character("s"))
        #expect(harness.state.banner == Banner("Purchased Cat Judge ✓", kind: .success))
        #expect(harness.state.snapshot?.status.owned == ["comic.cat"])
    }

    @Test("Q4 every failure reason reaches the screen in words", arguments: FailureReason.policyReasons)
    func failures(reason: FailureReason) throws {
        let harness = try Harness()
        try harness.store.queue.setPolicy(.fail(reason))
        try harness.refresh()
        harness.press(.character("b"))
        #expect(
            harness.state.banner
                == Banner("Purchase of Night Shift failed (\(reason.rawValue): \(reason.explanation))", kind: .failure))
        #expect(harness.state.snapshot?.rows[0].action == .buy)
        // Worded in full on the screen: the banner grows upwards from the row above the footer.
        let lines = harness.lines()
        let start = try #require(lines.lastIndex { $0.hasPrefix(" Purchase of Night Shift failed (") })
        #expect(
            lines[start...12].map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                == harness.state.banner?.text, "\(lines)")
    }

    @Test("Q4 p cycles the outcome policy through every choice and back")
    func policyCycle() throws {
        let harness = try Harness(route: .transactions)
        var seen: [PurchaseOutcome] = []
        for _ in policyChoices {
            harness.press(.character("p"))
            seen.append(try harness.store.queue.policy())
        }
        #expect(seen == Array(policyChoices.dropFirst()) + [policyChoices[0]])
        harness.press(.character("P"))
        #expect(try harness.store.queue.policy() == policyChoices.last)
    }

    @Test("Q5 the manager moves the clock; a delayed approval lands when it passes")
    func clockKeys() throws {
        let harness = try Harness(size: Size(columns: 80, rows: 14), route: .transactions)
        try harness.store.queue.buy("pack", outcome: .delayed(after: .seconds(90), approve: true))
        try harness.refresh()
        #expect(harness.lines()[5].contains("Purchasing… (approves at 12:01:30)"))
        // The manual clock stands in for the state folder's; the store sees the move on its tick.
        harness.temporary.clock.advance(seconds: 120)
        harness.tick()
        #expect(harness.state.snapshot?.status.randomViewsRemaining == 5)
        #expect(harness.state.log.last?.state == .purchased)
    }

    @Test("A1 signing up from the form lands on the list, signed in")
    func signUpForm() throws {
        let harness = try Harness(route: .signIn)
        harness.type("zoe")
        harness.press(.tab)
        harness.type("secret")
        harness.press(.tab, .tab)
        #expect(harness.state.form.focus == .signUp)
        harness.press(.enter)
        #expect(harness.effects == [.signUp(name: "zoe", password: "secret")])
        #expect(harness.state.route == .products)
        #expect(harness.state.banner == Banner("Signed in as zoe", kind: .success))
        #expect(harness.state.snapshot?.status.user == "zoe")
        #expect(harness.state.form == SignInForm())
    }

    @Test("A1 T2 the form's buttons stand in a row, and → ← move along it; in the name and password they do nothing")
    func buttonsInARow() throws {
        let harness = try Harness(route: .signIn)
        harness.type("zoe")
        harness.press(.right)
        #expect(harness.state.form.focus == .name && harness.state.form.name == "zoe")
        harness.press(.tab)
        harness.type("secret")
        harness.press(.left)
        #expect(harness.state.form.focus == .password)
        harness.press(.tab)
        #expect(harness.state.form.focus == .signIn)
        harness.press(.right)
        #expect(harness.state.form.focus == .signUp)
        harness.press(.right, .right)
        #expect(harness.state.form.focus == .signIn, "round the row: Guest, then Sign in again")
        harness.press(.left)
        #expect(harness.state.form.focus == .guest)
        harness.press(.left, .enter)
        #expect(harness.effects == [.signUp(name: "zoe", password: "secret")])
    }

    @Test("A1 a wrong password shows on the form and changes nothing")
    func wrongPassword() throws {
        let harness = try Harness(user: "ann")
        try harness.store.accounts.signOut()
        try harness.refresh()
        harness.press(.character("u"))
        harness.type("ann")
        harness.press(.tab)
        harness.type("nope")
        harness.press(.enter)
        #expect(harness.state.route == .signIn)
        #expect(harness.state.form.error == "wrong password for \"ann\"")
        #expect(try harness.store.accounts.currentUser() == nil)
    }

    @Test("R3 buying a subscription as a guest leads to the sign-in form")
    func subscriptionNeedsAccount() throws {
        let harness = try Harness()
        harness.press(.end, .character("b"))
        #expect(harness.state.route == .signIn)
        #expect(harness.state.form.error == "Subscriptions need an account: sign in or sign up")
        #expect(harness.effects.isEmpty)
    }

    @Test("T2 a click selects a row, a click on its price buys, a double-click opens")
    func mouse() throws {
        let harness = try Harness()
        harness.send(.mouse(MouseEvent(.click, x: 5, y: 4)))
        #expect(harness.state.selection == 1)
        #expect(harness.effects.isEmpty)
        harness.send(.mouse(MouseEvent(.click, x: 55, y: 4)))
        #expect(harness.effects == [.buy("comic.cat")])
        harness.send(.mouse(MouseEvent(.doubleClick, x: 5, y: 3)))
        #expect(harness.state.route == .detail("comic.owl"))
        harness.send(.mouse(MouseEvent(.click, x: 5, y: 40)))
        #expect(harness.state.selection == 0)
    }

    @Test(
        "T2 a click on a failure's banner that covers rows of the list takes the banner away and neither selects nor buys what it hides"
    )
    func clickOnBanner() throws {
        let harness = try Harness(size: Size(columns: 60, rows: 8))
        harness.send(.failed(String(repeating: "a failure worded at length ", count: 8)))
        let lines = harness.lines()
        #expect(
            lines[4].hasPrefix(" a failure") && lines[6].hasSuffix("…"),
            "the banner covers the list's rows 4 and 5: \(lines)")
        harness.send(.mouse(MouseEvent(.click, x: 55, y: 4)))
        #expect(harness.effects.isEmpty && harness.state.selection == 0 && harness.state.banner == nil)
        #expect(harness.lines()[4].contains("Random Comics ×5"), "\(harness.lines())")
        // The same click with no banner buys the pack, as clicks on prices do.
        harness.send(.mouse(MouseEvent(.click, x: 55, y: 4)))
        #expect(harness.effects == [.buy("pack")], "\(harness.effects)")
    }

    @Test("A5 restore says what came back")
    func restore() throws {
        let harness = try Harness(user: "ann")
        harness.press(.character("b"))
        harness.press(.character("r"))
        #expect(harness.state.banner == Banner("Restored 1 comic: Night Shift", kind: .success))
    }

    @Test("Ctrl-C or SIGTERM ends the loop")
    func interrupt() throws {
        let harness = try Harness()
        harness.send(.interrupt)
        #expect(!harness.state.isRunning)
    }
}

@Suite("Reduce, cases the fuzzer found")
struct FuzzFoundTests {
    @Test("a click below the last product does nothing (was: index out of range)")
    func clickBelowTheList() throws {
        let harness = try Harness(size: Size(columns: 60, rows: 30))
        let before = harness.state
        harness.send(.mouse(MouseEvent(.click, x: 5, y: 20)))
        harness.send(.mouse(MouseEvent(.doubleClick, x: 55, y: 25)))
        #expect(harness.state == before)
        #expect(harness.effects.isEmpty)
    }
}

@Suite("The transaction log")
struct TransactionLogTests {
    @Test("Q2 the manager's log opens with the device's recent past, then follows every change")
    func recentPast() throws {
        let harness = try Harness()
        try harness.store.queue.buy("comic.owl")
        try harness.store.queue.buy("pack", outcome: .fail(.network))
        // A screen opened now starts from what already happened on this device.
        let screen = LiveStore(store: harness.store)
        var state = AppState(route: .transactions, size: Size(columns: 60, rows: 14))
        for action in screen.perform(.settle) { _ = reduce(&state, action) }
        #expect(state.log.map(\.state) == [.purchasing, .purchased, .purchasing, .failed])
        #expect(state.log.last?.reason == .network)
    }

    @Test(
        "M3 the screen buys with the signed-in account's own app account token (the same for the same name), a guest with none"
    )
    func appAccountToken() throws {
        let harness = try Harness(user: "ann")
        let screen = LiveStore(store: harness.store)
        let bought = screen.perform(.buy("comic.owl")).compactMap { action -> StoreTransaction? in
            if case .purchased(let transaction) = action { return transaction }
            return nil
        }
        let token = AppAccountToken.of(account: "ANN").uuidString.lowercased()
        #expect(bought.map(\.appAccountToken) == [token])
        #expect(AppAccountToken.of(account: "ann") != AppAccountToken.of(account: "bob"))
        #expect(
            try bought.first.flatMap { try harness.store.signed.transaction($0) }?.payload["appAccountToken"] as? String
                == token, "and it is signed")
        let guest = try Harness()
        let unsigned = LiveStore(store: guest.store).perform(.buy("comic.owl")).compactMap {
            action -> StoreTransaction? in
            if case .purchased(let transaction) = action { return transaction }
            return nil
        }
        #expect(unsigned.count == 1 && unsigned[0].appAccountToken == nil)
    }

    @Test(
        "O2 O3 the offer sheet: o opens it on the selected plan; ⏎ buys on the chosen promotional offer, or redeems a typed code; the store answers in the banner"
    )
    func offerSheet() throws {
        let harness = try Harness(catalog: selfiesCatalog, user: "ann", seed: 1)
        try harness.store.queue.buy("allaccess")
        _ = try harness.store.plans.perform(.expire, on: "allaccess")
        try harness.refresh()
        harness.press(.down, .character("o"))
        #expect(harness.state.route == .offers("allaccess.monthly"))
        var expected = harness.state
        harness.press(.down, .down, .down, .up)
        expected.offerForm.selection = 1
        #expect(harness.state == expected, "two promotional offers and a win-back one: the selection stays on them")
        harness.press(.enter)
        #expect(harness.effects.suffix(1) == [.buyOffer(productID: "allaccess.monthly", offerID: "free.month")])
        #expect(harness.state.route == .products)
        #expect(harness.state.banner?.text == "Purchased All Access (Monthly) ✓")
        #expect(try harness.store.plans.subscriptions().first?.offerID == "free.month")
        let code = try harness.store.offers.createCodes(offer: "ANYONE", count: 1, custom: nil, limit: 1)[0].code
        harness.press(.character("o"))
        harness.type(code)
        harness.press(.backspace)
        harness.type(String(code.last!))
        harness.press(.enter)
        #expect(harness.effects.suffix(1) == [.redeem(code)])
        #expect(harness.state.banner?.text == "Purchased All Access (Monthly) ✓")
        harness.press(.character("o"))
        harness.type(code)
        harness.press(.enter)
        #expect(harness.state.banner?.text == "the offer code \"\(code)\" has been used up")
        #expect(harness.state.banner?.kind == .failure)
        harness.press(.character("o"), .escape)
        #expect(harness.state.route == .products)
    }

    @Test(
        "M4 the offer sheet of a plan with a monthly billing plan lists it first; ⏎ on it buys the monthly plan (a 12-month commitment); a plan without one lists only offers"
    )
    func monthlyInSheet() throws {
        let catalog = try CatalogLoader.load(contentsOf: shippedFolder.appendingPathComponent("yearly.json")).catalog
        let harness = try Harness(catalog: catalog, user: "cy", seed: 1)
        harness.press(.character("o"))
        #expect(harness.state.route == .offers("y.all"))
        if case .billing(.monthly, let price)? = sheetChoices(harness.state, "y.all").first {
            #expect(price == Decimal(string: "4.99"))
        } else {
            Issue.record("the monthly plan is not first: \(sheetChoices(harness.state, "y.all"))")
        }
        #expect(sheetChoices(harness.state, "y.lite").isEmpty)
        harness.press(.enter)
        #expect(harness.effects.suffix(1) == [.buyBilled("y.all", .monthly)])
        #expect(harness.state.route == .products)
        let plan = try #require(try harness.store.plans.subscriptions().first)
        #expect(
            plan.productID == "y.all" && plan.commitment?.period == 1
                && plan.commitment?.price == Decimal(string: "4.99"))
    }

}

extension ReduceTests {
    @Test(
        "F3 S in the transaction manager steps the account through the catalog's storefronts; the next snapshot redraws prices and says the change; a guest, or a catalog of one storefront, is told why not"
    )
    func storefrontKey() throws {
        let data = try #require(ShippedAssets.data("world.json"))
        let world = try CatalogLoader.parse(data, fileName: "world.json").0
        let harness = try Harness(size: Size(columns: 100, rows: 30), catalog: world, user: "kid", route: .transactions)
        #expect(harness.state.snapshot?.storefront == "USA")
        #expect(harness.state.snapshot?.storefrontChoices == ["USA", "FRA", "GBR", "JPN"])
        harness.press(.character("S"))
        #expect(harness.effects.last == .setStorefront("FRA"))
        #expect(harness.state.snapshot?.storefront == "FRA" && harness.state.snapshot?.currencyCode == "EUR")
        #expect(harness.state.banner == Banner("Storefront changed to FRA: prices in EUR"))
        harness.press(.character("S"))
        #expect(harness.state.snapshot?.storefront == "GBR")
        #expect(harness.state.snapshot?.displayPrices["com.storefront.comic.mondaycoffee"] == "£0.79")
        #expect(try harness.store.accounts.storefront() == "GBR", "the store moved, not only the screen")

        let guest = try Harness(catalog: world, route: .transactions)
        guest.press(.character("S"))
        #expect(guest.effects.isEmpty && guest.state.banner?.text.hasPrefix("Sign in") == true)
        let single = try Harness(user: "ann", route: .transactions)
        single.press(.character("S"))
        #expect(single.effects.isEmpty && single.state.banner?.text.contains("only") == true)
        #expect(single.state.snapshot?.namesStorefront == false, "one storefront, and the account is in it")
        #expect(harness.state.snapshot?.namesStorefront == true)
        // An account moved (by the command line) away from a catalog of one storefront: the title
        // bar and the manager both say where it is.
        try single.store.accounts.setStorefront("GBR")
        var moved = try #require(single.state.snapshot)
        moved.storefront = try single.store.accounts.storefront()
        #expect(moved.storefrontChoices == ["USA"] && moved.namesStorefront)
        // There, S moves it back to the catalog's one storefront, and the banner names that one.
        try single.refresh()
        #expect(single.state.snapshot?.storefront == "GBR")
        single.press(.character("S"))
        #expect(single.effects.last == .setStorefront("USA"), "\(single.effects)")
        #expect(try single.store.accounts.storefront() == "USA")
        single.press(.character("S"))
        #expect(
            single.state.banner?.text.hasPrefix("This catalog sells in USA only") == true,
            "\(single.state.banner?.text ?? "")")
    }
}

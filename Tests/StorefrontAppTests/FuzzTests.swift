// Keystroke fuzzing: tens of thousands of random keys, clicks and resizes through reduce, the real
// store and render. No crash, and after every step the invariants a person relies on hold.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("Fuzzing the screen")
struct FuzzTests {
    static let keys: [Key] = [
        .up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .enter, .escape, .tab, .backTab, .backspace,
        .character("j"), .character("k"), .character("b"), .character("r"), .character("t"), .character("n"),
        .character("u"), .character("a"), .character("x"), .character("s"), .character("p"), .character("P"),
        .character("d"), .character("m"), .character("h"), .character("0"), .character("?"), .character(" "),
        .character("q"), .character("漫"), .character("é"), .control("l"), .function(5),
    ]

    @Test("20,000 random events: no crash; header agrees with the store; the selection is on screen")
    func fuzz() throws {
        var generator = SeededGenerator(seed: 20_261_122)
        let harness = try Harness(size: Size(columns: 80, rows: 24), user: "ann")
        for step in 0..<20_000 {
            let roll = Int.random(in: 0..<100, using: &generator)
            if roll < 80 {
                harness.send(.key(Self.keys.randomElement(using: &generator)!))
            } else if roll < 92 {
                let kind: MouseEvent.Kind = [.click, .doubleClick, .scrollUp, .scrollDown].randomElement(
                    using: &generator)!
                harness.send(
                    .mouse(
                        MouseEvent(
                            kind, x: Int.random(in: -2...120, using: &generator),
                            y: Int.random(in: -2...40, using: &generator))))
            } else if roll < 97 {
                harness.send(
                    .resize(
                        Size(
                            columns: Int.random(in: 0...220, using: &generator),
                            rows: Int.random(in: 0...70, using: &generator))))
            } else {
                harness.tick()
            }
            // q and Esc quit the list; the fuzzer keeps going as if the program had been restarted.
            harness.state.isRunning = true
            try check(harness, step: step)
        }
    }

    func check(_ harness: Harness, step: Int) throws {
        let state = harness.state
        let screen = harness.screen(depth: .palette256)
        #expect(screen.size == state.size, "step \(step)")
        guard let snapshot = state.snapshot else { return }
        #expect(state.selection >= 0 && state.selection < max(1, snapshot.rows.count), "step \(step)")
        guard !state.isTooSmall, !state.showsHelp, state.inspection == nil else { return }
        // The header says what the store says (R6): read from the store every 8th step, which keeps
        // the run near 30 s while still crossing every purchase, restore and clock move.
        guard step % 8 == 0 else { return }
        let header = try harness.store.entitlements.status().header
        #expect(
            screen.lines[1].trimmingCharacters(in: .whitespaces)
                == TextWidth.truncate(" " + header, to: state.size.columns).trimmingCharacters(in: .whitespaces),
            "step \(step): \(screen.lines[1])")
        if state.route == .products {
            #expect(screen.lines.contains { $0.hasPrefix("▸ ") }, "step \(step): the selected row is not on screen")
        }
    }

    /// Without u (the account form, where Enter may sign out), so that the plans keep an owner.
    static let planKeys: [Key] =
        keys.filter { $0 != .character("u") } + [
            .character("c"), .character("o"), .character("w"), .character("e"), .character("f"), .character("B"),
            .character("g"),
        ]

    @Test(
        "3,000 random events on auto-renewable plans: the plan line agrees with the store and the receipt replays every plan"
    )
    func fuzzPlans() throws {
        var generator = SeededGenerator(seed: 5)
        let harness = try Harness(size: Size(columns: 80, rows: 24), catalog: selfiesCatalog, user: "ann")
        var compared = 0
        for step in 0..<3_000 {
            let roll = Int.random(in: 0..<100, using: &generator)
            if roll < 90 {
                harness.send(.key(Self.planKeys.randomElement(using: &generator)!))
            } else if roll < 95 {
                harness.send(
                    .resize(
                        Size(
                            columns: Int.random(in: 0...160, using: &generator),
                            rows: Int.random(in: 0...50, using: &generator))))
            } else {
                harness.tick()
            }
            harness.state.isRunning = true
            let state = harness.state
            let screen = harness.screen(depth: .palette256)
            #expect(screen.size == state.size, "step \(step)")
            guard step % 10 == 0, !state.isTooSmall, !state.showsHelp, let snapshot = state.snapshot else { continue }
            // Line 1 is the plan the transaction manager acts on, as the store has it now.
            let status = try harness.store.entitlements.status()
            let plan = status.plans.first { $0.hasAccess || $0.phase == .billingRetry } ?? status.plans.last
            let expected =
                plan.map { $0.summary(calendar: harness.store.calendar, catalog: selfiesCatalog) } ?? status.header
            if snapshot.status.plans == status.plans {
                compared += 1
                #expect(
                    screen.lines[1].trimmingCharacters(in: .whitespaces)
                        == TextWidth.truncate(" " + expected, to: state.size.columns).trimmingCharacters(
                            in: .whitespaces), "step \(step): \(screen.lines[1])")
            }
            // The keys may sign ann out; her plans are on the server whoever the device shows.
            if step % 100 == 0 {
                let server = harness.store.server
                #expect(
                    try server.plans(account: "ann") == PlanState.replay(try server.planLines(account: "ann")),
                    "step \(step)")
            }
        }
        #expect(try harness.store.server.planLines(account: "ann").count > 10, "the run did something")
        #expect(compared > 100, "the plan line was compared \(compared) times")
    }
}

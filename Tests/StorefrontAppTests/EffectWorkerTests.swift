// Issue 70: the screen's effects off its loop. A store whose calls wait at a gate the test opens
// stands in for a team server that does not answer; every verdict is on the order of events.
import Foundation
import StoreModel
import TerminalUI
import TestSupport
import Testing

@testable import StorefrontApp

@Suite("Effects off the screen's loop")
struct EffectWorkerTests {
    /// A store whose `held` effects wait until the gate opens; it keeps what it began and ended.
    final class GatedStore: StoreServing, @unchecked Sendable {
        private let condition = NSCondition()
        private var open = false
        private var begunLog: [Effect] = []
        private var endedLog: [Effect] = []
        let held: Set<String>
        /// What an effect answers; by default a line that names it.
        var answer: (Effect) -> [Action] = { [.failed("performed \($0)")] }

        /// The catalog the screen is drawn from while the store opens.
        let catalog: Catalog

        init(held: Set<String>, catalog: Catalog = appCatalog) {
            self.held = held
            self.catalog = catalog
        }

        func snapshot() throws -> StoreSnapshot { .opening(catalog) }

        func perform(_ effect: Effect) -> [Action] {
            condition.withLock {
                begunLog.append(effect)
                condition.broadcast()
                while held.contains("\(effect)") && !open { condition.wait() }
            }
            condition.withLock {
                endedLog.append(effect)
                condition.broadcast()
            }
            return answer(effect)
        }

        var serverLocation: String? { "http://127.0.0.1:9" }

        func openGate() {
            condition.withLock {
                open = true
                condition.broadcast()
            }
        }
        var begun: [Effect] { condition.withLock { begunLog } }
        var ended: [Effect] { condition.withLock { endedLog } }

        /// Waits until `predicate` holds of what began and ended, up to a generous ceiling.
        func wait(_ predicate: ([Effect], [Effect]) -> Bool) -> Bool {
            condition.withLock {
                let deadline = Date().addingTimeInterval(60)
                while !predicate(begunLog, endedLog) {
                    if !condition.wait(until: deadline) { return predicate(begunLog, endedLog) }
                }
                return true
            }
        }
    }

    @Test("70 effects run one at a time in the order asked; a tick's settle is asked once while one waits")
    func order() throws {
        let store = GatedStore(held: ["buy(\"a\")"])
        let worker = EffectWorker(store: store)
        worker.submit(.buy("a"))
        #expect(store.wait { begun, _ in begun == [.buy("a")] })
        worker.submit(.settle)
        worker.submit(.settle)
        worker.submit(.restore)
        #expect(worker.current?.effect == .buy("a"))
        #expect(worker.unfinished == [.buy("a"), .settle, .restore], "the second settle was dropped")
        #expect(worker.collect().isEmpty, "nothing ended while the gate was shut")
        store.openGate()
        #expect(store.wait { _, ended in ended.count == 3 })
        #expect(store.ended == [.buy("a"), .settle, .restore])
        // Collected in the order they ended, each with its own actions.
        var collected: [(effect: Effect, actions: [Action])] = []
        let deadline = Date().addingTimeInterval(60)
        while collected.count < 3 && Date() < deadline { collected += worker.collect() }
        #expect(collected.map(\.effect) == [.buy("a"), .settle, .restore])
        #expect(
            collected.map(\.actions) == [
                [.failed("performed buy(\"a\")")], [.failed("performed settle")], [.failed("performed restore")],
            ])
    }

    @Test("70 once stopped, nothing waiting is begun; the one running ends")
    func stop() throws {
        let store = GatedStore(held: ["settle"])
        let worker = EffectWorker(store: store)
        worker.submit(.settle)
        #expect(store.wait { begun, _ in begun == [.settle] })
        worker.submit(.restore)
        #expect(worker.stop() == Unfinished(running: .settle, waiting: [.restore]))
        store.openGate()
        #expect(store.wait { _, ended in ended == [.settle] })
        worker.submit(.showRandom)
        // Idle once its queue has passed every block: the restore and the random comic were
        // skipped, not performed.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            _ = worker.collect()
            if worker.isIdle { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(worker.isIdle)
        #expect(store.begun == [.settle] && store.ended == [.settle], "\(store.begun)")
    }

    /// The scripted terminal's events, each given only once the store has begun the tick's settle:
    /// every key is read while that call waits. With `asked`, once the keys are all read the gate
    /// opens, ticks follow, and q comes once the store has performed `asked`.
    final class AfterSettleTerminal: FrameRendering, EventListening {
        let scripted: ScriptedTerminal
        let store: GatedStore
        let asked: Effect?
        private var giveUp: Date?
        init(_ scripted: ScriptedTerminal, store: GatedStore, asked: Effect? = nil) {
            self.scripted = scripted
            self.store = store
            self.asked = asked
        }
        var size: Size { scripted.size }
        var colorDepth: ColorDepth { scripted.colorDepth }
        func render(_ screen: Screen) -> Int { scripted.render(screen) }
        func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent {
            _ = store.wait { begun, _ in begun.contains(.settle) }
            guard let asked, scripted.remaining.isEmpty else {
                return scripted.nextEvent(timeoutMilliseconds: timeoutMilliseconds)
            }
            store.openGate()
            // Ticks until the store has performed what was asked (the loop collects between
            // them); a minute's ceiling, past which the loop is interrupted and the test fails.
            let deadline = giveUp ?? Date().addingTimeInterval(60)
            giveUp = deadline
            if store.ended.contains(asked) { return .key(.character("q")) }
            if Date() > deadline { return .interrupt }
            Thread.sleep(forTimeInterval: 0.01)
            return .timeout
        }
    }

    @Test(
        "70 the real loop while the store's call waits: ↓ moves the selection, the status line names the server, q ends the loop, and the call is left unfinished"
    )
    func loopNeverWaits() throws {
        let store = GatedStore(held: ["settle"])
        let scripted = ScriptedTerminal(
            size: Size(columns: 60, rows: 14), events: [.key(.down), .key(.down), .key(.character("q"))])
        let app = App(
            store: store, terminal: AfterSettleTerminal(scripted, store: store),
            pictures: PictureCache(root: URL(fileURLWithPath: "/nonexistent")), route: .products)
        app.performsInBackground = true
        app.patience = 0
        // Were the loop to wait for the store, the gate opens after a minute and the verdicts
        // below fail instead of hanging.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { store.openGate() }
        app.run()
        #expect(!app.state.isRunning && app.state.selection == 2)
        #expect(store.ended.isEmpty, "every key was read while the settle waited")
        #expect(app.unfinished == Unfinished(running: .settle, waiting: []))
        let frames = scripted.frames.map(\.text)
        #expect(
            frames.contains { $0.contains("Account server 127.0.0.1:9 has not answered for 0 s") },
            "\(frames.last ?? "")")
        store.openGate()
        #expect(store.wait { _, ended in ended == [.settle] })
    }

    /// Runs the real loop on `store`, whose settle waits at its gate and then opens the store on
    /// `opened`: `events` are read while it waits, and the loop ends once the store performed `asked`.
    func openingRun(_ store: GatedStore, opened: StoreSnapshot, events: [TerminalEvent], asked: Effect) -> (
        App, ScriptedTerminal
    ) {
        store.answer = { effect in effect == .settle ? [.loaded(opened)] : [.failed("performed \(effect)")] }
        let scripted = ScriptedTerminal(size: Size(columns: 60, rows: 14), events: events)
        let app = App(
            store: store, terminal: AfterSettleTerminal(scripted, store: store, asked: asked),
            pictures: PictureCache(root: URL(fileURLWithPath: "/nonexistent")), route: .products)
        app.performsInBackground = true
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { store.openGate() }
        app.run()
        return (app, scripted)
    }

    @Test(
        "70 while the store opens off the loop, ↓ moves at once; b waits for the open, and so does every key after it, in order"
    )
    func keysWaitForTheOpen() throws {
        let store = GatedStore(held: ["settle"])
        var opened = StoreSnapshot.opening(appCatalog)
        opened.isOpening = false
        let asked = Effect.buy(appCatalog.products[1].id)
        let (app, scripted) = openingRun(
            store, opened: opened, events: [.key(.down), .key(.character("b")), .key(.down)], asked: asked)
        let bought = store.ended.filter {
            if case .buy = $0 { true } else { false }
        }
        #expect(store.ended.first == .settle && bought == [asked], "b bought the row ↓ had reached: \(store.ended)")
        #expect(app.state.selection == 2, "the ↓ after b moved once the store had opened")
        let frames = scripted.frames.map(\.text)
        #expect(frames.contains { $0.contains("your keys wait for it") }, "\(frames.last ?? "")")
    }

    @Test(
        "70 while the store opens, a key the store's state answers waits for it: c in the transaction manager cancels the plan the store reads, instead of saying there is none yet"
    )
    func stateKeysWaitForTheOpen() throws {
        let harness = try Harness(catalog: selfiesCatalog, user: "ann", seed: 1)
        let plan = try #require(selfiesCatalog.products.first { $0.kind == .autoRenewableSubscription })
        try harness.store.queue.buy(plan.id)
        try harness.refresh()
        let opened = try #require(harness.state.snapshot)
        #expect(!opened.status.plans.isEmpty)
        let store = GatedStore(held: ["settle"], catalog: selfiesCatalog)
        let asked = Effect.plan(.cancel, productID: plan.id)
        let (_, scripted) = openingRun(
            store, opened: opened, events: [.key(.character("t")), .key(.character("c"))], asked: asked)
        #expect(store.ended.contains(asked), "c cancelled the plan once the store had opened: \(store.ended)")
        let frames = scripted.frames.map(\.text)
        #expect(!frames.contains { $0.contains("No auto-renewable plan yet") }, "\(frames.last ?? "")")
    }
}

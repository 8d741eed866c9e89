// The app's real loop (`App.run`) against a scripted terminal: events in, frames out, the store
// real. Time arrives as ticks, counted, never measured.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("Runtime")
struct RuntimeTests {
    /// A store whose clock is the state folder's setting, frozen at the tests' start, as the
    /// screen program's is (so the clock keys move it).
    final class Rig {
        let temporary = TemporaryState()
        let server: any AccountServer
        let store: Store
        let terminal: ScriptedTerminal
        let app: App

        init(size: Size = Size(columns: 60, rows: 14), user: String? = "ann", events: [TerminalEvent]) throws {
            let factory = try StoreFactory(
                stateDirectory: temporary.directory, catalog: appCatalog, calendar: utcCalendar,
                time: .shared(override: nil))
            try factory.server.setClockSetting(ClockSetting(mode: .frozen, frozenAt: startDate))
            factory.passwordHasher = .fastForTests
            factory.randomIndex = { _ in 0 }
            server = factory.server
            store = try factory.open(device: "phone")
            if let user { try store.accounts.signUp(user, password: "pw") }
            terminal = ScriptedTerminal(size: size, events: events)
            let store = store
            app = App(
                store: LiveStore(store: store), terminal: terminal, pictures: PictureCache(root: temporary.url),
                route: .products,
                now: { store.now() }
            )
        }

        /// The frame drawn after the `index`th event. Frame 0 is the first, drawn before the
        /// first tick; frame 1 follows that tick.
        func frame(after index: Int) -> String { terminal.frames[index + 2].text }
    }

    @Test("T1 T2 Q5 the real loop: a purchase, the clock keys, a resize and a quit, frame by frame")
    func wholeSession() throws {
        let events: [TerminalEvent] = [
            .key(.down), .key(.down), .key(.character("b")),  // 0–2: buy the pack
            .timeout,  // 3: a tick
            .key(.character("t")),  // 4: the transaction manager
            // 5–8: the clock
            .key(.character("d")), .key(.character("m")), .key(.character("h")), .key(.character("0")),
            .resize(Size(columns: 80, rows: 24)),  // 9
            .timeout,  // 10
            .key(.character("q")), .key(.character("q")),  // 11–12: back, quit
        ]
        let rig = try Rig(events: events)
        rig.app.run()

        #expect(!rig.app.state.isRunning)
        #expect(rig.terminal.remaining.isEmpty, "the loop read every event and stopped at q")
        // The first frame, one after the first tick, and one after each event but the last (the quit).
        #expect(rig.terminal.frames.count == events.count + 1)
        #expect(rig.frame(after: 2).contains("Purchased Random Comics ×5 ✓"))
        #expect(rig.frame(after: 2).contains("5 left · $0.99 Buy"))
        #expect(try rig.store.entitlements.status().randomViewsRemaining == 5)
        // The load and two timeouts each ticked once; nothing else did.
        #expect(rig.app.state.ticks == 3)
        #expect(rig.frame(after: 4).contains("2026-01-15 12:00:00"))
        #expect(rig.frame(after: 5).contains("2026-01-16 12:00:00"), "d: one day")
        #expect(rig.frame(after: 6).contains("2026-02-16 12:00:00"), "m: one month")
        #expect(rig.frame(after: 7).contains("2026-02-16 13:00:00"), "h: one hour")
        #expect(rig.frame(after: 8).contains("real time"), "0: back to real time")
        #expect(try rig.server.clockSetting() == .standard)
        // The resize redraws everything at the new size.
        #expect(rig.terminal.frames[11].size == Size(columns: 80, rows: 24))
        #expect(rig.terminal.writes[11].count == 80 * 24 - rig.terminal.frames[11].cells.filter(\.isContinuation).count)
        #expect(rig.frame(after: 11).contains("Not Subscribed"), "q went back to the list")
    }

    @Test("an arrow key writes only the cells that changed")
    func arrowKeyWritesLittle() throws {
        let rig = try Rig(events: [.key(.down), .key(.character("q"))])
        rig.app.run()
        let full = rig.terminal.writes[0].count
        let arrow = rig.terminal.writes[2].count
        #expect(full == 60 * 14)
        #expect(arrow > 0 && arrow < 150, "\(arrow) cells for one arrow key")
    }

    @Test("Q5 a delayed purchase settles on a tick once the store's clock passes its due time, with no key pressed")
    func tickSettles() throws {
        let rig = try Rig(events: [.timeout, .timeout, .key(.character("q"))])
        try rig.store.queue.buy("pack", outcome: .delayed(after: .seconds(30), approve: true))
        rig.terminal.afterScript = .interrupt
        // The clock moves between the two ticks, as time passes for a person watching.
        rig.app.load()
        #expect(rig.app.state.snapshot?.status.randomViewsRemaining == 0)
        try rig.server.setClockSetting(ClockSetting(mode: .frozen, frozenAt: startDate.addingTimeInterval(31)))
        rig.app.handle(.timeout)
        #expect(rig.app.state.snapshot?.status.randomViewsRemaining == 5)
        #expect(rig.app.state.ticks == 2)
    }

    @Test("T4 pictures are decoded by an effect into the state; the view draws what the state holds")
    func picturesThroughState() throws {
        let rig = try Rig(events: [])
        try rig.store.queue.buy("comic.owl")
        rig.app.load()
        rig.app.dispatch(.key(.enter))
        #expect(rig.app.state.route == .detail("comic.owl"))
        // The file is missing: the effect ran and the state holds its failure, which the view shows.
        guard case .failure(let file, _) = rig.app.state.pictures["owl.png"] else {
            Issue.record("no picture result in the state: \(rig.app.state.pictures)")
            return
        }
        #expect(file == "owl.png")
        #expect(render(rig.app.state, depth: .none).text.contains("picture unavailable"))
        // A locked comic asks for no picture (R8).
        rig.app.dispatch(.key(.escape))
        rig.app.dispatch(.key(.down))
        rig.app.dispatch(.key(.enter))
        #expect(rig.app.state.pictures["cat.png"] == nil)
    }
}

// D2: devices side by side on one terminal, each a whole App in its pane, with the rail of what
// passes between them. A scripted terminal feeds keys; the stores are real, on one account server.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("Devices side by side")
struct DeviceWallTests {
    /// Two devices of one state folder (one account server), both signed in as ann.
    final class Rig {
        let temporary = TemporaryState()
        let phone: Store
        let tablet: Store
        let terminal: ScriptedTerminal
        let wall: DeviceWall

        init(size: Size = Size(columns: 100, rows: 30), events: [TerminalEvent], signedIn: Bool = true) throws {
            let factory = try StoreFactory(
                stateDirectory: temporary.directory, catalog: appCatalog, calendar: utcCalendar,
                time: .shared(override: nil))
            try factory.server.setClockSetting(ClockSetting(mode: .frozen, frozenAt: startDate))
            factory.passwordHasher = .fastForTests
            phone = try factory.open(device: "phone")
            tablet = try factory.open(device: "tablet")
            if signedIn {
                try phone.accounts.signUp("ann", password: "pw")
                try tablet.accounts.signIn("ann", password: "pw")
            }
            terminal = ScriptedTerminal(size: size, events: events)
            wall = DeviceWall(terminal: terminal, pictures: PictureCache(root: temporary.url))
            wall.add(device: "phone", store: LiveStore(store: phone))
            wall.add(device: "tablet", store: LiveStore(store: tablet))
        }

        /// The left pane's and the right pane's halves of a frame's line that contains `text` in each.
        func halves(_ frame: Screen, row containing: String) -> (left: String, right: String)? {
            let split = wall.frames()[1].x
            for line in frame.lines {
                let left = String(line.prefix(split - 1))
                let right = String(line.dropFirst(split))
                if left.contains(containing), right.contains(containing) { return (left, right) }
            }
            return nil
        }
    }

    @Test(
        "buy on the phone's pane, Tab, restore on the tablet's: both headers say subscribed, and the rail tells both devices' steps and the notification"
    )
    func buyHereRestoreThere() throws {
        let events: [TerminalEvent] = [
            .key(.end), .key(.character("b")),  // the phone subscribes (the last row)
            .key(.tab), .key(.character("r")),  // the tablet restores
            .timeout, .key(.character("q")),
        ]
        let rig = try Rig(events: events)
        rig.wall.run()
        #expect(!rig.wall.isRunning && rig.terminal.remaining.isEmpty)
        #expect(rig.wall.focus == 1)
        let last = try #require(rig.terminal.frames.last)
        let header = try #require(rig.halves(last, row: "Subscribed! Expires:"), "\(last.text)")
        #expect(
            header.left.contains("16/04/2026 (91 Days)") && header.right.contains("16/04/2026 (91 Days)"), "\(header)")
        #expect(
            last.lines[0].contains("▶ tablet  (keys here)") && !last.lines[0].contains("▶ phone"), "\(last.lines[0])")
        let rail = rig.wall.rail.map { "\($0.who): \($0.text)" }
        #expect(rail.contains("phone: purchased · 3 Months of Comics"), "\(rail)")
        #expect(rail.contains("tablet: restores purchases"), "\(rail)")
        #expect(rail.contains { $0.hasPrefix("App Store → server: ONE_TIME_CHARGE") }, "\(rail)")
        #expect(
            last.text.contains("Between the devices")
                && last.lines.contains { $0.hasPrefix(" phone ") && $0.contains("  purchased · 3 Months of Comics") },
            "\(last.text)")
    }

    @Test("one device is the ordinary screen, cell for cell: no labels, no rail")
    func oneDeviceIsTheScreen() throws {
        let temporary = TemporaryState()
        let store = try temporary.store(catalog: appCatalog)
        let terminal = ScriptedTerminal(size: Size(columns: 60, rows: 14), events: [])
        let wall = DeviceWall(terminal: terminal, pictures: PictureCache(root: temporary.url))
        let pane = wall.add(device: "phone", store: LiveStore(store: store))
        wall.draw()
        #expect(terminal.frames.last == render(pane.app.state, depth: terminal.colorDepth))
        #expect(wall.rail.isEmpty)
    }

    @Test("a click goes to the pane under it, in the pane's own coordinates, and gives it the keyboard")
    func clickFocuses() throws {
        let rig = try Rig(events: [])
        let tablet = rig.wall.frames()[1]
        // The product list's second row: the pane's row 4 (title, header, gap, first row).
        rig.wall.handle(.mouse(MouseEvent(.click, x: tablet.x + 3, y: tablet.y + 4)))
        #expect(rig.wall.focus == 1)
        #expect(rig.wall.panes[1].app.state.selection == 1)
        #expect(rig.wall.panes[0].app.state.selection == 0)
    }

    @Test("in a pane, Tab is the wall's: the sign-in form's footer offers ↓ for its next field, and ↓ moves it")
    func formInAPane() throws {
        let rig = try Rig(events: [], signedIn: false)
        rig.wall.handle(.key(.character("u")))
        let form = rig.wall.panes[0].app
        #expect(form.state.route == .signIn)
        let footer = footer(for: form.state, width: 60)
        #expect(footer.contains("↓ next") && !footer.contains("Tab"), "\(footer)")
        let before = form.state.form.focus
        rig.wall.handle(.key(.down))
        #expect(form.state.form.focus != before)
        rig.wall.handle(.key(.tab))
        #expect(rig.wall.focus == 1, "Tab moved to the tablet")
        #expect(rig.wall.panes[0].app.state.route == .signIn)
    }

    @Test("the rail starts with what happens while the view is up, not the state folder's past")
    func railStartsNow() throws {
        let temporary = TemporaryState()
        let factory = try StoreFactory(
            stateDirectory: temporary.directory, catalog: appCatalog, calendar: utcCalendar,
            time: .shared(override: nil))
        factory.passwordHasher = .fastForTests
        let phone = try factory.open(device: "phone")
        try phone.accounts.signUp("ann", password: "pw")
        _ = try phone.queue.buy("comic.owl")
        let terminal = ScriptedTerminal(size: Size(columns: 100, rows: 30), events: [])
        let wall = DeviceWall(terminal: terminal, pictures: PictureCache(root: temporary.url))
        wall.add(device: "phone", store: LiveStore(store: phone))
        wall.add(device: "tablet", store: LiveStore(store: try factory.open(device: "tablet")))
        wall.refresh()
        #expect(wall.rail.isEmpty, "\(wall.rail)")
        _ = try phone.queue.buy("comic.cat")
        wall.refresh()
        #expect(wall.rail.map(\.text).contains("purchased · Cat Judge"), "\(wall.rail)")
        #expect(!wall.rail.map(\.text).contains("purchased · Night Shift"), "\(wall.rail)")
    }
}

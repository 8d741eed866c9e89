// The one place a store is wired: the command line, the screen, scenarios and tests open their
// stores here, so that a store is built one way whoever asks.
import Foundation
import StoreModel

public final class StoreFactory {
    /// Where a store's time comes from.
    public enum Time {
        /// The state folder's clock setting, which every device and process shares (Q5); an
        /// override stands for it in this process only (`--clock`).
        case shared(override: ClockSetting?)
        /// A clock that only its owner moves (tests, scenarios).
        case manual(ManualClock)
        /// Any clock of the caller's (the benchmarks' real one).
        case given(any StoreClock)
    }

    public let stateDirectory: StateDirectory
    public let catalog: Catalog
    public let calendar: Calendar
    /// The account server every store of this factory shares.
    public let server: any AccountServer
    public var passwordHasher = PasswordHasher()
    public var randomIndex: (Int) -> Int = { Int.random(in: 0..<$0) }
    public var makeTransactionID: (() -> String)?
    private let clock: any StoreClock

    /// Opens the state folder's account server (the embedded one unless `server` is given) and
    /// checks its clock setting, so that a corrupt one stops here (P2).
    public init(
        stateDirectory: StateDirectory, catalog: Catalog, calendar: Calendar, time: Time,
        server: (any AccountServer)? = nil
    ) throws(StoreError) {
        try stateDirectory.prepare()
        let server =
            if let server { server } else {
                try ServerDatabase(url: stateDirectory.serverDatabase) as any AccountServer
            }
        self.stateDirectory = stateDirectory
        self.catalog = catalog
        self.calendar = calendar
        self.server = server
        switch time {
        case .manual(let manual):
            clock = manual
        case .given(let given):
            clock = given
        case .shared(let override):
            let first = try server.clockSetting()
            clock = SettingClock(
                first: override ?? first, read: { try override ?? server.clockSetting() },
                kept: { override ?? server.clockSettingWithoutWaiting() }
            )
        }
    }

    /// A store for `device`, sharing this factory's account server and clock.
    public func open(device: String) throws(StoreError) -> Store {
        try Store(
            stateDirectory: stateDirectory, device: device, catalog: catalog, clock: clock, calendar: calendar,
            passwordHasher: passwordHasher, randomIndex: randomIndex, server: server,
            makeTransactionID: makeTransactionID
        )
    }
}

// What every role of the store shares: one device's database and lock, the account server, the
// catalog, the clock and calendar, who is signed in, the observers, and the crash points. The roles
// (accounts, the payment queue, plans, entitlements, random comics, settings) each hold it.
import Foundation
import StoreModel

final class DeviceSession {
    /// The catalog in its own storefront, as it was read.
    let homeCatalog: Catalog
    let stateDirectory: StateDirectory
    let deviceName: String
    let device: DeviceDatabase
    let server: any AccountServer
    let clock: any StoreClock
    let calendar: Calendar
    var crashPoints: (CrashPoint) throws(StoreError) -> Void = { _ in }
    /// New transaction ids, Apple-shaped (S3), unique across devices and resets (the receipt is
    /// keyed by them); tests may give a seeded source for stable screens.
    var makeTransactionID: () -> String = {
        var generator = SystemRandomNumberGenerator()
        return TransactionID.make(generator.next())
    }
    /// Acts as this account without changing who the device remembers (`--user`).
    var sessionUser: String?
    private let lock: DeviceLock
    private var observers: [(TransactionEvent) -> Void] = []
    private var publishedThrough: Int64 = 0

    init(
        catalog: Catalog, stateDirectory: StateDirectory, deviceName: String, device: DeviceDatabase, lockPath: String,
        server: any AccountServer, clock: any StoreClock, calendar: Calendar
    ) throws(StoreError) {
        homeCatalog = catalog
        self.stateDirectory = stateDirectory
        self.deviceName = deviceName
        self.device = device
        self.server = server
        self.clock = clock
        self.calendar = calendar
        lock = DeviceLock(path: lockPath)
        publishedThrough = try device.latestEventSequence()
        // Read whatever the server: a setting that cannot be read is a corrupt database (P2).
        let kept = try keptSessions()
        if let team = server.keeper.team {
            for session in kept.values { team.resume(session) }
        }
    }

    /// The sessions a remote account server gave this device, by account (lowercased): they stay
    /// on the device (W2), and are handed back to the server each time the store opens.
    func keptSessions() throws(StoreError) -> [String: AccountSession] {
        try device.setting(.serverSessions) ?? [:]
    }

    func keepSessions(_ sessions: [String: AccountSession]) throws(StoreError) {
        try device.setSetting(.serverSessions, sessions.isEmpty ? nil : sessions)
    }

    /// W17: the device tokens kept by account (lowercased).
    func keptDeviceTokens() throws(StoreError) -> [String: String] { try device.setting(.deviceTokens) ?? [:] }

    func keepDeviceTokens(_ tokens: [String: String]) throws(StoreError) {
        try device.setSetting(.deviceTokens, tokens.isEmpty ? nil : tokens)
    }

    func now() -> Date { clock.now() }

    /// Storefronts as this session read them, by account (lowercased), and the catalog as each
    /// storefront sees it.
    private var storefrontsRead: [String: String] = [:]
    private var catalogsSeen: [String: Catalog] = [:]

    /// F3: the catalog as the account this device acts for sees it, in its storefront: prices and
    /// availability there. A guest, or a storefront that cannot be read now, sees the catalog's
    /// own (the App Store decides a purchase's storefront and price again when it settles it).
    var catalog: Catalog {
        guard let user = try? currentUser(), let code = try? storefront(of: user) else { return homeCatalog }
        return catalog(in: code)
    }

    /// The storefront `account` buys in: its own choice, else the catalog's. Read once per
    /// session unless `fresh` (the App Store's settling reads it every time).
    func storefront(of account: String, fresh: Bool = false) throws(StoreError) -> String {
        let key = account.lowercased()
        if !fresh, let known = storefrontsRead[key] { return known }
        let code = try server.storefront(account: account) ?? homeCatalog.storefront
        storefrontsRead[key] = code
        return code
    }

    /// What this device just wrote as `account`'s storefront, so that it is not read back.
    func wroteStorefront(_ code: String, of account: String) {
        storefrontsRead[account.lowercased()] = code
    }

    /// The catalog as storefront `code` sees it.
    func catalog(in code: String) -> Catalog {
        if code == homeCatalog.storefront { return homeCatalog }
        if let seen = catalogsSeen[code] { return seen }
        let seen = homeCatalog.seen(in: code) ?? homeCatalog
        catalogsSeen[code] = seen
        return seen
    }

    private var openedAuthority: CertificateAuthority?

    /// The state folder's certificate authority (S1), made on first use.
    func authority() throws(StoreError) -> CertificateAuthority {
        if let openedAuthority { return openedAuthority }
        let authority = try CertificateAuthority.open(in: stateDirectory.certificateAuthority)
        openedAuthority = authority
        return authority
    }

    /// The StoreKit errors in force (Q7): the state folder's, else the catalog's.
    func simulatedErrors() throws(StoreError) -> SimulatedErrors {
        try server.simulatedErrors() ?? catalog.simulatedErrors
    }

    /// Throws the simulated error set for `api`, if any: the API fails as StoreKit's would.
    func failIfSimulated(_ api: StoreKitAPI) throws(StoreError) {
        try simulatedErrors().failIfSet(api)
    }

    /// The account this device acts for, or nil for a guest.
    func currentUser() throws(StoreError) -> String? {
        if let sessionUser { return sessionUser }
        return try device.setting(.currentUser)
    }

    /// The current profile: the account's name, "" for a guest.
    var profileKey: String {
        get throws(StoreError) { try currentUser() ?? "" }
    }

    /// Runs `body` holding the device's lock (so that recovery never mistakes another process's
    /// purchase in progress for a crash's leftovers), then tells observers what changed.
    func withDeviceLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let result = try lock.withLock(body)
        try publishEvents()
        return result
    }

    func observe(_ handler: @escaping (TransactionEvent) -> Void) { observers.append(handler) }

    func publishEvents() throws(StoreError) {
        while true {
            let events = try device.events(after: publishedThrough)
            guard let last = events.last else { return }
            for event in events { for observer in observers { observer(event) } }
            publishedThrough = last.sequence
        }
    }
}

/// A role of the store: reads what it shares through its session.
protocol SessionRole {
    var session: DeviceSession { get }
}

extension SessionRole {
    /// The catalog in its own storefront: what the App Store's roles decide and sign from. The
    /// account's view of it (its storefront's prices and availability) is `session.catalog`.
    var catalog: Catalog { session.homeCatalog }
    var device: DeviceDatabase { session.device }
    // The account server's roles, each asked for by name where it is used.
    var ledger: any Ledger { session.server }
    var planBook: any PlanBook { session.server }
    var familyStore: any FamilyStore { session.server }
    var outbox: any Outbox { session.server }
    var keyStore: any KeyStore { session.server }
    var claimStore: any ClaimStore { session.server }
    var sharedSettings: any SharedSettings { session.server }
    var priceBook: any PriceBook { session.server }
    var directory: any AccountDirectory { session.server }
    var retention: any RetentionStore { session.server }
    var requestLog: any RequestLog { session.server }
    /// Where the records are kept: here, or on a team server.
    var keeper: RecordKeeper { session.server.keeper }
    var calendar: Calendar { session.calendar }
    func now() -> Date { session.now() }
    func currentUser() throws(StoreError) -> String? { try session.currentUser() }
    func withDeviceLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try session.withDeviceLock(body)
    }
    func crashPoint(_ point: CrashPoint) throws(StoreError) { try session.crashPoints(point) }
    func failIfSimulated(_ api: StoreKitAPI) throws(StoreError) { try session.failIfSimulated(api) }
    /// Takes one use of `key` where the records are kept (W9); a team device asks its server for a
    /// grant (`Checkout`) and never takes one itself.
    func takeUse(_ key: String, account: String, limit: Int) throws(StoreError) -> Bool {
        guard let here = keeper.here else {
            throw StoreError.serverKeeps(server: session.server.location, action: "take an offer's use")
        }
        return try here.claim(key, account: account, limit: limit, at: now())
    }
}

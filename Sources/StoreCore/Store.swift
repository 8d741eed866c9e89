// The store as one device sees it: the catalog, the device's state, the account server and a
// clock. Every operation is synchronous and reads the time from the clock it was given: the
// payment queue has no threads and no timers (Q5); delayed outcomes fire in `recover()`.
import Foundation

public final class Store {
    public let catalog: Catalog
    public let deviceName: String
    public let device: DeviceDatabase
    public let server: ServerDatabase
    public let clock: any StoreClock
    public let calendar: Calendar
    public var passwordHasher: PasswordHasher
    /// Overrides the device's policy for purchases made through this store value (`--outcome`).
    public var outcomeOverride: PurchaseOutcome?
    /// Called at every durability step (`CrashPoint`). Fault injection: a hook that kills the
    /// process, or throws, at one of them leaves work for `recover()` (Q3).
    public var crashPoints: (CrashPoint) throws(StoreError) -> Void = { _ in }
    /// Auto-renewable periods as the App Store sandbox times them, at this many store seconds per
    /// real second; nil follows the clock (sandbox periods while it is accelerated).
    public var sandboxRateOverride: Double?
    /// Acts as this account without changing who the device remembers (`--user`).
    private var sessionUser: String?
    private let randomIndex: (Int) -> Int
    private let lock: DeviceLock
    private var observers: [(TransactionEvent) -> Void] = []
    private var publishedThrough: Int64 = 0

    public init(
        stateDirectory: StateDirectory, device deviceName: String, catalog: Catalog, clock: any StoreClock,
        calendar: Calendar, passwordHasher: PasswordHasher = PasswordHasher(),
        randomIndex: @escaping (Int) -> Int = { Int.random(in: 0..<$0) }, server: ServerDatabase? = nil
    ) throws(StoreError) {
        let deviceURL = try stateDirectory.deviceDatabase(deviceName)
        try stateDirectory.prepare()
        self.catalog = catalog
        self.deviceName = deviceName
        // The caller may already have the server open (the command line reads the clock from it).
        self.server = if let server { server } else { try ServerDatabase(url: stateDirectory.serverDatabase) }
        self.device = try DeviceDatabase(url: deviceURL)
        self.clock = clock
        self.calendar = calendar
        self.passwordHasher = passwordHasher
        self.randomIndex = randomIndex
        self.lock = DeviceLock(path: deviceURL.path + ".lock")
        publishedThrough = try device.latestEventSequence()
    }

    // MARK: Observers (Q2)

    /// `handler` sees every state change from now on, in order, including those other processes
    /// make on this device (delivered when this store next acts or `publishEvents()` is called).
    public func observe(_ handler: @escaping (TransactionEvent) -> Void) {
        observers.append(handler)
    }

    /// Hands observers the events they have not seen yet.
    public func publishEvents() throws(StoreError) {
        while true {
            let events = try device.events(after: publishedThrough)
            guard let last = events.last else { return }
            for event in events { for observer in observers { observer(event) } }
            publishedThrough = last.sequence
        }
    }

    // MARK: Who is signed in

    /// The account this device acts for, or nil for a guest.
    public func currentUser() throws(StoreError) -> String? {
        if let sessionUser { return sessionUser }
        return try device.meta("currentUser")
    }

    var profileKey: String {
        get throws(StoreError) { try currentUser() ?? "" }
    }

    public func now() -> Date { clock.now() }

    // MARK: The clock (Q5)

    /// Changes the clock the state folder shares, then settles what came due by the new time.
    @discardableResult
    public func changeClock(_ change: (ClockSetting, Date) throws -> ClockSetting) throws -> RecoveryReport {
        // Plans renew under the clock they ran on: settle them before it changes.
        try settleAllPlans()
        try server.setClockSetting(try change(try server.clockSetting(), Date()))
        return try recover()
    }

    // MARK: Policy (Q4)

    public func policy() throws(StoreError) -> PurchaseOutcome {
        guard let text = try device.meta("policy") else { return catalog.defaultPolicy }
        do {
            return try PurchaseOutcome(parsing: text)
        } catch {
            throw StoreError.corruptDatabase(path: device.path, reason: CorruptValue(table: "meta", column: "value", value: text).description + " (the policy)")
        }
    }

    public func setPolicy(_ policy: PurchaseOutcome) throws(StoreError) {
        try device.setMeta("policy", policy.description)
    }

    // MARK: Accounts (A1, A7)

    public func signUp(_ name: String, password: String) throws(StoreError) {
        try Self.validate(accountName: name)
        guard !password.isEmpty else { throw StoreError.emptyPassword }
        let hash: String
        do {
            hash = try passwordHasher.hash(password)
        } catch {
            throw StoreError.storage(path: server.path, reason: "cannot hash the password (\(error))")
        }
        guard try server.createAccount(name: name, passwordHash: hash, at: now()) else {
            throw StoreError.accountExists(name)
        }
        try device.setMeta("currentUser", name)
    }

    /// Signs in and remembers the account on this device. Like the seed app, signing in fetches
    /// the account's expiry from the server; owned comics come back with `restore()` (A5).
    public func signIn(_ name: String, password: String) throws(StoreError) {
        let canonical = try authenticate(name, password: password)
        try lock.withLock { () throws(StoreError) in
            try device.setMeta("currentUser", canonical)
            try device.raiseExpiry(user: canonical, to: try server.storedExpiry(account: canonical))
        }
    }

    /// Acts as `name` for this store value only (the device keeps whoever it remembers).
    public func actAs(_ name: String, password: String) throws(StoreError) {
        let canonical = try authenticate(name, password: password)
        sessionUser = canonical
        try device.raiseExpiry(user: canonical, to: try server.storedExpiry(account: canonical))
    }

    public func signOut() throws(StoreError) {
        sessionUser = nil
        try device.setMeta("currentUser", nil)
    }

    /// Checks a password; returns the account's name as it was created.
    func authenticate(_ name: String, password: String) throws(StoreError) -> String {
        try Self.validate(accountName: name)
        guard !password.isEmpty else { throw StoreError.emptyPassword }
        guard let account = try server.passwordHash(account: name) else { throw StoreError.unknownAccount(name) }
        guard passwordHasher.verify(password, against: account.hash) else { throw StoreError.wrongPassword(name) }
        return account.name
    }

    static func validate(accountName name: String) throws(StoreError) {
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) }
        guard !name.isEmpty, name.count <= 64, allowed else { throw StoreError.invalidAccountName(name) }
    }

    // MARK: Products and status (R1–R4, R6)

    public func product(_ id: String) throws(StoreError) -> Product {
        if let product = catalog.product(id) { return product }
        let lowered = id.lowercased()
        let suggestion = catalog.products.first { $0.id.lowercased().hasSuffix(lowered) || $0.title.lowercased() == lowered }
            ?? catalog.products.min { editDistance($0.id, id) < editDistance($1.id, id) }
        throw StoreError.unknownProduct(id, suggestion: suggestion?.id)
    }

    public func status() throws(StoreError) -> StoreStatus {
        let user = try currentUser()
        let profile = try device.profile(user ?? "")
        let now = now()
        let subscribed = SubscriptionMath.isActive(expiry: profile.expiry, now: now)
        let comics = catalog.comics.map(\.id)
        let plans = try user.map { account throws(StoreError) in try planStatuses(account: account) } ?? []
        let entitlements = Array(Set(plans.flatMap(\.unlocks))).sorted()
        let allComics = subscribed || entitlements.contains(AutoRenewTerms.allComics)
        return StoreStatus(
            user: user, device: deviceName, now: now, expiry: profile.expiry, isSubscribed: subscribed,
            daysRemaining: SubscriptionMath.daysRemaining(expiry: profile.expiry, now: now),
            header: SubscriptionMath.header(expiry: profile.expiry, now: now, calendar: calendar),
            owned: profile.owned, unlocked: allComics ? comics : comics.filter(profile.owned.contains),
            randomViewsRemaining: profile.randomViews, lastRandomComic: profile.lastRandom, plans: plans,
            entitlements: entitlements
        )
    }

    /// The catalog in order, each with the action its row offers now (R1–R4).
    public func productRows() throws(StoreError) -> [ProductRow] {
        let status = try status()
        let inFlight = try device.transactions(.inFlight(user: status.user ?? ""))
        return catalog.products.map { product in
            let action: ProductAction
            switch product.kind {
            case .nonConsumable:
                action = status.unlocked.contains(product.id) ? .owned : .buy
            case .consumable:
                action = .buy
            case .nonRenewingSubscription:
                action = status.user == nil ? .signInRequired : status.isSubscribed ? .renew : .subscribe
            case .autoRenewableSubscription:
                action = status.user == nil ? .signInRequired : Self.planAction(product, plans: status.plans, catalog: catalog)
            }
            let pending = inFlight.last { $0.productID == product.id }
            return ProductRow(product: product, action: action, pending: pending?.state, pendingID: pending?.id)
        }
    }

    // MARK: The receipt (A6)

    public func receipt() throws(StoreError) -> ReceiptReport {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        try settlePlans(account: user)
        let entries = try server.receipt(account: user)
        return ReceiptReport(
            account: user, entries: entries, storedExpiry: try server.storedExpiry(account: user),
            recomputedExpiry: SubscriptionMath.recomputeExpiry(from: entries, calendar: calendar),
            deviceExpiry: try device.profile(user).expiry, storedPlans: try server.plans(account: user),
            recomputedPlans: PlanState.replay(try server.planLines(account: user))
        )
    }

    // MARK: Transactions

    /// Every transaction of the current profile on this device, oldest first.
    public func history() throws(StoreError) -> [StoreTransaction] {
        try device.transactions(.profile(try profileKey))
    }

    /// Deferred and interrupted transactions of the current profile.
    public func pending() throws(StoreError) -> [StoreTransaction] {
        try device.transactions(.waiting(user: try profileKey))
    }

    /// Purchases waiting for a delayed outcome.
    public func delayed() throws(StoreError) -> [StoreTransaction] {
        try device.transactions(.delayed(user: try profileKey))
    }

    /// Finds a transaction by its id or a unique prefix of it.
    public func transaction(_ id: String) throws(StoreError) -> StoreTransaction {
        if let exact = try device.transaction(id: id) { return exact }
        let matches = id.count >= 4 ? try device.transactionIDs(matching: id) : []
        if matches.count == 1, let found = try device.transaction(id: matches[0]) { return found }
        if matches.count > 1 { throw StoreError.ambiguousTransaction(id, matches: matches) }
        throw StoreError.unknownTransaction(id)
    }

    func withDeviceLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let result = try lock.withLock(body)
        try publishEvents()
        return result
    }

    func makeTransactionID() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx", generator.next() as UInt64)
    }

    /// What an auto-renewable row offers, given the plan its group has.
    static func planAction(_ product: Product, plans: [PlanStatus], catalog: Catalog) -> ProductAction {
        guard let terms = product.autoRenew,
              let plan = plans.first(where: { $0.group == terms.group && ($0.hasAccess || $0.phase == .billingRetry) })
        else { return .subscribe }
        if plan.productID == product.id {
            return plan.autoRenew && plan.nextProductID == nil && plan.phase != .billingRetry ? .subscribed : .resubscribe
        }
        if plan.nextProductID == product.id { return .scheduled }
        guard let current = catalog.product(plan.productID)?.autoRenew else { return .upgrade }
        if terms.rank < current.rank { return .upgrade }
        if terms.rank > current.rank { return .downgrade }
        return .crossgrade
    }

    func chooseRandom(_ count: Int) -> Int { min(max(randomIndex(count), 0), count - 1) }
}

public enum ProductAction: String, Sendable, Codable {
    case buy, owned, subscribe, renew, signInRequired
    /// Auto-renewable: the plan one has (auto-renew on), the plan one has with auto-renew off or a
    /// change pending, the plan a downgrade switches to, and moves within the group.
    case subscribed, resubscribe, scheduled, upgrade, downgrade, crossgrade
}

public struct ProductRow: Sendable, Equatable {
    public var product: Product
    public var action: ProductAction
    /// A transaction of this product still in flight (purchasing, deferred, interrupted).
    public var pending: TransactionState?
    public var pendingID: String?
}

public struct StoreStatus: Sendable, Equatable {
    public var user: String?
    public var device: String
    public var now: Date
    public var expiry: Date?
    public var isSubscribed: Bool
    public var daysRemaining: Int
    /// Exactly the R6 text.
    public var header: String
    /// Comics bought (R1), in the order they arrived.
    public var owned: [String]
    /// Comics that can be viewed now: owned, or all of them while subscribed (R2).
    public var unlocked: [String]
    public var randomViewsRemaining: Int
    public var lastRandomComic: String?
    /// The account's auto-renewable plans, one per group (issue 5).
    public var plans: [PlanStatus] = []
    /// What the active plans unlock, as the catalog names it.
    public var entitlements: [String] = []
}

public struct ReceiptReport: Sendable, Equatable {
    public var account: String
    public var entries: [ReceiptEntry]
    public var storedExpiry: Date?
    public var recomputedExpiry: Date?
    public var deviceExpiry: Date?
    /// Auto-renewable plans as stored and as the receipt's plan lines give them.
    public var storedPlans: [String: PlanState] = [:]
    public var recomputedPlans: [String: PlanState] = [:]

    /// A6 holds.
    public var isConsistent: Bool { storedExpiry == recomputedExpiry && storedPlans == recomputedPlans }
}

/// Levenshtein distance, for "did you mean" on a mistyped product id.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let saved = row[j]
            row[j] = a[i - 1] == b[j - 1] ? previous : min(previous, row[j], row[j - 1]) + 1
            previous = saved
        }
    }
    return row[b.count]
}

// What `storefront serve` answers from: a state folder's store, the App Store Server API over it,
// the courier that delivers its notifications, and the requests answered not yet listed (V7).
import Foundation
import Logging
import StoreCore
import StoreModel

public final class ServedStore: @unchecked Sendable {
    public let store: Store
    /// The records: the state folder's database or PostgreSQL.
    public let database: any RecordKeeping
    public let api: ServerAPI
    public let courier: NotificationCourier
    /// The account server devices reach with `--server` (W1).
    public let accounts: AccountService
    private let settler: Settler
    /// Requests answered and not yet listed in the account server: written together once a
    /// second (`listRequests`), so that listing them costs a request almost nothing.
    let requests = Locked<[ServedRequest]>([])
    /// Rung by a request that leaves a notification in the outbox: the delivery service sends it
    /// after the answer, as Apple's service does, never within the request.
    let deliveryDue = Wakeup()

    /// The store of `factory` as the device "app-store-server", settling one account at a time
    /// (a Store is not shared between threads).
    /// `realNow` is the time bearer tokens' expiry is checked against (tests freeze it); `logger`
    /// gets the failures of work done beside an answer (a settle before a read, a delivery after a
    /// write), which do not change the answer itself.
    /// `sessionLifetime`: how long a device's session stands for its account (real time).
    /// `lockAfter`: failed sign-ins in a row before a name refuses new devices (W17).
    public init(
        factory: StoreFactory, realNow: @escaping @Sendable () -> Date = Date.init,
        logger: Logger = Logger(label: "storefront-serve"),
        sessionLifetime: TimeInterval = DeviceSessionInfo.defaultLifetime,
        lockAfter: Int = SignInLimits.defaultLockAfter
    ) throws(StoreError) {
        guard let keeper = factory.server.keeper.here else {
            throw StoreError.storage(
                path: factory.server.location,
                reason: "storefront serve keeps its own account server; it cannot use another's")
        }
        database = keeper
        store = try factory.open(device: "app-store-server")
        // The server's catalog sets a fresh server's clock rate and billing (a .storekit file's
        // `_timeRate` and billing settings), as a device's catalog does its own state folder.
        // Devices' catalogs do not set a server's (W9): after this only the developer changes them.
        try keeper.adoptDefaults(
            clockRate: factory.catalog.clockRate, billing: factory.catalog.billing, real: realNow())
        // W9: the developer's token, made on the first start (owner-only, in the state folder).
        let state = factory.stateDirectory
        _ = try DeveloperToken.current(in: state)
        let tokenFile = DeveloperToken.file(in: state)
        let settler = Settler(store: store, logger: logger)
        self.settler = settler
        accounts = AccountService(
            database: keeper, hasher: factory.passwordHasher, clock: store.clock,
            developerToken: { DeveloperToken.read(tokenFile) }, gate: SignInGate(lockAfter: lockAfter),
            signer: settler, desk: settler, sold: Set(factory.catalog.products.map(\.id)), logger: logger,
            realNow: realNow,
            sessionLifetime: sessionLifetime
        )
        courier = try store.notifications.courier(settle: { account in settler.settle(account) })
        let deliveryDue = deliveryDue
        api = ServerAPI(
            server: keeper, catalog: factory.catalog, authority: try store.signed.authority(), clock: store.clock,
            deliver: { deliveryDue.ring() },
            realNow: realNow, settle: { account in settler.settle(account) },
            passwordAccepted: { SharedSecret.accepts($0, in: state) }, logger: logger
        )
    }

    /// O5: brings every family's shares in line (storefront-server does it every second).
    public func reconcileFamilies() throws { try settler.reconcileFamilies() }

    /// Writes the requests answered since the last time to the account server's list; on a
    /// failure they are kept for the next time.
    public func listRequests() throws {
        let answered = requests.withLock { requests in
            defer { requests.removeAll() }
            return requests
        }
        do {
            try database.recordRequests(answered)
        } catch {
            requests.withLock { $0.insert(contentsOf: answered, at: 0) }
            throw error
        }
    }
}

/// The App Store's side of a team device's purchase (W9): what `Checkout` decides, asked for over
/// the wire.
public protocol PurchaseDesk: Sendable {
    func grantOffer(_ ask: OfferAsk) throws(StoreError) -> OfferGrant
    func settlePurchase(_ ask: PurchaseAsk) throws(StoreError)
    func decidePayment(_ ask: PaymentAsk) throws(StoreError) -> PaymentDecision
    func answerPayment(_ answer: PaymentAnswer, asParent: Bool) throws(StoreError)
    func settlePlans(account: String) throws(StoreError) -> [ReceiptEntry]
    func actOnPlan(_ ask: PlanAsk) throws(StoreError) -> PlanState
    func fileRefundRequest(_ ask: RefundAsk) throws(StoreError) -> String
    func settleFamily(of account: String) throws(StoreError)
}

/// Settles one account at a time through the one store, signs its devices' data (S1), and grants
/// and settles their purchases (W9).
final class Settler: DeviceSigning, PurchaseDesk, @unchecked Sendable {
    private let store: Store
    private let logger: Logger
    private let lock = NSLock()
    init(store: Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The renewals the clock has passed, and the shares of the account's family, written before
    /// the account is read: two reads in a row agree, whenever the background round last ran. A
    /// failure is logged and the read goes on with what is stored (a storage failure then fails the
    /// read itself).
    func settle(_ account: String) {
        lock.withLock {
            do {
                _ = try store.plans.settle(account: account)
                try store.family.reconcileFamily(of: account)
            } catch {
                logger.error("settling \(account)'s plans failed: \(error)")
            }
        }
    }

    /// `body` with the one store, no other thread in it (a Store is not shared between threads).
    private func withStore<T>(_ body: (Store) throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(store)
    }

    /// S1 on a team: an account's data, signed for its device with this server's root, after the
    /// renewals the clock has passed.
    func sign(_ items: [SigningRequest], account: String) throws(StoreError) -> [String?] {
        settle(account)
        return try withStore { store throws(StoreError) in try store.signed.signForDevice(items, account: account) }
    }

    func grantOffer(_ ask: OfferAsk) throws(StoreError) -> OfferGrant {
        try withStore { store throws(StoreError) in try store.checkout.grant(ask) }
    }

    func settlePurchase(_ ask: PurchaseAsk) throws(StoreError) {
        try withStore { store throws(StoreError) in try store.checkout.settle(ask) }
    }

    func decidePayment(_ ask: PaymentAsk) throws(StoreError) -> PaymentDecision {
        try withStore { store throws(StoreError) in try store.checkout.decide(ask) }
    }

    func answerPayment(_ answer: PaymentAnswer, asParent: Bool) throws(StoreError) {
        try withStore { store throws(StoreError) in try store.checkout.answer(answer, asParent: asParent) }
    }

    func settlePlans(account: String) throws(StoreError) -> [ReceiptEntry] {
        try withStore { store throws(StoreError) in try store.plans.settle(account: account) }
    }

    func actOnPlan(_ ask: PlanAsk) throws(StoreError) -> PlanState {
        try withStore { store throws(StoreError) in try store.plans.apply(ask) }
    }

    func fileRefundRequest(_ ask: RefundAsk) throws(StoreError) -> String {
        try withStore { store throws(StoreError) in try store.refunds.file(ask) }
    }

    func settleFamily(of account: String) throws(StoreError) {
        try withStore { store throws(StoreError) in try store.family.reconcileFamily(of: account) }
    }

    func rootCertificate() throws(StoreError) -> Data {
        try withStore { store throws(StoreError) in try store.signed.rootCertificate(own: true) }
    }

    /// O5: every family's shares put right. Devices of a remote server may read only their own
    /// account (W6), so the server, which reaches every account, does it for them. One family's
    /// failure does not stop the others; the first is thrown after all were tried.
    func reconcileFamilies() throws {
        try lock.withLock {
            var first: (any Error)?
            for family in try store.server.families() {
                do { try store.family.reconcileFamily(of: family.organizer) } catch { first = first ?? error }
            }
            if let first { throw first }
        }
    }
}

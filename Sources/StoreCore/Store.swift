// The store as one device sees it: the catalog, the device's state, the account server and a
// clock, wired into its roles. Every operation is synchronous and reads the time from the clock it
// was given: the payment queue has no threads and no timers (Q5); delayed outcomes fire in
// `queue.recover()`.
//
//   accounts      sign up, in and out (A1, A7)                          Accounts.swift
//   queue         payments, policy, decisions, delivery, restore (Q, A5)  PaymentQueue.swift
//   plans         auto-renewable plans and their renewals               Plans.swift
//   offers        promotional offers, offer codes (O2, O3)              Offers.swift
//   refunds       refund requests and their answers (O7)              Refunds.swift
//   family        Family Sharing (O5)                                  Family.swift
//   entitlements  status, product rows, the receipt (R1–R7, A6)         Entitlements.swift
//   randomComics  the random viewer (R7)                                RandomComics.swift
//   settings      the shared clock, billing and grace (Q5, W7)          StoreSettings.swift
//   signed        signed transactions, renewal info, app transaction (S) Signing/SignedData.swift
//   notifications the webhook, the outbox and its delivery (N)         Notifications/Notifications.swift
import Foundation
import StoreModel

public final class Store {
    public let accounts: Accounts
    public let queue: PaymentQueue
    /// The App Store's side of a purchase: offers granted, payments settled (W9).
    public let checkout: Checkout
    public let plans: Plans
    public let offers: Offers
    public let refunds: Refunds
    public let family: FamilySharing
    public let entitlements: Entitlements
    public let randomComics: RandomComics
    public let settings: StoreSettings
    public let signed: SignedData
    public let notifications: Notifications
    let session: DeviceSession

    public var catalog: Catalog { session.catalog }
    public var deviceName: String { session.deviceName }
    public var device: DeviceDatabase { session.device }
    public var server: any AccountServer { session.server }
    public var clock: any StoreClock { session.clock }
    public var calendar: Calendar { session.calendar }
    public func now() -> Date { session.now() }

    /// Called at every durability step (`CrashPoint`). Fault injection: a hook that kills the
    /// process, or throws, at one of them leaves work for `queue.recover()` (Q3).
    public var crashPoints: (CrashPoint) throws(StoreError) -> Void {
        get { session.crashPoints }
        set { session.crashPoints = newValue }
    }

    /// A store for `device` in `stateDirectory`. `server` is the account server to use; nil opens
    /// the embedded one in the state folder. Internal: StoreFactory is the one place stores are built.
    init(
        stateDirectory: StateDirectory, device deviceName: String, catalog: Catalog, clock: any StoreClock,
        calendar: Calendar, passwordHasher: PasswordHasher = PasswordHasher(),
        randomIndex: @escaping (Int) -> Int = { Int.random(in: 0..<$0) }, server: (any AccountServer)? = nil,
        makeTransactionID: (() -> String)? = nil
    ) throws(StoreError) {
        let deviceURL = try stateDirectory.deviceDatabase(deviceName)
        try stateDirectory.prepare()
        let server =
            if let server { server } else {
                try ServerDatabase(url: stateDirectory.serverDatabase) as any AccountServer
            }
        session = try DeviceSession(
            catalog: catalog, stateDirectory: stateDirectory, deviceName: deviceName,
            device: try DeviceDatabase(url: deviceURL), lockPath: deviceURL.path + ".lock",
            server: server, clock: clock, calendar: calendar
        )
        if let makeTransactionID { session.makeTransactionID = makeTransactionID }
        plans = Plans(session: session)
        accounts = Accounts(session: session, passwordHasher: passwordHasher, plans: plans)
        offers = Offers(session: session, plans: plans)
        refunds = Refunds(session: session, plans: plans)
        family = FamilySharing(session: session, plans: plans)
        checkout = Checkout(session: session, plans: plans, offers: offers)
        queue = PaymentQueue(
            session: session, plans: plans, offers: offers, checkout: checkout, refunds: refunds, family: family)
        entitlements = Entitlements(session: session, plans: plans, family: family)
        randomComics = RandomComics(session: session, entitlements: entitlements, randomIndex: randomIndex)
        settings = StoreSettings(session: session, plans: plans, queue: queue)
        signed = SignedData(session: session, plans: plans)
        notifications = Notifications(session: session)
    }
}

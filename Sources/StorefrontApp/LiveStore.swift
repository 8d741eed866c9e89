// The screen's effects performed against the real store.
import Foundation
import StoreCore
import StoreModel

public final class LiveStore: StoreServing {
    public let store: Store
    private var events: [TransactionEvent] = []
    private var lastSnapshot: StoreSnapshot?
    private let calendar: Calendar
    public let serverLocation: String?

    public init(store: Store) {
        self.store = store
        calendar = store.calendar
        serverLocation = store.server.keeper.team?.location
        // The log opens with the device's recent past, then follows every change.
        events = (try? store.queue.recentEvents(limit: 50)) ?? []
        // Weak: a store outlives the screens that watch it, and cannot forget an observer.
        store.queue.observe { [weak self] event in self?.events.append(event) }
    }

    public func snapshot() throws -> StoreSnapshot { try Self.snapshot(of: store) }

    /// N3: the screen's tick sends what is due on a thread of its own, so that a receiver that
    /// hangs never stalls the screen; one delivery at a time.
    private let delivery = DispatchQueue(label: "storefront.notifications")
    private let delivering = DeliveryFlag()

    private func deliverInBackground() {
        guard (try? store.notifications.webhook()) != nil, delivering.begin() else { return }
        guard let courier = try? store.notifications.courier() else {
            delivering.end()
            return
        }
        let flag = delivering
        delivery.async {
            _ = try? courier.deliverDue()
            flag.end()
        }
    }

    /// The inspector's lines: the transaction, why it is unverified if it is, its JWS header and
    /// its payload, decoded.
    static func inspection(of transaction: StoreTransaction, store: Store) throws -> Inspection {
        let title = store.catalog.product(transaction.productID)?.title ?? transaction.productID
        guard let signed = try store.signed.transaction(transaction), let decoded = try? JWS.decode(signed.jws) else {
            return Inspection(
                title: "\(title) \(transaction.id)",
                lines: ["Not signed: only purchased and restored transactions are."])
        }
        var lines = ["transaction \(transaction.id) · \(Wording.state(transaction.state))"]
        if let unverified = signed.unverified { lines.append("UNVERIFIED: \(unverified.reason)") }
        lines.append("JWS ES256, x5c: leaf, intermediate, root (\(signed.jws.count) characters)")
        lines.append("")
        for key in decoded.payload.keys.sorted() {
            lines.append("\(key): \(decoded.payload[key].map { "\($0)" } ?? "")")
        }
        return Inspection(title: "\(title) — signed transaction", lines: lines)
    }

    /// What the store says now, for anyone who only needs to look (scenario checks).
    public static func snapshot(of store: Store) throws -> StoreSnapshot {
        let calendar = store.calendar
        let setting = try store.settings.clockSetting()
        // The account's storefront read afresh (another device may have moved it); the catalog
        // as it sees it follows.
        let storefront = try store.accounts.storefront()
        let catalog = store.catalog
        let status = try store.entitlements.status()
        // Q7: a simulated Load Products error leaves the list empty with the reason; every tick
        // tries again.
        var rows: [ProductRow] = []
        var productsError: String?
        switch Result(catching: { () throws(StoreError) -> [ProductRow] in try store.entitlements.productRows() }) {
        case .success(let loaded): rows = loaded
        case .failure(.simulated(let api, let error)): productsError = "\(api.rawValue) failed: \(error)"
        case .failure(let other): throw other
        }
        // RESCIND_CONSENT: the app does not open for a member whose organizer withdrew consent.
        let consentWithdrawnBy = try store.family.consentWithdrawnBy()
        if consentWithdrawnBy != nil { rows = [] }
        var snapshot = StoreSnapshot(
            status: status, rows: rows,
            pending: try store.queue.pending() + store.queue.delayed(), policy: try store.queue.policy(),
            clockDescription: setting.summary, catalogName: catalog.name, currencyCode: catalog.currencyCode,
            localeIdentifier: catalog.localeIdentifier, timeZone: calendar.timeZone
        )
        snapshot.hasRandomComics = !catalog.randomPool.isEmpty
        snapshot.storefront = storefront
        snapshot.storefrontChoices = catalog.storefrontChoices
        snapshot.billing = try store.settings.billing()
        snapshot.simulatedErrors = try store.settings.simulatedErrors()
        snapshot.webhook = try store.notifications.webhook()?.url
        snapshot.server = store.server.keeper.team?.location
        if snapshot.server != nil, status.user != nil {
            snapshot.offerPolicy = try store.server.offerPolicy() ?? .standard
        }
        do {
            snapshot.requests = try store.server.recentRequests(limit: 2)
        } catch {
            // W9: a customer's device of a team server does not see the server's request log.
            guard case .developerOnly = error else { throw error }
            snapshot.requests = []
        }
        snapshot.notifications = try store.notifications.all().suffix(4).map { notification in
            NotificationLine(
                at: notification.createdAt, title: notification.title, state: notification.state.rawValue,
                attempts: notification.attempts.count, id: notification.uuid)
        }
        snapshot.productsError = productsError
        snapshot.consentWithdrawnBy = consentWithdrawnBy
        if status.user != nil { snapshot.refundRequests = Array(try store.refunds.requests().suffix(3)) }
        snapshot.planSummaries = status.plans.map { $0.summary(calendar: calendar, catalog: catalog) }
        let usedOffers = Set(status.plans.filter(\.introOfferUsed).map(\.group))
        let formatter = catalog.priceFormatter
        for product in catalog.products {
            guard let terms = product.autoRenew, let offer = terms.introductoryOffer, !usedOffers.contains(terms.group)
            else { continue }
            snapshot.offerNotes[product.id] = offer.phrase(formattedPrice: formatter.string(for: offer.price))
        }
        return snapshot
    }

    /// M3: the screen buys as an app does, with the signed-in account's own app account token.
    private func ownToken() throws(StoreError) -> UUID? {
        try store.accounts.currentUser().map { AppAccountToken.of(account: $0) }
    }

    public func perform(_ effect: Effect) -> [Action] {
        // A tick asks a team server once for each thing it reads, not once for each reader.
        guard effect == .settle, let remote = store.server.keeper.team else { return performNow(effect) }
        return remote.sharingReads { performNow(effect) }
    }

    private func performNow(_ effect: Effect) -> [Action] {
        var actions: [Action] = []
        do {
            switch effect {
            case .buy(let id):
                actions.append(.purchased(try store.queue.buy(id, appAccountToken: try ownToken())))
            case .buyBilled(let id, let plan):
                actions.append(.purchased(try store.queue.buy(id, appAccountToken: try ownToken(), billingPlan: plan)))
            case .buyOffer(let id, let offerID):
                let token = try ownToken()
                if store.catalog.product(id)?.autoRenew?.offer(offerID, type: .winBack) != nil {
                    actions.append(.purchased(try store.queue.buy(id, winBackOffer: offerID, appAccountToken: token)))
                } else {
                    let signature = try store.offers.demoSignature(productID: id, offerID: offerID)
                    let request = PromotionalOfferRequest(offerID: offerID, signature: signature)
                    actions.append(.purchased(try store.queue.buy(id, offer: request, appAccountToken: token)))
                }
            case .buyIntro(let id, let allow):
                let jws = try store.offers.demoIntroductoryOfferEligibility(productID: id, allow: allow)
                actions.append(
                    .purchased(
                        try store.queue.buy(id, appAccountToken: try ownToken(), introductoryOfferEligibility: jws)))
            case .redeem(let code): actions.append(.purchased(try store.queue.redeem(code: code)))
            case .requestRefund(let id):
                let request = try store.refunds.request(id, reason: .other)
                actions.append(
                    .planChanged(
                        "Refund of \(store.catalog.product(request.productID)?.title ?? request.productID) asked: \(request.state.rawValue)"
                    ))
            case .answerRefund(let id, let approve):
                let request = try store.refunds.decide(id, approve: approve)
                actions.append(
                    .planChanged(
                        "Refund of \(store.catalog.product(request.productID)?.title ?? request.productID) \(request.state.rawValue)"
                    ))
            case .approve(let id): actions.append(.settled(try store.queue.approve(id)))
            case .decline(let id): actions.append(.settled(try store.queue.decline(id)))
            case .resolve(let id): actions.append(.settled(try store.queue.resolve(id)))
            case .restore: actions.append(.restored(try store.queue.restore()))
            case .showRandom: actions.append(.randomShown(try store.randomComics.show()))
            case .setPolicy(let policy): try store.queue.setPolicy(policy)
            case .setBilling(let billing): try store.settings.setBilling(billing)
            case .setSimulatedErrors(let errors): try store.settings.setSimulatedErrors(errors)
            case .setStorefront(let code): try store.accounts.setStorefront(code)
            case .plan(.cancel, let productID):
                actions += try cancelWithRetention(productID)
            case .retention(let answer):
                actions += try answerRetention(answer)
            case .plan(let command, let productID):
                let plan = try command.perform(in: store, on: productID)
                actions.append(.planChanged(plan.summary(calendar: calendar, catalog: store.catalog)))
            case .advanceClock(let duration):
                try store.settings.changeClock { setting, real in
                    setting.advanced(by: duration, real: real, calendar: calendar)
                }
            case .realClock: try store.settings.changeClock { _, _ in ClockSetting.standard }
            case .signIn(let name, let password):
                try store.accounts.signIn(name, password: password)
                actions.append(.signedIn(name))
            case .signUp(let name, let password):
                try store.accounts.signUp(name, password: password)
                actions.append(.signedIn(name))
            case .signOut:
                try store.accounts.signOut()
                actions.append(.signedIn(nil))
            case .settle:
                try store.queue.recover()
                try store.queue.publishEvents()
                deliverInBackground()
            case .inspect(let id):
                actions.append(.inspected(try Self.inspection(of: try store.queue.transaction(id), store: store)))
            case .loadPicture, .quit: break
            }
        } catch StoreError.serverUnreachable(let server, let problem) {
            serverDown = true
            actions.append(.server(problem: Self.unreachable(server, problem)))
        } catch let error as StoreError {
            actions.append(.failed(Self.words(error)))
        } catch {
            actions.append(.failed("\(error)"))
        }
        return changes() + actions
    }

    /// Whether the account server stopped answering (W4): the screen says so until it answers.
    private var serverDown = false

    static func unreachable(_ server: String, _ problem: HTTPProblem) -> String {
        "Account server \(server) unreachable (\(problem)); trying again"
    }

    /// New events, and the snapshot when it differs from the last one handed out.
    private func changes() -> [Action] {
        var actions: [Action] = []
        try? store.queue.publishEvents()
        if !events.isEmpty {
            actions.append(.events(events))
            events.removeAll()
        }
        do {
            let snapshot = try snapshot()
            if serverDown {
                serverDown = false
                actions.append(.server(problem: nil))
            }
            if snapshot != lastSnapshot {
                lastSnapshot = snapshot
                actions.append(.loaded(snapshot))
            }
        } catch StoreError.serverUnreachable(let server, let problem) {
            if !serverDown { actions.append(.server(problem: Self.unreachable(server, problem))) }
            serverDown = true
        } catch {}
        return actions
    }

    /// The store's errors, reworded where the screen offers a key instead of a command.
    static func words(_ error: StoreError) -> String {
        switch error {
        case .notSignedIn: "Sign in to restore purchases (u: account)"
        case .noRandomViews: "No random comics left: buy more views (b) or subscribe"
        case .signInRequired: "Subscriptions need an account (u: account)"
        // The screen's own controls, not the command line's.
        case .unknownAccount(let name): "No account named \"\(name)\": choose [Sign up] to create it"
        default: error.description
        }
    }
}

/// The store for a screen that draws before it opens: the first frame comes from the catalog
/// alone, and the store is opened by the first effect (the first tick's `.settle`), so that the
/// databases' opening, migration and recovery come after the first frame, not before it.
public final class OpeningStore: StoreServing {
    private let catalog: Catalog
    private let open: () throws -> Store
    public private(set) var live: LiveStore?
    /// Why the store could not be opened; the screen then ends and the program reports it. Read
    /// by the program while the screen's effects may still run on their own thread.
    public var failure: Error? { lock.withLock { openFailure } }
    private var openFailure: Error?
    private let lock = NSLock()
    /// The team server named on the command line, if any: known before the store opens.
    public let serverLocation: String?

    public init(catalog: Catalog, server: String? = nil, open: @escaping () throws -> Store) {
        self.catalog = catalog
        serverLocation = server
        self.open = open
    }

    public func snapshot() throws -> StoreSnapshot {
        try live?.snapshot() ?? .opening(catalog)
    }

    public func perform(_ effect: Effect) -> [Action] {
        if live == nil {
            // Opened once, and not tried again after it failed: the screen is ending.
            guard failure == nil else { return [] }
            do {
                live = LiveStore(store: try open())
            } catch StoreError.serverUnreachable(let server, let problem) {
                // A team server that does not answer yet is said, and asked again at the
                // next tick; the screen stays open and its keys work meanwhile.
                return [.server(problem: LiveStore.unreachable(server, problem))]
            } catch {
                lock.withLock { openFailure = error }
                return [.interrupt]
            }
        }
        return live?.perform(effect) ?? []
    }
}

/// Whether a background delivery is running (set on the main thread, cleared on the delivery's).
final class DeliveryFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false

    func begin() -> Bool {
        lock.withLock {
            guard !running else { return false }
            running = true
            return true
        }
    }

    func end() { lock.withLock { running = false } }
}

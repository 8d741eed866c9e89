// W1–W4 in-process: stores on two "machines" (two state folders) whose account server is
// `storefront serve`'s, reached over HTTP on loopback (a live Hummingbird server). The payment
// queue, recovery, restore and plans run unchanged on RemoteAccountServer.
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StoreCore
import StoreModel
import StorefrontServer
import TestSupport
import Testing

/// Where the served account server keeps its state (W5).
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }

    /// The account server for a state folder: its SQLite file, or a fresh PostgreSQL database.
    func server(_ state: TemporaryState) throws -> (any AccountServer)? {
        switch self {
        case .sqlite: nil
        case .postgres: try PostgresAccountServer.open(url: try TestPostgres.freshDatabase())
        }
    }
}

/// Devices that buy the same product at the same moment, each on its own thread.
final class Racers: @unchecked Sendable {
    let devices: [Store]
    init(devices: [Store]) { self.devices = devices }

    /// What each device's purchase ended as (those that threw are left out).
    func buyAtOnce(_ product: String) -> [StoreTransaction] {
        let outcomes = Locked<[StoreTransaction]>([])
        DispatchQueue.concurrentPerform(iterations: devices.count) { index in
            if let bought = try? devices[index].queue.buy(product) { outcomes.withLock { $0.append(bought) } }
        }
        return outcomes.withLock { $0 }
    }
}

@Suite("Stores on two machines sharing one account server over HTTP", .tags(.postgres), .notInFastRun)
struct RemoteStoreTests {
    /// The server's state folder and clock; the machines share the clock (W7: it is the server's).
    final class Setup: @unchecked Sendable {
        let serverState = TemporaryState(start: utc(2026, 1, 15, 12))
        let catalog: Catalog
        let served: ServedStore
        var machines: [TemporaryState] = []

        init(catalog: Catalog, backend: Backend) throws {
            self.catalog = catalog
            let factory = try StoreFactory(
                stateDirectory: serverState.directory, catalog: catalog, calendar: utcCalendar,
                time: .manual(serverState.clock),
                server: try backend.server(serverState)
            )
            factory.passwordHasher = .fastForTests
            served = try ServedStore(factory: factory)
        }

        /// A device on a machine of its own, or on `machine`, reaching the server at `port`; with
        /// `developer`, it holds the server's developer token too (W9).
        func device(port: Int, on machine: TemporaryState? = nil, name: String = "phone", developer: Bool = false)
            throws -> Store
        {
            let machine =
                machine
                ?? {
                    let made = TemporaryState()
                    machines.append(made)
                    return made
                }()
            let server = try RemoteAccountServer(
                // A generous ceiling: a loaded machine is slow, not broken.
                url: try #require(URL(string: "http://127.0.0.1:\(port)")), timeout: 120,
                developerToken: developer ? try DeveloperToken.current(in: serverState.directory) : nil
            )
            let factory = try StoreFactory(
                stateDirectory: machine.directory, catalog: catalog, calendar: utcCalendar,
                time: .manual(serverState.clock), server: server
            )
            return try factory.open(device: name)
        }

        func run<T: Sendable>(_ body: @escaping @Sendable (Int) throws -> T) async throws -> T {
            let app = try ServerApplication.make(
                served: served, host: "127.0.0.1", port: 0, logger: Logger(label: "test"))
            // The server reads and answers on threads of its own: the other suites' synchronous
            // work (SQLite's fsyncs among it) can hold every cooperative thread for minutes.
            return try await withTaskExecutorPreference(Self.serverThreads) {
                try await app.test(.live) { client in
                    let port = try #require(client.port)
                    // The devices' blocking calls run off the cooperative pool too.
                    return try await offPool { try body(port) }
                }
            }
        }

        /// Where every in-process server of these suites runs its connections.
        static let serverThreads = ServerApplication.ownThreads(4)
    }

    @Test(
        "W1 A4 A5 sign up on A, subscribe on A, sign in on B: B has A's expiry; B renews early and no months are lost; a reset B restores",
        arguments: Backend.allCases)
    func twoMachines(backend: Backend) async throws {
        let setup = try Setup(catalog: testCatalog, backend: backend)
        try await setup.run { port in
            let a = try setup.device(port: port)
            try a.accounts.signUp("ann", password: "secret")
            try a.queue.buy("sub3")
            try a.queue.buy("comic.a")
            let expiry = try #require(try a.entitlements.status().expiry)
            #expect(expiry == utc(2026, 4, 16, 12), "three months and the catalog's bonus day (R5)")

            let b = try setup.device(port: port)
            try b.accounts.signIn("ann", password: "secret")
            #expect(try b.entitlements.status().expiry == expiry, "B's header shows A's expiry")
            #expect(try b.entitlements.status().header.hasPrefix("Subscribed!"))

            setup.serverState.clock.set(utc(2026, 2, 15, 12))
            try b.queue.buy("sub3")
            #expect(
                try b.entitlements.status().expiry == utc(2026, 7, 17, 12),
                "renewed two months early: three more months and a day after A's")
            // A learns it as the seed apps did: at its next sign-in or restore.
            #expect(try a.queue.restore().expiry == utc(2026, 7, 17, 12), "A sees no months lost")
            #expect(try a.entitlements.status().expiry == utc(2026, 7, 17, 12))

            let resetB = try setup.device(port: port)
            try resetB.accounts.signIn("ann", password: "secret")
            #expect(try resetB.entitlements.status().owned.isEmpty)
            let restored = try resetB.queue.restore()
            #expect(restored.restored == ["comic.a"])
            #expect(try resetB.entitlements.status().owned == ["comic.a"])
            #expect(try resetB.entitlements.receipt().isConsistent)
        }
    }

    @Test(
        "W10 an account pays once for a comic: a second device buying it, in turn or racing (50 times), leaves one receipt line; both own it, the later one delivered with the first as its original",
        arguments: Backend.allCases)
    func oneComicOneCharge(backend: Backend) async throws {
        let setup = try Setup(catalog: testCatalog, backend: backend)
        try await setup.run { port in
            let a = try setup.device(port: port)
            let b = try setup.device(port: port)
            // In turn: B buys what A bought.
            try a.accounts.signUp("ann", password: "secret")
            try b.accounts.signIn("ann", password: "secret")
            let first = try a.queue.buy("comic.a")
            let second = try b.queue.buy("comic.a")
            #expect(first.state == .purchased && second.state == .purchased)
            #expect(
                try b.queue.history().first { $0.id == second.id }?.originalID == first.id,
                "delivered as the purchase the account made")
            #expect(
                try a.server.receipt(account: "ann").filter { $0.productID == "comic.a" }.map(\.transactionID) == [
                    first.id
                ], "one line, no second charge")
            #expect(try a.entitlements.status().owned == ["comic.a"] && b.entitlements.status().owned == ["comic.a"])
            #expect(try b.queue.restore().restored == ["comic.a"])
            // Racing: both devices of a fresh account buy the same comic at once.
            for round in 0..<50 {
                let name = "racer\(round)"
                try a.accounts.signUp(name, password: "secret")
                try b.accounts.signIn(name, password: "secret")
                let bought = Racers(devices: [a, b]).buyAtOnce("comic.b")
                let lines = try a.server.receipt(account: name).filter { $0.productID == "comic.b" }
                #expect(
                    bought.count == 2 && bought.allSatisfy { $0.state == .purchased },
                    "round \(round): \(bought.map(\.state))")
                #expect(lines.count == 1, "round \(round): \(lines.count) lines")
                let ids = Set(bought.map(\.id))
                let originals = try [a, b].flatMap { try $0.queue.history() }.filter { ids.contains($0.id) }.map {
                    $0.originalID ?? $0.id
                }
                #expect(
                    Set(originals) == Set(lines.map(\.transactionID)),
                    "round \(round): both transactions are the one on the receipt")
                #expect(
                    try a.entitlements.status().owned == ["comic.b"] && b.entitlements.status().owned == ["comic.b"],
                    "round \(round)")
                try a.accounts.signOut()
                try b.accounts.signOut()
            }
        }
    }

    @Test(
        "W1 W7 W9 an auto-renewable plan bought on A renews on the server's clock, written by the server itself, and B sees the renewal; cancelling on B shows on A",
        arguments: Backend.allCases)
    func plansAcrossMachines(backend: Backend) async throws {
        let setup = try Setup(catalog: selfiesCatalog, backend: backend)
        try await setup.run { port in
            let a = try setup.device(port: port)
            try a.accounts.signUp("ann", password: "secret")
            let bought = try a.queue.buy("allaccess")
            let b = try setup.device(port: port)
            try b.accounts.signIn("ann", password: "secret")
            setup.serverState.clock.set(utc(2026, 1, 29, 12, 0, 1))
            let plan = try #require(try b.plans.subscriptions().first)
            #expect(plan.expiresDate == utc(2026, 2, 5, 12), "two weekly renewals, written once")
            #expect(plan.originalTransactionID == bought.id)
            _ = try b.plans.perform(.cancel, on: "allaccess")
            #expect(try a.plans.subscriptions().first?.autoRenew == false)
            #expect(try a.entitlements.receipt().isConsistent)
            let renewals = try a.server.planLines(account: "ann").filter { $0.event == .renewal }
            #expect(renewals.count == 2)
            #expect(renewals.allSatisfy { $0.device == "app-store-server" }, "\(renewals.map(\.device))")
        }
    }

    @Test(
        "W9 Q4 the server decides a payment: a customer chooses no outcome and sets no policy; the developer's policy applies to her; Ask to Buy waits for the developer, who answers from his own device, an interrupted purchase for her; a payment the server did not approve, or whose delay has not passed, is not settled",
        arguments: Backend.allCases)
    func serverDecidesPayments(backend: Backend) async throws {
        let setup = try Setup(catalog: testCatalog, backend: backend)
        try await setup.run { port in
            let ann = try setup.device(port: port)
            try ann.accounts.signUp("ann", password: "secret")
            let developer = try setup.device(port: port, developer: true)
            try developer.accounts.signUp("dev", password: "secret")
            func developerOnly(_ body: () throws -> Any) -> Bool {
                if case .developerOnly = error(body) { return true }
                return false
            }
            #expect(developerOnly { try ann.queue.buy("comic.a", outcome: .approve) }, "her own outcome")
            #expect(developerOnly { try ann.queue.setPolicy(.approve) }, "her own policy")
            #expect(try ann.queue.history().isEmpty, "nothing was bought")

            // Ask to Buy, by the developer's policy: only the developer answers it.
            try developer.queue.setPolicy(.defer)
            #expect(try ann.queue.policy() == .defer)
            let asked = try ann.queue.buy("comic.a")
            #expect(asked.state == .deferred)
            #expect(developerOnly { try ann.queue.approve(asked.id) }, "she cannot approve her own ask")
            #expect(developerOnly { try ann.queue.decline(asked.id) }, "nor decline it")
            let team = try #require(ann.server.keeper.team)
            let settle = PurchaseAsk(
                transactionID: asked.id, account: "ann", productID: "comic.a", device: "phone",
                at: setup.serverState.clock.now())
            #expect(
                error { try team.settlePurchase(settle) } != nil, "the server settles no payment it did not approve")
            #expect(try ann.entitlements.receipt().entries.isEmpty)
            let developersOwn = try developer.queue.buy("comic.b")
            #expect(developersOwn.state == .deferred)
            #expect(try developer.queue.approve(developersOwn.id).state == .purchased, "the developer answers")
            // The developer answers hers from his own device; hers settles it at its next start.
            let declined = try ann.queue.buy("pack")
            #expect(developerOnly { try ann.queue.answer(asked.id, of: "ann", approve: true) })
            try developer.queue.answer(asked.id, of: "ann", approve: true)
            try developer.queue.answer(declined.id, of: "ann", approve: false)
            #expect(error { try developer.queue.answer(asked.id, of: "ann", approve: false) } != nil, "answered once")
            try ann.queue.recover()
            #expect(try ann.queue.transaction(asked.id).state == .purchased)
            #expect(try ann.queue.transaction(declined.id).reason == .declined)
            #expect(try ann.entitlements.status().owned == ["comic.a"])

            // An interrupted purchase is hers to resolve.
            try developer.queue.setPolicy(.interrupt)
            let interrupted = try ann.queue.buy("comic.b")
            #expect(interrupted.state == .interrupted)
            #expect(try ann.queue.resolve(interrupted.id).state == .purchased)
            #expect(try ann.entitlements.status().owned == ["comic.a", "comic.b"])

            // A failed payment is never settled; a delayed one only once the server's clock passed it.
            try developer.queue.setPolicy(.fail(.paymentInvalid))
            let failed = try ann.queue.buy("pack")
            #expect(failed.state == .failed && failed.reason == .paymentInvalid)
            var forged = settle
            forged.transactionID = failed.id
            forged.productID = "pack"
            #expect(error { try team.settlePurchase(forged) } != nil)
            try developer.queue.setPolicy(.delayed(after: .seconds(300), approve: true))
            let delayed = try ann.queue.buy("pack")
            let due = try #require(delayed.dueAt)
            #expect(due == setup.serverState.clock.now().addingTimeInterval(300))
            forged.transactionID = delayed.id
            forged.at = due
            #expect(error { try team.settlePurchase(forged) } != nil, "not due yet by the server's clock")
            setup.serverState.clock.advance(seconds: 360)
            try ann.queue.recover()
            #expect(try ann.queue.transaction(delayed.id).state == .purchased)
            let packs = try ann.entitlements.receipt().entries.filter { $0.productID == "pack" }
            #expect(packs.map(\.transactionID) == [delayed.id], "the failed pack is not on the receipt")
        }
    }

    @Test(
        "W3 four devices on two machines buying at once: every purchase once, every consumable credited once, the receipt recomputes",
        arguments: Backend.allCases)
    func concurrentDevices(backend: Backend) async throws {
        let setup = try Setup(catalog: testCatalog, backend: backend)
        try await setup.run { port in
            let first = try setup.device(port: port)
            try first.accounts.signUp("ann", password: "secret")
            let machines = [TemporaryState(), TemporaryState()]
            setup.machines += machines
            nonisolated(unsafe) let devices = try (0..<4).map { index -> Store in
                let store = try setup.device(port: port, on: machines[index % 2], name: "device\(index)")
                try store.accounts.signIn("ann", password: "secret")
                return store
            }
            let bought = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                for _ in 0..<10 {
                    if let transaction = try? devices[index].queue.buy("pack") {
                        bought.withLock { $0.append(transaction.id) }
                    }
                }
            }
            let ids = bought.withLock { $0 }
            #expect(ids.count == 40)
            let receipt = try first.server.receipt(account: "ann")
            #expect(Set(receipt.map(\.transactionID)) == Set(ids))
            #expect(receipt.count == 40)
            for device in devices {
                #expect(try device.entitlements.receipt().isConsistent)
            }
        }
    }

    @Test(
        "O2 O3 W1 offers across machines: a promotional offer's nonce is good once whichever machine tries it; a one-time code redeems once; codes made on one machine redeem on another",
        arguments: Backend.allCases)
    func offersAcrossMachines(backend: Backend) async throws {
        let setup = try Setup(catalog: selfiesCatalog, backend: backend)
        // The key is made where the server is (a device's keyring changes stay on the server's machine).
        let key = try TestOfferKey(installedIn: setup.served.store)
        try await setup.run { port in
            // Machine A is also the developer's (W9: offer codes are the developer's to make and list).
            let a = try setup.device(port: port, developer: true)
            try a.accounts.signUp("ann", password: "secret")
            try a.queue.buy("allaccess")
            let b = try setup.device(port: port)
            try b.accounts.signIn("ann", password: "secret")
            let request = try key.request(a, product: "allaccess.monthly", offer: "comeback")
            #expect(try a.queue.buy("allaccess.monthly", offer: request).offer?.id == "comeback")
            guard
                case .offerRefused(.invalidOfferSignature(let why))? = error({
                    try b.queue.buy("allaccess.monthly", offer: request)
                })
            else {
                Issue.record("machine B reused machine A's nonce")
                return
            }
            #expect(why.contains("was used already"))
            let codes = try a.offers.createCodes(offer: "ANYONE", count: 1, custom: nil, limit: 1)
            let c = try setup.device(port: port)
            try c.accounts.signUp("bob", password: "secret")
            try c.queue.redeem(code: codes[0].code)
            #expect(
                error { try b.queue.redeem(code: codes[0].code) } == .offerCodeUsed(codes[0].code, byThisAccount: false)
            )
            #expect(try a.offers.codes().map(\.used) == [1])
            #expect(
                error { try b.offers.codes() }
                    == .developerOnly(server: "http://127.0.0.1:\(port)", action: "list offer codes"),
                "a customer lists no codes")
            for store in [a, c] {
                let report = try store.entitlements.receipt()
                #expect(report.storedPlans == report.recomputedPlans)
            }
        }
    }

    @Test(
        "O6 O7 W1 across machines: a refund approved on one machine takes the comic off the other; a price increase set on one is agreed to on the other; the receipt recomputes",
        arguments: Backend.allCases)
    func refundsAndPricesAcrossMachines(backend: Backend) async throws {
        let setup = try Setup(catalog: selfiesCatalog, backend: backend)
        try await setup.run { port in
            // Machine A is also the developer's (W9: prices are the developer's).
            let a = try setup.device(port: port, developer: true)
            try a.accounts.signUp("ann", password: "secret")
            let comic = try a.queue.buy("comic.a")
            try a.queue.buy("allaccess")
            let b = try setup.device(port: port)
            try b.accounts.signIn("ann", password: "secret")
            _ = try b.queue.restore()
            #expect(try b.entitlements.status().owned == ["comic.a"])
            _ = try a.refunds.request(comic.id, reason: .unintended)
            #expect(try a.refunds.decide(comic.id, approve: true).state == .approved)
            _ = try b.queue.recover()
            #expect(try b.entitlements.status().owned.isEmpty, "the refund reached the other machine")
            setup.serverState.clock.advance(seconds: 3600)
            #expect(
                error { try b.plans.setPrice(Decimal(string: "0.01")!, of: "allaccess", consentRequired: false) }
                    == .developerOnly(server: "http://127.0.0.1:\(port)", action: "change prices"),
                "a customer sets no price")
            let (_, told) = try a.plans.setPrice(Decimal(string: "2.49")!, of: "allaccess", consentRequired: true)
            #expect(told == 1)
            #expect(try b.plans.subscriptions().first?.priceIncrease?.answer == nil)
            _ = try b.plans.answerPriceIncrease(of: "allaccess", accept: true)
            #expect(try a.plans.subscriptions().first?.priceIncrease?.answer == true)
            for store in [a, b] {
                let report = try store.entitlements.receipt()
                #expect(report.isConsistent && report.storedPlans == report.recomputedPlans)
            }
        }
    }

    /// mom's and kid's devices on the server at `port`, signed up; mom organizes a family with kid.
    static func momAndKid(_ setup: Setup, port: Int) throws -> (mom: Store, kid: Store) {
        let kid = try setup.device(port: port)
        try kid.accounts.signUp("kid", password: "secret")
        let mom = try setup.device(port: port)
        try mom.accounts.signUp("mom", password: "secret")
        _ = try mom.family.create()
        _ = try mom.family.add("kid")
        _ = try kid.family.accept()
        return (mom, kid)
    }

    @Test(
        "O5 W6 Family Sharing across machines: the server puts the shares right (devices may not read other accounts), the member reads the organizer's plans and nothing else of theirs, leaving revokes",
        arguments: Backend.allCases)
    func familyAcrossMachines(backend: Backend) async throws {
        let setup = try Setup(catalog: selfiesCatalog, backend: backend)
        try await setup.run { port in
            let (mom, kid) = try Self.momAndKid(setup, port: port)
            try mom.queue.buy("comic.a")
            try mom.queue.buy("allaccess")
            // What storefront-server does every second.
            try setup.served.reconcileFamilies()
            _ = try kid.queue.recover()
            #expect(try kid.entitlements.status().owned == ["comic.a"])
            #expect(try kid.entitlements.status().plans.first?.familySharedBy == "mom")
            #expect(
                error { try kid.server.receipt(account: "mom") } != nil, "the organizer's receipt stays the organizer's"
            )
            // W6: a stranger learns neither who is in mom's family nor, inviting kid, whether kid is in one.
            let eve = try setup.device(port: port)
            try eve.accounts.signUp("eve", password: "secret")
            #expect(try eve.server.families().isEmpty && eve.server.hasFamilies())
            #expect(try kid.family.family()?.organizer == "mom")
            _ = try eve.family.create()
            // W19: eve may invite kid, as she may any name, and learns nothing by it; kid, in mom's
            // family, cannot accept.
            #expect(try eve.family.add("kid").invited == ["kid"])
            #expect(
                error { try kid.family.accept(from: "eve") }
                    == .familyRefused(.inFamilyOf(account: "kid", organizer: "mom")))
            _ = try mom.family.leave("kid")
            _ = try kid.queue.recover()
            #expect(try kid.entitlements.status().owned.isEmpty)
            #expect(try kid.entitlements.status().plans.isEmpty)
            #expect(try kid.server.notifications(account: "kid").map(\.type) == ["REVOKE", "REVOKE"])
            // Every account's notifications are the developer's to list, with no session; a
            // device lists only its own accounts'.
            let developer = try setup.device(port: port, name: "console", developer: true)
            let listed = Set(try developer.notifications.all().map(\.account))
            #expect(listed.isSuperset(of: ["mom", "kid"]), "\(listed)")
            #expect(try eve.notifications.all().allSatisfy { $0.account == "eve" })
        }
    }

    @Test(
        "RESCIND_CONSENT across machines: the organizer's device tells each withdrawal at once, the member's device or the server's every-second pass tells one a crash left untold, each once; what a stranger or a device asks for that the server does not hold writes nothing; the member cannot undo it",
        arguments: Backend.allCases)
    func consentAcrossMachines(backend: Backend) async throws {
        let setup = try Setup(catalog: selfiesCatalog, backend: backend)
        try await setup.run { port in
            let (mom, kid) = try Self.momAndKid(setup, port: port)
            _ = try mom.family.setConsent("kid", withdrawn: true)
            #expect(try kid.server.notifications(account: "kid").map(\.type) == ["RESCIND_CONSENT"], "told at once")
            #expect(try kid.family.consentWithdrawnBy() == "mom")
            _ = try kid.queue.recover()
            try setup.served.reconcileFamilies()
            #expect(try kid.server.notifications(account: "kid").count == 1, "once")
            #expect(
                try kid.server.enqueue([ConsentWithdrawal(member: "kid", at: Date()).notification]).isEmpty,
                "a made-up one writes nothing")
            // The member cannot take the withdrawal off (leaving, always their right, takes it along).
            let family = try #require(try kid.family.family())
            var lifted = family
            lifted.consentWithdrawn = []
            #expect(
                error { try kid.server.changeFamily(FamilyChange(organizer: "mom", expected: family, new: lifted)) }
                    == .familyRefused(.organizerOnly(organizer: "mom")))
            // Given, then withdrawn again with a crash before it was told: the server's pass tells it.
            _ = try mom.family.setConsent("kid", withdrawn: false)
            mom.crashPoints = { point throws(StoreError) in
                if point == .familyChanged { throw StoreError.stopped(at: point) }
            }
            #expect(error { try mom.family.setConsent("kid", withdrawn: true) } == .stopped(at: .familyChanged))
            #expect(try kid.server.notifications(account: "kid").count == 1, "not yet told")
            // A stranger asking for it is not told it (nor does the asking tell it).
            let eve = try setup.device(port: port)
            try eve.accounts.signUp("eve", password: "secret")
            let untold = try #require(try kid.family.family()?.consentWithdrawn.first).notification
            #expect(try eve.server.enqueue([untold]).isEmpty && kid.server.notifications(account: "kid").count == 1)
            try setup.served.reconcileFamilies()
            try setup.served.reconcileFamilies()
            let told = try kid.server.notifications(account: "kid").map(\.type)
            #expect(told == ["RESCIND_CONSENT", "RESCIND_CONSENT"])
        }
    }
}

// Runs a scenario against a real store in its own temporary state, with a manual clock, and
// reports each expectation with its line.
import Foundation
import StoreCore
import StoreModel

public struct ExpectationResult: Equatable, Sendable {
    public var line: Int
    public var text: String
    public var passed: Bool
    /// What was seen instead, when it failed.
    public var detail: String?
}

public struct ScenarioResult: Equatable, Sendable {
    public var file: String
    public var expectations: [ExpectationResult]
    /// A step that could not run at all (an unknown product, a bad file): the scenario stops there.
    public var error: ScenarioError?
    public var passed: Bool { error == nil && expectations.allSatisfy(\.passed) }

    public init(file: String, expectations: [ExpectationResult], error: ScenarioError?) {
        self.file = file
        self.expectations = expectations
        self.error = error
    }
}

public final class ScenarioRunner {
    public let catalog: Catalog
    let directory: StateDirectory
    private let clock: ManualClock
    let calendar: Calendar
    private var deviceName = "phone"
    /// The device the story is on now.
    public var device: String { deviceName }
    /// The store the scenario acts on now (a `device` or `restart` step opens another).
    public private(set) var store: Store
    /// The transaction the last purchase step made (the player shows a deferred one waiting).
    public internal(set) var lastTransaction: StoreTransaction?
    private var lastError: String?
    /// M2: what the last cancel or accept showed, and the scenario's own realtime endpoint.
    public internal(set) var lastRetention: RetentionOffer?
    /// What SelfieService answered the last `upload receipt`, in words.
    public internal(set) var lastUpload: String?
    var endpoint = ScenarioEndpoint()
    /// The last promotional offer signature and offer code used, for `reused` and `redeem last`.
    private var lastOfferSignature: OfferSignature?
    private var lastCode: String?
    /// The purchase the last refund request was about.
    private var lastRefunded: String?
    /// How many notifications earlier `expect notification` steps have passed over.
    private var notificationsSeen = 0
    private var crashesNext = false
    /// F3: the app's answer if the storefront changes under a waiting payment, kept across the
    /// devices and restarts the scenario opens.
    private var onStorefrontChange = StorefrontChangeChoice.continue
    /// The comic the last `random` step drew, for the screen to show.
    public private(set) var lastRandom: RandomComicResult?
    /// After a simulated crash nothing runs, recovery included, until `restart` (the screen that
    /// plays the scenario stops its own ticks too).
    public private(set) var isDown = false

    /// Every scenario starts on 15 January 2026 at noon UTC, on device "phone", as a guest.
    public static let start = Date(timeIntervalSince1970: 1_768_478_400)

    public init(catalog: Catalog, stateDirectory: URL) throws {
        self.catalog = catalog
        directory = StateDirectory(stateDirectory)
        clock = ManualClock(Self.start)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        calendar = utc
        store = try Self.open(directory, "phone", catalog, clock, utc)
    }

    static func open(
        _ directory: StateDirectory, _ device: String, _ catalog: Catalog, _ clock: ManualClock, _ calendar: Calendar
    ) throws -> Store {
        // Scenario accounts are throwaway: a cheap hash keeps a long scenario quick.
        let factory = try StoreFactory(
            stateDirectory: directory, catalog: catalog, calendar: calendar, time: .manual(clock))
        factory.passwordHasher = PasswordHasher(cost: 1 << 10)
        factory.randomIndex = { _ in 0 }
        let store = try factory.open(device: device)
        try store.queue.recover()
        return store
    }

    public func run(_ steps: [ScenarioStep], file: String) -> ScenarioResult {
        var result = ScenarioResult(file: file, expectations: [], error: nil)
        for step in steps {
            do {
                if let expectation = try self.step(step) { result.expectations.append(expectation) }
            } catch let error as ScenarioError {
                result.error = ScenarioError(file: file, line: error.line, message: error.message)
                return result
            } catch {
                result.error = ScenarioError(file: file, line: step.line, message: "\(error)")
                return result
            }
        }
        return result
    }

    /// Runs one step; an expectation comes back with its result (`scenario play` goes step by step).
    public func step(_ step: ScenarioStep) throws -> ExpectationResult? {
        if !isDown {
            try store.queue.recover()
            // N3: what the clock or the last step caused goes to the webhook, as after a command.
            _ = try? store.notifications.deliverDue()
        }
        if step.isExpectation { return try check(step) }
        store.queue.onStorefrontChange = onStorefrontChange
        try perform(step)
        _ = try? store.notifications.deliverDue()
        return nil
    }

    public func product(named name: String) -> Product? { catalog.product(named: name) }

    func product(_ name: String, line: Int) throws -> Product {
        if let product = catalog.product(named: name) { return product }
        throw ScenarioError(
            file: "", line: line, message: "no product \"\(name)\" in the catalog (use its id or its title)")
    }

    /// Runs a store call; a refusal is remembered for `expect error`, not a scenario failure.
    func attempt(_ body: () throws -> Void) throws {
        lastError = nil
        do {
            try body()
        } catch let error as StoreError {
            lastError = error.description
        }
    }

    private func pendingID(_ given: String?) throws -> String {
        if let given { return given }
        if let waiting = try store.queue.pending().last ?? store.queue.delayed().last { return waiting.id }
        return lastTransaction?.id ?? ""
    }

    private func perform(_ step: ScenarioStep) throws {
        switch step.kind {
        case .device(let name):
            deviceName = name
            store = try Self.open(directory, name, catalog, clock, calendar)
        case .signUp(let name, let password): try attempt { try store.accounts.signUp(name, password: password) }
        case .signIn(let name, let password): try attempt { try store.accounts.signIn(name, password: password) }
        case .signOut: try store.accounts.signOut()
        case .policy(let outcome): try store.queue.setPolicy(outcome)
        case .buy(let name, let outcome):
            let product = try product(name, line: step.line)
            if crashesNext {
                crashesNext = false
                store.crashPoints = { point throws(StoreError) in
                    if point == .purchaseMarked { throw StoreError.stopped(at: point) }
                }
            }
            defer { store.crashPoints = { _ in } }
            try attempt { lastTransaction = try store.queue.buy(product.id, outcome: outcome) }
            if lastError != nil, let last = try store.queue.history().last {
                lastTransaction = last
                isDown = lastError == StoreError.stopped(at: .purchaseMarked).description
            }
            if let failed = lastTransaction, failed.state == .failed, let reason = failed.reason {
                lastError = Wording.purchaseFailed(product.id, reason: reason)
            }
        case .buyOffer(let name, let offer, let style):
            let product = try product(name, line: step.line)
            try attempt {
                let signature: OfferSignature? =
                    switch style {
                    case .signed: try store.offers.signWithOwnKey(productID: product.id, offerID: offer)
                    case .expired:
                        try store.offers.signWithOwnKey(
                            productID: product.id, offerID: offer, timestamp: store.now().addingTimeInterval(-25 * 3600)
                        )
                    // Signed for another offer: what a server that signs the wrong fields sends.
                    case .forged: try store.offers.signWithOwnKey(productID: product.id, offerID: offer + ".forged")
                    case .reused: lastOfferSignature
                    case .unsigned: nil
                    }
                if style != .reused, style != .unsigned { lastOfferSignature = signature }
                lastTransaction = try store.queue.buy(
                    product.id, offer: PromotionalOfferRequest(offerID: offer, signature: signature))
            }
        case .setPrice(let name, let price, let billingPlan, let consentRequired):
            let product = try product(name, line: step.line)
            try attempt {
                _ = try store.plans.setPrice(
                    price, of: product.id, billingPlan: billingPlan, consentRequired: consentRequired)
            }
        case .refundRequest(let name, let reason):
            let product = try product(name, line: step.line)
            try attempt {
                let user = try store.accounts.currentUser() ?? ""
                let latest = try store.server.receipt(account: user).last {
                    $0.productID == product.id && $0.isTransaction && $0.event != .change
                }
                guard let latest else {
                    throw StoreError.refundRefused(.nothingToRefund(account: user, product: product.title))
                }
                lastRefunded = latest.transactionID
                _ = try store.refunds.request(latest.transactionID, reason: reason)
            }
        case .refundAnswer(let answer):
            guard let lastRefunded else {
                throw ScenarioError(file: "", line: step.line, message: "no refund request was made before this step")
            }
            try attempt {
                switch answer {
                case .approve: _ = try store.refunds.decide(lastRefunded, approve: true)
                case .decline: _ = try store.refunds.decide(lastRefunded, approve: false)
                case .reverse: _ = try store.refunds.reverse(lastRefunded)
                }
            }
        case .refundPolicy(let policy): try store.refunds.setPolicy(policy)
        case .family(let familyStep):
            switch familyStep {
            case .create: try attempt { _ = try store.family.create() }
            case .add(let name): try attempt { _ = try store.family.add(name) }
            case .accept: try attempt { _ = try store.family.accept() }
            case .leave(let name): try attempt { _ = try store.family.leave(name) }
            case .share(let name, let on):
                let product = try product(name, line: step.line)
                try attempt { _ = try store.family.share(product.id, on: on) }
            case .consent(let member, let withdrawn):
                try attempt { _ = try store.family.setConsent(member, withdrawn: withdrawn) }
            }
        case .buyWinBack(let name, let offer):
            let product = try product(name, line: step.line)
            try attempt { lastTransaction = try store.queue.buy(product.id, winBackOffer: offer) }
        case .buyBilled(let name, let plan):
            let product = try product(name, line: step.line)
            try attempt { lastTransaction = try store.queue.buy(product.id, billingPlan: plan) }
        case .buyIntro(let name, let allow):
            let product = try product(name, line: step.line)
            try attempt {
                let jws = try store.offers.demoIntroductoryOfferEligibility(productID: product.id, allow: allow)
                lastTransaction = try store.queue.buy(product.id, introductoryOfferEligibility: jws)
            }
        case .makeCustomCode(let offer, let code, let limit):
            try attempt {
                lastCode = try store.offers.createCodes(offer: offer, count: 1, custom: code, limit: limit).first?.code
            }
        case .redeem(let text):
            try attempt {
                let code: String
                if text.lowercased() == "last", let lastCode {
                    code = lastCode
                } else if catalog.products.contains(where: { $0.autoRenew?.offer(text, type: .code) != nil }) {
                    code = try store.offers.createCodes(offer: text, count: 1, custom: nil, limit: 1)[0].code
                } else {
                    code = text
                }
                lastCode = code
                lastTransaction = try store.queue.redeem(code: code)
            }
        case .approve(let id): try attempt { lastTransaction = try store.queue.approve(try pendingID(id)) }
        case .decline(let id): try attempt { lastTransaction = try store.queue.decline(try pendingID(id)) }
        case .resolve(let id): try attempt { lastTransaction = try store.queue.resolve(try pendingID(id)) }
        case .restore: try attempt { _ = try store.queue.restore() }
        case .resetDevice:
            try directory.removeDevice(deviceName)
            store = try Self.open(directory, deviceName, catalog, clock, calendar)
        case .advance(let duration): clock.advance(duration, calendar: calendar)
        case .setClock(let date): clock.set(date)
        case .random: try attempt { lastRandom = try store.randomComics.show() }
        case .crashAfterPayment: crashesNext = true
        case .restart:
            isDown = false
            store = try Self.open(directory, deviceName, catalog, clock, calendar)
        case .plan(.cancel, let name):
            try cancelWithRetention(try product(name, line: step.line))
        case .retention(let retention):
            try performRetention(retention, line: step.line)
        case .plan(let command, let name):
            let product = try product(name, line: step.line)
            try attempt {
                _ = try command.perform(in: store, on: product.id)
            }
        case .billing(let failing):
            var billing = try store.settings.billing()
            billing.failing = failing
            try store.settings.setBilling(billing)
        case .grace(let days):
            var billing = try store.settings.billing()
            billing.graceDays = days
            try store.settings.setBilling(billing)
        case .webhook(let url): try store.notifications.setWebhook(url.map { Webhook(url: $0) })
        case .simulatedError(let api, let error): try store.settings.setSimulatedError(error, for: api)
        case .clearSimulatedErrors: try store.settings.setSimulatedErrors(SimulatedErrors())
        case .storefront(let code): try attempt { try store.accounts.setStorefront(code) }
        case .onStorefrontChange(let choice): onStorefrontChange = choice
        case .uploadReceipt: lastUpload = try uploadReceipt()
        case .open(let screen):
            // A screen, or a product whose detail view opens where the scenario is played.
            if !["list", "products", "detail", "random", "transactions"].contains(screen.lowercased()) {
                _ = try product(screen, line: step.line)
            }
        case .caption, .pause, .catalog: break
        default: break
        }
        if let id = lastTransaction?.id { lastTransaction = try? store.queue.transaction(id) }
    }

    private func check(_ step: ScenarioStep) throws -> ExpectationResult {
        var result = ExpectationResult(line: step.line, text: step.text, passed: false, detail: nil)
        if let id = lastTransaction?.id { lastTransaction = try? store.queue.transaction(id) }
        // What the clock has passed renews first, as the screen's next tick would.
        if try store.accounts.currentUser() != nil { _ = try store.plans.subscriptions() }
        let status = try store.entitlements.status()
        switch step.kind {
        case .expectHeader(let header):
            result.passed = status.header == header
            result.detail = "the header says \"\(status.header)\""
        case .expectRow(let title, let shows):
            let product = try product(title, line: step.line)
            let snapshot = try LiveStore.snapshot(of: store)
            guard let row = snapshot.rows.first(where: { $0.product.id == product.id }) else { break }
            let text = actionText(row, snapshot)
            result.passed = text.contains(shows)
            result.detail = "the row shows \"\(text)\""
        case .expectState(let state):
            result.passed = lastTransaction?.state == state
            result.detail = "the last transaction is \(lastTransaction?.state.rawValue ?? "none")"
        case .expectReason(let reason):
            result.passed = lastTransaction?.reason == reason
            result.detail = "its reason is \(lastTransaction?.reason?.rawValue ?? "none")"
        case .expectViews(let count):
            result.passed = status.randomViewsRemaining == count
            result.detail = "\(status.randomViewsRemaining) views left"
        case .expectOwned(let title, let owned):
            let product = try product(title, line: step.line)
            result.passed = status.owned.contains(product.id) == owned
            result.detail = "owned: \(status.owned.isEmpty ? "nothing" : status.owned.joined(separator: ", "))"
        case .expectUser(let user):
            result.passed = status.user == user
            result.detail = "signed in: \(status.user ?? "guest")"
        case .expectPlan(let text):
            let summaries = status.plans.map { $0.summary(calendar: calendar, catalog: catalog) }
            result.passed = summaries.contains { $0.contains(text) }
            result.detail =
                summaries.isEmpty ? "there is no plan" : "the plan says \"\(summaries.joined(separator: "; "))\""
        case .expectError(let text):
            result.passed = lastError?.contains(text) == true
            result.detail = "the last step said \(lastError.map { "\"\($0)\"" } ?? "nothing wrong")"
        case .expectRetention(let header):
            checkRetention(header, &result)
        case .expectStorefront(let code):
            let account = try store.accounts.storefront()
            // The last transaction that delivered something, as its signed form says.
            let signed =
                try lastTransaction.flatMap { try store.signed.transaction($0) }?.payload["storefront"] as? String
            result.passed = account == code && (signed == nil || signed == code)
            result.detail =
                "the account buys in \(account)" + (signed.map { ", the last purchase is signed \($0)" } ?? "")
        case .expectUpload(let text):
            result.passed = lastUpload?.contains(text) == true
            result.detail = "SelfieService said \(lastUpload.map { "\"\($0)\"" } ?? "nothing: no upload yet")"
        case .expectNotification(let type, let subtype):
            let all = try store.notifications.all()
            let fresh = all.dropFirst(notificationsSeen)
            if let index = fresh.firstIndex(where: { $0.type == type && (subtype == nil || $0.subtype == subtype) }) {
                result.passed = true
                notificationsSeen = index + 1
            } else {
                result.detail =
                    "written since: " + (fresh.isEmpty ? "none" : fresh.map(\.title).joined(separator: ", "))
            }
        default: break
        }
        if result.passed { result.detail = nil }
        return result
    }
}

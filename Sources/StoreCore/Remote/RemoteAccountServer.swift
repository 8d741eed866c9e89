// The account server as a device on another machine reaches it (W1): `storefront serve` at a URL,
// each AccountServer method one call over HTTP with a deadline, so that a server that is down or
// slow is one clear error and never a hang (W4). The sessions it was given stand for their
// accounts (W2); the device keeps them.
import Foundation
import StoreModel

public final class RemoteAccountServer: AccountServer, TeamConnection {
    public var keeper: RecordKeeper { .team(self) }
    public let url: URL
    /// Where the calls go: the server's `AccountWire.path`.
    let callURL: URL
    let timeout: TimeInterval
    /// The developer's token, when this device acts as the developer (W9).
    let developerToken: String?
    /// Whether this device acts as the developer; without the token, only as its own accounts.
    public var isDeveloper: Bool { developerToken != nil }
    private let sessions = Locked<[String: String]>([:])
    private let clock = Locked<(read: Date, setting: ClockSetting)?>(nil)
    /// After a call that timed out, further calls fail at once for a second with the same words, so
    /// that a screen asking several things each tick waits once, not each time. (A refused
    /// connection costs nothing to try again, so it is tried again.)
    private let down = Locked<(until: Date, problem: HTTPProblem)?>(nil)
    static let downFor: TimeInterval = 1
    /// Answers to reads while `sharingReads` runs, by method, sessions and request; nil outside it.
    private let shared = Locked<[Data: Data]?>(nil)
    /// How many calls went to the server, by method (for the tests: what a screen tick asks).
    private let sent = Locked<[String: Int]>([:])
    public var callsSent: [String: Int] { sent.withLock { $0 } }
    public var location: String { url.absoluteString }

    /// `url` is `http://HOST:PORT` or `https://HOST:PORT` of `storefront serve`.
    public init(url: URL, timeout: TimeInterval = 10, developerToken: String? = nil) throws(StoreError) {
        guard HTTPCall.supports(url) else {
            throw StoreError.serverUnreachable(
                server: url.absoluteString,
                problem: .unsupported("only http://HOST:PORT or https://HOST:PORT is supported"))
        }
        self.url = url
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.path = AccountWire.path
        components?.query = nil
        self.callURL = components?.url ?? url
        self.timeout = timeout
        self.developerToken = developerToken
    }

    struct Failure: Decodable {
        var error: AccountCallError
    }

    /// The wire's methods, each a field of one value (AccountWire.Methods).
    let wire = AccountWire.methods
    typealias R = AccountRequests

    /// One call and its answer; it carries every session this device holds, or `only`.
    func call<Request, Response>(_ method: AccountMethod<Request, Response>, _ request: Request, only: String? = nil)
        throws(StoreError) -> Response
    {
        let body: Data
        do { body = try AccountWire.body(method, request) } catch {
            throw StoreError.storage(path: location, reason: "cannot encode the call (\(error))")
        }
        var headers: [String: String] = [:]
        let tokens = only.map { [$0] } ?? sessions.withLock { Array($0.values).sorted() }
        if !tokens.isEmpty { headers["Authorization"] = "Session " + tokens.joined(separator: " ") }
        if let developerToken { headers[AccountWire.developerHeader] = developerToken }
        if let (until, problem) = down.withLock({ $0 }), Date() < until {
            throw StoreError.serverUnreachable(server: location, problem: problem)
        }
        // A read's key: the sessions it carries and its body (the method and the request).
        let key = method.reads ? Data(((headers["Authorization"] ?? "") + "\n").utf8) + body : nil
        if let key, let kept = shared.withLock({ $0?[key] }),
            let reply = try? JSONDecoder().decode(AccountWire.Reply<Response>.self, from: kept)
        {
            return reply.value
        }
        // Anything but a read may change what the reads said: they are asked again.
        if !method.reads { shared.withLock { if $0 != nil { $0 = [:] } } }
        let answer: (status: Int, body: Data)
        sent.withLock { $0[method.name, default: 0] += 1 }
        switch HTTPCall.post(callURL, headers: headers, body: body, timeout: timeout) {
        case .success(let value):
            answer = value
            down.withLock { $0 = nil }
        case .failure(let problem):
            if problem.timedOut { down.withLock { $0 = (Date().addingTimeInterval(Self.downFor), problem) } }
            throw StoreError.serverUnreachable(server: location, problem: problem)
        }
        if answer.status == 200,
            let reply = try? JSONDecoder().decode(AccountWire.Reply<Response>.self, from: answer.body)
        {
            if let key { shared.withLock { $0?[key] = answer.body } }
            return reply.value
        }
        if let failure = try? JSONDecoder().decode(Failure.self, from: answer.body) {
            throw failure.error.storeError(server: location)
        }
        throw StoreError.serverUnreachable(
            server: location, problem: .answered("an answer that is not the account server's (HTTP \(answer.status))"))
    }

    /// One screen tick (recovery, then the snapshot) asks the same things more than once: the
    /// plans, the families, the settings. While `body` runs, a read asked again with the same
    /// sessions and request is answered from its first answer, unless a call that is not a read
    /// came between; after it, every read goes to the server again. A change made on another
    /// device during the tick is seen at the next one, as a change made just after it would be.
    public func sharingReads<T>(_ body: () throws -> T) rethrows -> T {
        shared.withLock { $0 = [:] }
        defer { shared.withLock { $0 = nil } }
        return try body()
    }

    public func resume(_ session: AccountSession) {
        guard let token = session.token else { return }
        sessions.withLock { $0[session.account.lowercased()] = token }
    }

    /// Every store time reads the clock setting: it is asked again a second after it was read,
    /// so another device's change is seen within a second (W7).
    public func clockSetting() throws(StoreError) -> ClockSetting {
        if let (read, setting) = clock.withLock({ $0 }), Date().timeIntervalSince(read) < 1 { return setting }
        let setting = try call(wire.clockSetting, R.None())
        clock.withLock { $0 = (Date(), setting) }
        return setting
    }

    public func setClockSetting(_ setting: ClockSetting) throws(StoreError) {
        _ = try call(wire.setClockSetting, setting)
        clock.withLock { $0 = nil }
    }
}

// Each role, one line a method: the method of the table (AccountWire) and its request.

extension RemoteAccountServer: AccountDirectory {
    public func signUp(name: String, password: String, hasher: PasswordHasher, device: String, at date: Date)
        throws(StoreError) -> AccountSession
    {
        let session = try call(wire.signUp, R.Credentials(name: name, password: password, device: device))
        resume(session)
        return session
    }
    public func signIn(
        name: String, password: String, hasher: PasswordHasher, device: String, deviceToken: String?
    ) throws(StoreError) -> AccountSession {
        let session = try call(
            wire.signIn, R.Credentials(name: name, password: password, device: device, deviceToken: deviceToken))
        resume(session)
        return session
    }
    public func signOut(_ session: AccountSession) throws(StoreError) {
        guard let token = session.token else { return }
        _ = try call(wire.signOut, R.None(), only: token)
        sessions.withLock { $0[session.account.lowercased()] = nil }
    }
    public func grantOffer(_ ask: OfferAsk) throws(StoreError) -> OfferGrant { try call(wire.grantOffer, ask) }
    public func settlePurchase(_ ask: PurchaseAsk) throws(StoreError) { _ = try call(wire.settlePurchase, ask) }
    public func decidePayment(_ ask: PaymentAsk) throws(StoreError) -> PaymentDecision {
        try call(wire.decidePayment, ask)
    }
    public func answerPayment(_ answer: PaymentAnswer) throws(StoreError) { _ = try call(wire.answerPayment, answer) }
    public func settlePlans(account: String) throws(StoreError) -> [ReceiptEntry] {
        try call(wire.settlePlans, account)
    }
    public func actOnPlan(_ ask: PlanAsk) throws(StoreError) -> PlanState { try call(wire.actOnPlan, ask) }
    public func fileRefundRequest(_ ask: RefundAsk) throws(StoreError) -> String {
        try call(wire.fileRefundRequest, ask)
    }
    public func settleFamily(of account: String) throws(StoreError) { _ = try call(wire.settleFamily, account) }
    public func deviceSessions(account: String) throws(StoreError) -> [DeviceSessionInfo] {
        try call(wire.deviceSessions, account)
    }
    public func storefront(account: String) throws(StoreError) -> String? { try call(wire.storefront, account) }
    public func setStorefront(_ code: String, account: String) throws(StoreError) {
        _ = try call(wire.setStorefront, R.AccountStorefront(account: account, storefront: code))
    }
    /// W17: the account's failed sign-ins since its last successful one.
    public func failedSignIns(account: String) throws(StoreError) -> FailedSignIns {
        try call(wire.failedSignIns, account)
    }
    /// W17: the developer lifts an account's lock on new devices; whether it was locked.
    public func unlockAccount(_ name: String) throws(StoreError) -> Bool { try call(wire.unlockAccount, name) }
    public func account(appTransactionID: String) throws(StoreError) -> String? {
        try call(wire.accountOfAppTransaction, appTransactionID)
    }
    public func appTransactionID(account: String) throws(StoreError) -> String? {
        try call(wire.appTransactionID, account)
    }
    public func revokeDeviceSession(account: String, id: String, at date: Date) throws(StoreError) -> Bool {
        try call(wire.revokeDeviceSession, R.SessionID(account: account, id: id))
    }
}

extension RemoteAccountServer: Ledger {
    public func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date? {
        try call(wire.record, R.Record(entry: entry, timeZone: calendar.timeZone.identifier))
    }
    public func hasReceiptEntry(transactionID: String) throws(StoreError) -> Bool {
        try receiptEntry(transactionID: transactionID) != nil
    }
    public func receiptEntry(transactionID: String) throws(StoreError) -> ReceiptEntry? {
        try call(wire.receiptEntry, transactionID)
    }
    public func receipt(account: String) throws(StoreError) -> [ReceiptEntry] { try call(wire.receipt, account) }
    public func receiptState(account: String) throws(StoreError) -> ReceiptState {
        try call(wire.receiptState, account)
    }
    public func storedExpiry(account: String) throws(StoreError) -> Date? { try call(wire.storedExpiry, account) }
    public func ownedProducts(account: String) throws(StoreError) -> [(productID: String, transactionID: String)] {
        try call(wire.ownedProducts, account).compactMap { pair in pair.count == 2 ? (pair[0], pair[1]) : nil }
    }
}

extension RemoteAccountServer: PlanBook {
    public func plans(account: String) throws(StoreError) -> [String: PlanState] { try call(wire.plans, account) }
    public func planLines(account: String, from offset: Int) throws(StoreError) -> [ReceiptEntry] {
        try call(wire.planLines, R.Lines(account: account, from: offset))
    }
    /// The device computes the lines from the plans as the server has them, and the server adds
    /// them only if the plans are still those; otherwise the device computes again (W3).
    public func updatePlans(
        account: String,
        _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
    ) throws -> [ReceiptEntry] {
        for _ in 0..<20 {
            let plans = try self.plans(account: account)
            let lines = try body(plans) { try self.planLines(account: account) }
            if lines.isEmpty { return [] }
            if try call(wire.addPlanLines, R.AddLines(account: account, expected: plans, lines: lines)) { return lines }
        }
        throw StoreError.storage(
            path: location, reason: "the account's plans kept changing while this device changed them; try again")
    }
    public func accountsWithPlans() throws(StoreError) -> [String] { try call(wire.accountsWithPlans, R.None()) }
}

extension RemoteAccountServer: ChangeTracking, SharedSettings {
    public func changeStamp() throws(StoreError) -> ChangeStamp { try call(wire.changeStamp, R.None()) }
    public func billingSetting() throws(StoreError) -> BillingSetting { try call(wire.billingSetting, R.None()) }
    public func setBillingSetting(_ setting: BillingSetting) throws(StoreError) {
        _ = try call(wire.setBillingSetting, setting)
    }
    public func appIdentity() throws(StoreError) -> AppIdentity? { try call(wire.appIdentity, R.None()) }
    public func setAppIdentity(_ identity: AppIdentity) throws(StoreError) {
        _ = try call(wire.setAppIdentity, identity)
    }
    public func simulatedErrors() throws(StoreError) -> SimulatedErrors? { try call(wire.simulatedErrors, R.None()) }
    public func paymentPolicy() throws(StoreError) -> PurchaseOutcome? { try call(wire.paymentPolicy, R.None()) }
    public func setPaymentPolicy(_ policy: PurchaseOutcome) throws(StoreError) {
        _ = try call(wire.setPaymentPolicy, policy)
    }
    public func offerPolicy() throws(StoreError) -> OfferSigningPolicy? { try call(wire.offerPolicy, R.None()) }
    public func setOfferPolicy(_ policy: OfferSigningPolicy) throws(StoreError) {
        _ = try call(wire.setOfferPolicy, policy)
    }
    public func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError) {
        _ = try call(wire.setSimulatedErrors, errors)
    }
    public func appAccountTokens() throws(StoreError) -> [String: String] { try call(wire.appAccountTokens, R.None()) }
    public func setAppAccountToken(_ token: String, original: String) throws(StoreError) {
        _ = try call(wire.setAppAccountToken, R.AppAccountToken(token: token, original: original))
    }
    public func retentionSetup() throws(StoreError) -> RetentionSetup { try call(wire.retentionSetup, R.None()) }
    public func replaceRetentionSetup(_ setup: RetentionSetup) throws(StoreError) -> Bool {
        try call(wire.replaceRetentionSetup, setup)
    }
    public func retentionImage(_ id: String) throws(StoreError) -> Data? { try call(wire.retentionImage, id) }
    public func setRetentionImage(_ id: String, png: Data?) throws(StoreError) {
        _ = try call(wire.setRetentionImage, R.RetentionImage(id: id, png: png))
    }
}

/// The developer makes and revokes keys (their public halves go to the server; the private half
/// stays where `storefront keys create` wrote it). A device reads the public halves, to check
/// promotional offer signatures (O2). Only the server's own program logs the requests it answered.
extension RemoteAccountServer: KeyStore, RequestLog {
    public func apiKeyring() throws(StoreError) -> APIKeyring? { try call(wire.apiKeyring, R.None()) }
    public func setAPIKeyring(_ keyring: APIKeyring) throws(StoreError) { _ = try call(wire.setAPIKeyring, keyring) }
    public func recentRequests(limit: Int) throws(StoreError) -> [ServedRequest] {
        try call(wire.recentRequests, limit)
    }
}

extension RemoteAccountServer: ClaimStore, PriceBook, FamilyStore {
    public func claims(_ key: String) throws(StoreError) -> Int { try call(wire.claims, key) }
    public func addOfferCodes(_ codes: [OfferCode]) throws(StoreError) { _ = try call(wire.addOfferCodes, codes) }
    public func offerCode(_ code: String) throws(StoreError) -> OfferCode? { try call(wire.offerCode, code) }
    public func offerCodes() throws(StoreError) -> [OfferCode] { try call(wire.offerCodes, R.None()) }
    public func priceChanges() throws(StoreError) -> [PriceChange] { try call(wire.priceChanges, R.None()) }
    public func setPriceChange(_ change: PriceChange) throws(StoreError) { _ = try call(wire.setPriceChange, change) }
    public func families() throws(StoreError) -> [Family] { try call(wire.families, R.None()) }
    public func hasFamilies() throws(StoreError) -> Bool { try call(wire.hasFamilies, R.None()) }
    public func changeFamily(_ change: FamilyChange) throws(StoreError) -> Bool { try call(wire.changeFamily, change) }
}

/// The server delivers notifications (it runs all the time); devices write theirs.
extension RemoteAccountServer: Outbox {
    public func enqueue(_ notifications: [ServerNotification]) throws(StoreError) -> [ServerNotification] {
        guard !notifications.isEmpty else { return [] }
        return try call(wire.enqueue, notifications)
    }
    public func hasNotification(key: String) throws(StoreError) -> Bool { try call(wire.hasNotification, key) }
    public func notifications(account: String?) throws(StoreError) -> [ServerNotification] {
        try call(wire.notifications, account)
    }
    public func webhook() throws(StoreError) -> Webhook? { try call(wire.webhook, R.None()) }
    public func setWebhook(_ webhook: Webhook?) throws(StoreError) { _ = try call(wire.setWebhook, webhook) }
}

/// S1 on a team: the server signs its devices' data, so that one root verifies it all.
extension RemoteAccountServer {
    public func signed(_ items: [SigningRequest], account: String) throws(StoreError) -> [String?] {
        guard !items.isEmpty else { return [] }
        return try call(wire.signed, R.Signing(account: account, items: items))
    }

    public func rootCertificate() throws(StoreError) -> Data { try call(wire.rootCertificate, R.None()) }
}

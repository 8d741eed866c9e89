// The account server as a device on another machine reaches it (W1): `storefront serve` at a URL,
// each AccountServer method one call over HTTP with a deadline, so that a server that is down or
// slow is one clear error and never a hang (W4). The sessions it was given stand for their
// accounts (W2); the device keeps them.
import Foundation

public final class RemoteAccountServer: AccountServer {
    public let url: URL
    let timeout: TimeInterval
    private let sessions = Locked<[String: String]>([:])
    private let clock = Locked<(read: Date, setting: ClockSetting)?>(nil)
    /// After a call that timed out, further calls fail at once for a second with the same words, so
    /// that a screen asking several things each tick waits once, not each time. (A refused
    /// connection costs nothing to try again, so it is tried again.)
    private let down = Locked<(until: Date, reason: String)?>(nil)
    static let downFor: TimeInterval = 1
    public var location: String { url.absoluteString }

    /// `url` is `http://HOST:PORT` of `storefront serve`.
    public init(url: URL, timeout: TimeInterval = 10) throws(StoreError) {
        guard url.scheme?.lowercased() == "http", url.host != nil else {
            throw StoreError.serverUnreachable(server: url.absoluteString, reason: "only http://HOST:PORT is supported")
        }
        self.url = url
        self.timeout = timeout
    }

    struct Reply<Value: Decodable>: Decodable {
        var value: Value
    }

    struct Failure: Decodable {
        var error: AccountCallError
    }

    /// One call and its answer's value; it carries every session this device holds, or `only`.
    func call<Value: Decodable>(_ call: AccountCall, as type: Value.Type = Value.self, only: String? = nil) throws(StoreError) -> Value {
        let body: Data
        do { body = try JSONEncoder().encode(call) } catch { throw StoreError.storage(path: location, reason: "cannot encode the call (\(error))") }
        var headers: [String: String] = [:]
        let tokens = only.map { [$0] } ?? sessions.withLock { Array($0.values).sorted() }
        if !tokens.isEmpty { headers["Authorization"] = "Session " + tokens.joined(separator: " ") }
        if let (until, reason) = down.withLock({ $0 }), Date() < until { throw StoreError.serverUnreachable(server: location, reason: reason) }
        let http = SocketHTTP(host: url.host ?? "127.0.0.1", port: url.port ?? 80)
        let answer: (status: Int, body: Data)
        switch http.send(path: AccountCall.path, headers: headers, body: body, timeout: timeout, whole: true) {
        case .success(let value):
            answer = value
            down.withLock { $0 = nil }
        case .failure(let problem):
            if problem.timedOut { down.withLock { $0 = (Date().addingTimeInterval(Self.downFor), problem.reason) } }
            throw StoreError.serverUnreachable(server: location, reason: problem.reason)
        }
        if answer.status == 200, let reply = try? JSONDecoder().decode(Reply<Value>.self, from: answer.body) { return reply.value }
        if let failure = try? JSONDecoder().decode(Failure.self, from: answer.body) { throw failure.error.storeError(server: location) }
        throw StoreError.serverUnreachable(server: location, reason: "an answer that is not the account server's (HTTP \(answer.status))")
    }

    // MARK: Accounts

    public func signUp(name: String, password: String, hasher: PasswordHasher, device: String, at date: Date) throws(StoreError) -> AccountSession {
        let session = try call(.signUp(name: name, password: password, device: device), as: AccountSession.self)
        resume(session)
        return session
    }

    public func signIn(name: String, password: String, hasher: PasswordHasher, device: String) throws(StoreError) -> AccountSession {
        let session = try call(.signIn(name: name, password: password, device: device), as: AccountSession.self)
        resume(session)
        return session
    }

    public func signOut(_ session: AccountSession) throws(StoreError) {
        guard let token = session.token else { return }
        _ = try call(.signOut, as: Bool.self, only: token)
        sessions.withLock { $0[session.account.lowercased()] = nil }
    }

    public func deviceSessions(account: String) throws(StoreError) -> [DeviceSessionInfo] { try call(.deviceSessions(account: account)) }
    public func revokeDeviceSession(account: String, id: String, at date: Date) throws(StoreError) -> Bool {
        try call(.revokeDeviceSession(account: account, id: id))
    }

    public func resume(_ session: AccountSession) {
        guard let token = session.token else { return }
        sessions.withLock { $0[session.account.lowercased()] = token }
    }

    // MARK: The receipt and plans

    public func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date? {
        try call(.record(entry, timeZone: calendar.timeZone.identifier))
    }
    public func hasReceiptEntry(transactionID: String) throws(StoreError) -> Bool { try receiptEntry(transactionID: transactionID) != nil }
    public func receiptEntry(transactionID: String) throws(StoreError) -> ReceiptEntry? { try call(.receiptEntry(transactionID: transactionID)) }
    public func receipt(account: String) throws(StoreError) -> [ReceiptEntry] { try call(.receipt(account: account)) }
    public func receiptState(account: String) throws(StoreError) -> ReceiptState { try call(.receiptState(account: account)) }
    public func storedExpiry(account: String) throws(StoreError) -> Date? { try call(.storedExpiry(account: account)) }
    public func ownedProducts(account: String) throws(StoreError) -> [(productID: String, transactionID: String)] {
        try call(.ownedProducts(account: account), as: [[String]].self).compactMap { pair in pair.count == 2 ? (pair[0], pair[1]) : nil }
    }
    public func plans(account: String) throws(StoreError) -> [String: PlanState] { try call(.plans(account: account)) }
    public func planLines(account: String, from offset: Int) throws(StoreError) -> [ReceiptEntry] {
        try call(.planLines(account: account, from: offset))
    }

    /// The device computes the lines from the plans as the server has them, and the server adds
    /// them only if the plans are still those; otherwise the device computes again (W3).
    public func updatePlans(
        account: String, _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
    ) throws -> [ReceiptEntry] {
        for _ in 0..<20 {
            let plans = try self.plans(account: account)
            let lines = try body(plans) { try self.planLines(account: account) }
            if lines.isEmpty { return [] }
            if try call(.addPlanLines(account: account, expected: plans, lines: lines), as: Bool.self) { return lines }
        }
        throw StoreError.storage(path: location, reason: "the account's plans kept changing while this device changed them; try again")
    }

    public func accountsWithPlans() throws(StoreError) -> [String] { try call(.accountsWithPlans) }

    // MARK: Settings

    public func changeStamp() throws(StoreError) -> ChangeStamp { try call(.changeStamp) }
    /// Every store time reads the clock setting: it is asked again a second after it was read,
    /// so another device's change is seen within a second (W7).
    public func clockSetting() throws(StoreError) -> ClockSetting {
        if let (read, setting) = clock.withLock({ $0 }), Date().timeIntervalSince(read) < 1 { return setting }
        let setting: ClockSetting = try call(.clockSetting)
        clock.withLock { $0 = (Date(), setting) }
        return setting
    }
    public func setClockSetting(_ setting: ClockSetting) throws(StoreError) {
        _ = try call(.setClockSetting(setting), as: Bool.self)
        clock.withLock { $0 = nil }
    }
    public func billingSetting() throws(StoreError) -> BillingSetting { try call(.billingSetting) }
    public func setBillingSetting(_ setting: BillingSetting) throws(StoreError) { _ = try call(.setBillingSetting(setting), as: Bool.self) }
    public func appIdentity() throws(StoreError) -> AppIdentity? { try call(.appIdentity) }
    public func setAppIdentity(_ identity: AppIdentity) throws(StoreError) { _ = try call(.setAppIdentity(identity), as: Bool.self) }
    public func simulatedErrors() throws(StoreError) -> SimulatedErrors? { try call(.simulatedErrors) }
    public func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError) { _ = try call(.setSimulatedErrors(errors), as: Bool.self) }
    public func webhook() throws(StoreError) -> Webhook? { try call(.webhook) }
    public func setWebhook(_ webhook: Webhook?) throws(StoreError) { _ = try call(.setWebhook(webhook), as: Bool.self) }
    public func recentRequests(limit: Int) throws(StoreError) -> [ServedRequest] { try call(.recentRequests(limit: limit)) }
    public func adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date) throws(StoreError) {
        _ = try call(.adoptDefaults(clockRate: clockRate, billing: billing, real: real), as: Bool.self)
    }

    /// Only the server's own program lists the requests it answered, and makes keys. A device
    /// reads the public halves, to check promotional offer signatures (O2).
    public func recordRequests(_ requests: [ServedRequest]) throws(StoreError) {}
    public func apiKeyring() throws(StoreError) -> APIKeyring? { try call(.apiKeyring) }
    public func setAPIKeyring(_ keyring: APIKeyring) throws(StoreError) {
        throw StoreError.storage(path: location, reason: "keys are made where the server runs: `storefront keys create` in its state folder")
    }

    // MARK: Notifications: the server delivers them (it runs all the time); devices write theirs.

    public func enqueue(_ notifications: [ServerNotification]) throws(StoreError) -> [ServerNotification] {
        guard !notifications.isEmpty else { return [] }
        return try call(.enqueue(notifications))
    }
    public func hasNotification(key: String) throws(StoreError) -> Bool { try call(.hasNotification(key: key)) }
    public func claim(_ key: String, account: String, limit: Int, at date: Date) throws(StoreError) -> Bool {
        try call(.claim(key: key, account: account, limit: limit))
    }
    public func claims(_ key: String) throws(StoreError) -> Int { try call(.claims(key: key)) }
    public func addOfferCodes(_ codes: [OfferCode]) throws(StoreError) { let _: Bool = try call(.addOfferCodes(codes)) }
    public func offerCode(_ code: String) throws(StoreError) -> OfferCode? { try call(.offerCode(code)) }
    public func offerCodes() throws(StoreError) -> [OfferCode] { try call(.offerCodes) }
    public func priceChanges() throws(StoreError) -> [PriceChange] { try call(.priceChanges) }
    public func setPriceChange(_ change: PriceChange) throws(StoreError) { let _: Bool = try call(.setPriceChange(change)) }
    public func families() throws(StoreError) -> [Family] { try call(.families) }
    public func setFamilies(_ families: [Family]) throws(StoreError) { let _: Bool = try call(.setFamilies(families)) }
    public func notifications(account: String?) throws(StoreError) -> [ServerNotification] { try call(.notifications(account: account)) }
    public func dueNotifications(at now: Date) throws(StoreError) -> [ServerNotification] { [] }
    public func updateNotification(_ notification: ServerNotification) throws(StoreError) {}
}

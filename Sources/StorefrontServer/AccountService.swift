// The account server's side of `--server` (W1–W7): `storefront serve` answers a device's calls
// (AccountCall) from its own account server. Sign-up and sign-in check passwords here and hand out
// a session per device; every call about an account needs that account's session (A7, W6);
// failed sign-ins are slowed; settings are read by anyone and changed by a signed-in device.
import Foundation
import StoreCore

public final class AccountService: Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var body: Data
        /// How long to wait before answering (a failed sign-in, W6).
        public var delay: TimeInterval
    }

    let database: any AccountServer & SessionKeeping
    let hasher: PasswordHasher
    let clock: any StoreClock
    /// Failed sign-ins in a row, by account name (lowercased).
    private let failures = Locked<[String: Int]>([:])
    public static let path = AccountCall.path

    public init(database: any AccountServer & SessionKeeping, hasher: PasswordHasher = PasswordHasher(), clock: any StoreClock) {
        self.database = database
        self.hasher = hasher
        self.clock = clock
    }

    /// The tokens of an `Authorization: Session T1 T2 …` header.
    static func tokens(_ authorization: String?) -> [String] {
        guard let authorization, authorization.hasPrefix("Session ") else { return [] }
        return authorization.dropFirst("Session ".count).split(separator: " ").map(String.init)
    }

    public func handle(body: Data, authorization: String?) -> Answer {
        let call: AccountCall
        do {
            call = try JSONDecoder().decode(AccountCall.self, from: body)
        } catch {
            return refusal(400, AccountCallError(kind: "request", text: "not a call this server knows (\(error))"))
        }
        do {
            let tokens = Self.tokens(authorization)
            var accounts: Set<String> = []
            for token in tokens {
                if let account = try database.sessionAccount(token: token) { accounts.insert(account.lowercased()) }
            }
            if let account = call.account, !accounts.contains(account.lowercased()), !(try familyReads(call, of: account, by: accounts)) {
                return refusal(401, AccountCallError(kind: "session", text: "this device has no session for \"\(account)\" (revoked, or never signed in here)"))
            }
            if call.changesSettings, accounts.isEmpty {
                return refusal(401, AccountCallError(kind: "session", text: "changing the server's settings needs a signed-in device"))
            }
            return try answer(call, accounts: accounts, tokens: tokens)
        } catch {
            return refusal(error.kind == "storage" ? 500 : 400, error)
        }
    }

    /// O5: a family member's device may read the organizer's plans (a shared plan's access follows
    /// them), and nothing else of another account.
    private func familyReads(_ call: AccountCall, of account: String, by callers: Set<String>) throws(StoreError) -> Bool {
        guard case .plans = call, !callers.isEmpty else { return false }
        return try database.families().contains { family in
            family.organizer.lowercased() == account.lowercased() && family.members.contains { callers.contains($0.lowercased()) }
        }
    }

    private func refusal(_ status: Int, _ error: AccountCallError) -> Answer {
        Answer(status: status, body: (try? JSONEncoder().encode(["error": error])) ?? Data(), delay: 0)
    }

    private func refusal(_ status: Int, _ error: StoreError) -> Answer { refusal(status, AccountCallError(error)) }

    private func reply(_ value: some Codable) throws(StoreError) -> Answer {
        do {
            return Answer(status: 200, body: try JSONEncoder().encode(Reply(value: value)), delay: 0)
        } catch {
            throw StoreError.storage(path: database.location, reason: "cannot encode the answer (\(error))")
        }
    }

    struct Reply<Value: Codable>: Codable {
        var value: Value
    }

    private func answer(_ call: AccountCall, accounts: Set<String>, tokens: [String]) throws(StoreError) -> Answer {
        let database = database
        switch call {
        case .signUp(let name, let password, let device):
            try Accounts.validate(accountName: name)
            guard !password.isEmpty else { throw StoreError.emptyPassword }
            let made = try database.signUp(name: name, password: password, hasher: hasher, device: device, at: clock.now())
            return try reply(AccountSession(account: made.account, token: try database.createSession(account: made.account, device: device, at: clock.now())))
        case .signIn(let name, let password, let device):
            let key = name.lowercased()
            do {
                let found = try database.signIn(name: name, password: password, hasher: hasher, device: device)
                failures.withLock { $0[key] = nil }
                return try reply(AccountSession(account: found.account, token: try database.createSession(account: found.account, device: device, at: clock.now())))
            } catch let error where error == .wrongPassword(name) || error == .unknownAccount(name) {
                // W6: each failure in a row doubles the wait, up to five seconds.
                let count = failures.withLock { failures -> Int in
                    // Bounded: a flood of made-up names cannot grow it without end.
                    if failures.count >= 10_000, failures[key] == nil { failures.removeAll() }
                    failures[key, default: 0] += 1
                    return failures[key] ?? 1
                }
                var answer = refusal(401, error)
                answer.delay = min(5, 0.25 * pow(2, Double(min(count, 8) - 1)))
                return answer
            }
        case .signOut:
            for token in tokens { try database.revokeSession(token: token, at: clock.now()) }
            return try reply(true)
        case .deviceSessions(let account): return try reply(try database.deviceSessions(account: account))
        case .revokeDeviceSession(let account, let id): return try reply(try database.revokeDeviceSession(account: account, id: id, at: clock.now()))
        case .record(let entry, let timeZone):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
            return try reply(try database.record(entry, calendar: calendar))
        case .receiptEntry(let id):
            let entry = try database.receiptEntry(transactionID: id)
            return try reply(entry.flatMap { accounts.contains($0.account.lowercased()) ? $0 : nil })
        case .receipt(let account): return try reply(try database.receipt(account: account))
        case .receiptState(let account): return try reply(try database.receiptState(account: account))
        case .storedExpiry(let account): return try reply(try database.storedExpiry(account: account))
        case .ownedProducts(let account):
            return try reply(try database.ownedProducts(account: account).map { [$0.productID, $0.transactionID] })
        case .plans(let account): return try reply(try database.plans(account: account))
        case .planLines(let account, let offset): return try reply(try database.planLines(account: account, from: max(0, offset)))
        case .addPlanLines(let account, let expected, let lines):
            guard lines.allSatisfy({ $0.account.lowercased() == account.lowercased() }) else {
                throw StoreError.storage(path: database.location, reason: "plan lines for another account")
            }
            var added = false
            do {
                try database.updatePlans(account: account) { plans, _ in
                    guard plans == expected else { return [] }
                    added = true
                    return lines
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError.storage(path: database.location, reason: "\(error)")
            }
            return try reply(added)
        case .accountsWithPlans:
            return try reply(try database.accountsWithPlans().filter { accounts.contains($0.lowercased()) })
        case .enqueue(let notifications):
            guard notifications.allSatisfy({ accounts.contains($0.account.lowercased()) }) else {
                return refusal(401, AccountCallError(kind: "session", text: "notifications for an account this device has no session for"))
            }
            return try reply(try database.enqueue(notifications))
        case .hasNotification(let key): return try reply(try database.hasNotification(key: key))
        case .claim(let key, let account, let limit): return try reply(try database.claim(key, account: account, limit: limit, at: clock.now()))
        case .claims(let key): return try reply(try database.claims(key))
        case .addOfferCodes(let codes): try database.addOfferCodes(codes); return try reply(true)
        case .offerCode(let code): return try reply(try database.offerCode(code))
        case .offerCodes: return try reply(try database.offerCodes())
        case .apiKeyring: return try reply(try database.apiKeyring())
        case .priceChanges: return try reply(try database.priceChanges())
        case .setPriceChange(let change): try database.setPriceChange(change); return try reply(true)
        case .families: return try reply(try database.families())
        case .setFamilies(let families): try database.setFamilies(families); return try reply(true)
        case .notifications(let account):
            if let account { return try reply(try database.notifications(account: account)) }
            return try reply(try database.notifications(account: nil).filter { accounts.contains($0.account.lowercased()) })
        case .changeStamp: return try reply(try database.changeStamp())
        case .clockSetting: return try reply(try database.clockSetting())
        case .setClockSetting(let setting): try database.setClockSetting(setting); return try reply(true)
        case .billingSetting: return try reply(try database.billingSetting())
        case .setBillingSetting(let setting): try database.setBillingSetting(setting); return try reply(true)
        case .appIdentity: return try reply(try database.appIdentity())
        case .setAppIdentity(let identity): try database.setAppIdentity(identity); return try reply(true)
        case .simulatedErrors: return try reply(try database.simulatedErrors())
        case .setSimulatedErrors(let errors): try database.setSimulatedErrors(errors); return try reply(true)
        case .webhook: return try reply(try database.webhook())
        case .setWebhook(let webhook): try database.setWebhook(webhook); return try reply(true)
        case .recentRequests(let limit): return try reply(try database.recentRequests(limit: min(limit, 200)))
        case .adoptDefaults(let rate, let billing, let real):
            try database.adoptDefaults(clockRate: rate, billing: billing, real: real)
            return try reply(true)
        }
    }
}

private extension StoreError {
    /// How AccountCallError names it.
    var kind: String { AccountCallError(self).kind }
}

// The account server's side of `--server` (W1–W7): `storefront serve` answers a device's calls
// (the methods of AccountWire) from its own account server. Sign-up and sign-in check passwords here and hand out
// a session per device; every call about an account needs that account's session (A7, W6);
// failed sign-ins are slowed; settings are read by anyone and changed only with the developer's
// token (W9). Who may make each call is the table's (AccountWire), decided here.
import Foundation
import Logging
import StoreCore
import StoreModel

public final class AccountService: Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var body: Data
        /// How long to wait before answering (a failed sign-in, W6).
        public var delay: TimeInterval
    }

    let database: any RecordKeeping
    let hasher: PasswordHasher
    let clock: any StoreClock
    /// The developer's token, read again for each call that names one (`--rotate` takes effect at
    /// once); nil: no call acts as the developer.
    let developerToken: @Sendable () -> String?
    /// Sign-ins in flight and failed, by account name and by client (W11).
    let gate: SignInGate
    /// Signs a device's data with the server's root (S1).
    let signer: (any DeviceSigning)?
    /// Grants offers and settles purchases where the records are kept (W9).
    let desk: (any PurchaseDesk)?
    /// The products the server's catalog sells (nil: not checked).
    let sold: Set<String>?
    /// Where a failure inside the server is told whole: a customer's refusal does not say it.
    let logger: Logger
    /// The real time sessions expire by, and how long a new one lasts (the developer's setting).
    let realNow: @Sendable () -> Date
    let sessionLifetime: TimeInterval
    public static let path = AccountWire.path

    public init(
        database: any RecordKeeping, hasher: PasswordHasher = PasswordHasher(), clock: any StoreClock,
        developerToken: @escaping @Sendable () -> String? = { nil }, gate: SignInGate = SignInGate(),
        signer: (any DeviceSigning)? = nil, desk: (any PurchaseDesk)? = nil,
        sold: Set<String>? = nil, logger: Logger = Logger(label: "storefront-serve"),
        realNow: @escaping @Sendable () -> Date = Date.init,
        sessionLifetime: TimeInterval = DeviceSessionInfo.defaultLifetime
    ) {
        self.logger = logger
        self.realNow = realNow
        self.sessionLifetime = sessionLifetime
        self.sold = sold
        self.gate = gate
        self.signer = signer
        self.desk = desk
        self.database = database
        self.hasher = hasher
        self.clock = clock
        self.developerToken = developerToken
    }

    /// The header a device's developer token travels in.
    public static let developerHeader = AccountWire.developerHeader

    /// The tokens of an `Authorization: Session T1 T2 …` header.
    static func tokens(_ authorization: String?) -> [String] {
        guard let authorization, authorization.hasPrefix("Session ") else { return [] }
        return authorization.dropFirst("Session ".count).split(separator: " ").map(String.init)
    }

    struct Called: Decodable {
        var method: String
    }

    /// Looks the method up in the registry (AccountPerformers), decides whether the call's sessions may
    /// make it, and runs it.
    /// `client` is the caller's address, for the limits on sign-ins and sign-ups (W11).
    public func handle(body: Data, authorization: String?, developer: String? = nil, client: String = "") -> Answer {
        let decoder = JSONDecoder()
        let prepared: (AccountAccess, (any RecordKeeping, AccountCallContext) throws -> Data)
        let name: String
        do {
            name = try decoder.decode(Called.self, from: body).method
            guard let method = AccountPerformers.all.byName[name] else {
                return refusal(
                    400, AccountCallError(kind: .request, text: "not a call this server knows (no method \"\(name)\")")
                )
            }
            prepared = try method.prepare(body, decoder)
        } catch {
            return refusal(400, AccountCallError(kind: .request, text: "not a call this server knows (\(error))"))
        }
        let tokens = Self.tokens(authorization)
        do {
            var accounts: Set<String> = []
            let now = realNow()
            for token in tokens {
                if let account = try database.sessionAccount(token: token, at: now) {
                    accounts.insert(account.lowercased())
                }
            }
            let isDeveloper =
                developer.map { given in developerToken().map { DeveloperToken.matches(given, $0) } ?? false } ?? false
            if let refused = try refusal(of: prepared.0, method: name, accounts: accounts, isDeveloper: isDeveloper) {
                return refused
            }
            let context = AccountCallContext(
                accounts: accounts, tokens: tokens, isDeveloper: isDeveloper, clock: clock, hasher: hasher, gate: gate,
                client: client,
                signer: signer, desk: desk, sold: sold, sessionExpiry: now.addingTimeInterval(sessionLifetime),
                realNow: now, logger: logger
            )
            do {
                return Answer(status: 200, body: try prepared.1(database, context), delay: 0)
            } catch let error as StoreError {
                let refused = AccountCallError(error, internals: isDeveloper)
                if refused.kind == .storage { logger.error("account call \(name) failed: \(error)") }
                // A sign-in slowed by W11's delay answers 401 whatever it was refused for.
                var answer = refusal(context.delay > 0 && refused.kind != .storage ? 401 : refused.kind.status, refused)
                answer.delay = context.delay
                return answer
            } catch {
                logger.error("account call \(name) failed: \(error)")
                return refusal(
                    500,
                    AccountCallError(kind: .storage, text: isDeveloper ? "\(error)" : AccountCallError.storageFailure))
            }
        } catch {
            let refused = AccountCallError(error)
            if refused.kind == .storage { logger.error("account call \(name) failed: \(error)") }
            return refusal(refused.kind.status, refused)
        }
    }

    /// W6 and W9, decided here for every method: the refusal a call gets from whose call it is, or nil.
    private func refusal(of access: AccountAccess, method: String, accounts: Set<String>, isDeveloper: Bool)
        throws(StoreError) -> Answer?
    {
        switch access {
        case .anyone:
            return nil
        case .developer:
            guard !isDeveloper else { return nil }
            return refusal(
                403,
                StoreError.developerOnly(
                    server: database.location, action: AccountAccess.developerActions[method] ?? "call \(method)"))
        case .signedIn:
            guard accounts.isEmpty, !isDeveloper else { return nil }
            return refusal(
                401,
                AccountCallError(kind: .session, text: "\(method) needs a signed-in device (or the developer's token)")
            )
        case .accounts(let wanted, let familyReads):
            if isDeveloper { return nil }
            for account in wanted where !accounts.contains(account.lowercased()) {
                if familyReads, try isFamilyMember(of: account, accounts) { continue }
                return refusal(
                    401,
                    AccountCallError(
                        kind: .session,
                        text: "this device has no session for \"\(account)\" (revoked, or never signed in here)"))
            }
            return nil
        }
    }

    /// O5: a member of a family the account organizes.
    private func isFamilyMember(of account: String, _ callers: Set<String>) throws(StoreError) -> Bool {
        guard !callers.isEmpty else { return false }
        return try database.families().organized(by: account)?.members.contains { callers.contains($0.lowercased()) }
            ?? false
    }

    /// A refusal's body, its keys in order: the same refusal is the same bytes (W17: a stranger
    /// cannot tell one refused sign-in from another by how it was written).
    private func refusal(_ status: Int, _ error: AccountCallError) -> Answer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Answer(status: status, body: (try? encoder.encode(["error": error])) ?? Data(), delay: 0)
    }

    private func refusal(_ status: Int, _ error: StoreError) -> Answer { refusal(status, AccountCallError(error)) }
}

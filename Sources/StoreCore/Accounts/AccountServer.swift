// The account server (A2) as the store sees it, by role: accounts and sessions, the ledger
// (receipts and stored expiry), plans, shared settings, keys, claims and offer codes, families,
// prices, the notifications outbox, the request log. `ServerDatabase` is the embedded one, a
// SQLite file in the state folder; `PostgresAccountServer` serves a team; a client of `storefront
// serve` is a third. The payment queue, recovery, restore and plans do not know which they have.
import Foundation
import StoreModel

/// The account server as a device asks it: its roles, each a small protocol that each backend (the
/// embedded `ServerDatabase`, `PostgresAccountServer`, a device's `RemoteAccountServer`)
/// implements in a file of its own. What only the keeper of the records does (delivering,
/// logging requests, adopting a catalog's defaults, keeping sessions) is `RecordKeeping`, which a
/// device's client does not implement; `keeper` says which of the two a store has.
public protocol AccountServer: ChangeTracking, AccountDirectory, Ledger, PlanBook, SharedSettings, KeyStore, ClaimStore,
    FamilyStore, PriceBook, Outbox, RequestLog, RetentionStore
{
    /// Who keeps the records: this process, or a team server a device asks.
    var keeper: RecordKeeper { get }
}

/// Where the records are, which decides who delivers, signs and settles.
public enum RecordKeeper {
    /// In this process: the embedded state folder's database, or `storefront serve`'s own.
    case here(any RecordKeeping)
    /// On a team server (W1): it delivers and signs, and answers for the developer's rules.
    case team(any TeamConnection)

    /// The team server, nil when the records are here.
    public var team: (any TeamConnection)? {
        if case .team(let team) = self { team } else { nil }
    }

    /// The records' own keeper, nil on a team device.
    public var here: (any RecordKeeping)? {
        if case .here(let keeper) = self { keeper } else { nil }
    }
}

/// What the keeper of the records does that no device may ask of a team server.
public protocol RecordKeeping: AccountServer, DeliveryQueue, RequestRecording, DefaultsAdopting, SessionKeeping,
    ClaimTaking
{}

extension RecordKeeping {
    /// A family change makes members only of accounts that exist: Family Sharing adds people, not
    /// names. An invitation may name anyone, so that it tells no one which names exist (W19).
    package func checkAccounts(of change: FamilyChange) throws(StoreError) {
        for member in change.addedMembers where try !hasAccount(member) { throw StoreError.unknownAccount(member) }
    }
}

/// A team server as a device reaches it, beyond the roles: it signs the device's data with the
/// team's root (S1), tells whether this device acts as the developer (W9), and lets a screen tick
/// share its reads.
public protocol TeamConnection: TeamSessions {
    var location: String { get }
    var isDeveloper: Bool { get }
    /// Signs what a device of `account` asks for, from the server's records; nil for an item the
    /// account does not have.
    func signed(_ items: [SigningRequest], account: String) throws(StoreError) -> [String?]
    /// The root all of it verifies with, in DER.
    func rootCertificate() throws(StoreError) -> Data
    /// While `body` runs, a read asked again is answered from its first answer.
    func sharingReads<T>(_ body: () throws -> T) rethrows -> T
    /// The offer and introductory offer the server grants a purchase, its uses taken (W9).
    func grantOffer(_ ask: OfferAsk) throws(StoreError) -> OfferGrant
    /// The outcome the server gives a purchase's payment, kept against its transaction (W9, Q4).
    func decidePayment(_ ask: PaymentAsk) throws(StoreError) -> PaymentDecision
    /// An answer to a payment that waits, kept by the server: only then may it be settled.
    func answerPayment(_ answer: PaymentAnswer) throws(StoreError)
    /// A purchase whose payment was taken, settled by the server from its catalog and records:
    /// on the receipt, or the plan started (W9).
    func settlePurchase(_ ask: PurchaseAsk) throws(StoreError)
    /// The renewals, billing failures and expiries the server's clock has passed for `account`,
    /// written by the server from its own rules and prices (W9); the lines it wrote.
    func settlePlans(account: String) throws(StoreError) -> [ReceiptEntry]
    /// A customer's action on a plan (cancel, renewal back on, expire or renew now, a price
    /// increase answered), applied by the server with its own rules (W9); the plan after it.
    func actOnPlan(_ ask: PlanAsk) throws(StoreError) -> PlanState
    /// A customer's refund request, checked and filed by the server (W9); the request's id.
    func fileRefundRequest(_ ask: RefundAsk) throws(StoreError) -> String
    /// The shares and revocations `account`'s family calls for (or, out of a family, the account's
    /// own revocations), written by the server from its records (W9).
    func settleFamily(of account: String) throws(StoreError)
}

/// Where the server is, and whether anything in it changed.
public protocol ChangeTracking: AnyObject, Sendable {
    /// Where it is, for messages: a file's path or a server's address.
    var location: String { get }
    /// Changes whenever anything stored may have changed, whoever changed it: what a reader keeps
    /// (a cached answer, a setting) is good while the stamp is the same.
    func changeStamp() throws(StoreError) -> ChangeStamp
    /// The same stamp when it can be read on a Swift task's thread, without waiting on a lock or a
    /// network (the embedded server's: SQLite's `data_version`, see `StampReader.readQuickly`);
    /// nil when it cannot.
    func changeStampWithoutWaiting() -> ChangeStamp?
    /// Changes whenever what is stored about these accounts, or what every account shares
    /// (settings, the clock, offer codes), may have changed; another account's purchase leaves it
    /// alone. The shared part alone is `changeStamp(accounts: [])`.
    func changeStamp(accounts: [String]) throws(StoreError) -> ChangeStamp
    /// The same stamp when it can be read without waiting, as `changeStampWithoutWaiting()`.
    func changeStampWithoutWaiting(accounts: [String]) -> ChangeStamp?
}

extension ChangeTracking {
    public func changeStampWithoutWaiting() -> ChangeStamp? { nil }
    /// A server that counts no scopes answers with its whole stamp, which moves more often.
    public func changeStamp(accounts: [String]) throws(StoreError) -> ChangeStamp { try changeStamp() }
    public func changeStampWithoutWaiting(accounts: [String]) -> ChangeStamp? { nil }
}

/// Accounts and the sessions devices hold for them (A1, W2).
public protocol AccountDirectory: AnyObject, Sendable {
    /// Creates the account, its password kept only as a slow hash (made with `hasher` by the
    /// embedded server, by its own by a remote one); `accountExists` when the name is taken,
    /// whatever its case. The session stands for the account on this device from then on (W2).
    func signUp(name: String, password: String, hasher: PasswordHasher, device: String, at date: Date)
        throws(StoreError) -> AccountSession
    /// Checks the password: the account as it was created, and the device's session. A team
    /// server is shown the device token the device holds for the account (W17); the embedded one
    /// has no limits to lift.
    func signIn(name: String, password: String, hasher: PasswordHasher, device: String, deviceToken: String?)
        throws(StoreError) -> AccountSession
    /// The sessions devices hold for the account on a server that hands them out, newest last.
    func deviceSessions(account: String) throws(StoreError) -> [DeviceSessionInfo]
    /// Revokes the account's session with this id (a lost or stolen device); false when none.
    func revokeDeviceSession(account: String, id: String, at date: Date) throws(StoreError) -> Bool
    /// The account whose app transaction id (AppTransaction's `appTransactionId`) this is; nil
    /// when it is no account's. The Server API takes it wherever Apple takes any transaction id.
    func account(appTransactionID: String) throws(StoreError) -> String?
    /// W18: the account's app transaction id, minted when it signed up; nil for no account.
    func appTransactionID(account: String) throws(StoreError) -> String?
    /// F3: the storefront (alpha-3) the account buys in; nil while it has chosen none, so that
    /// the catalog's applies.
    func storefront(account: String) throws(StoreError) -> String?
    func setStorefront(_ code: String, account: String) throws(StoreError)
}

extension AccountDirectory {
    /// A sign-in with no device token.
    public func signIn(name: String, password: String, hasher: PasswordHasher, device: String) throws(StoreError)
        -> AccountSession
    {
        try signIn(name: name, password: password, hasher: hasher, device: device, deviceToken: nil)
    }
}

/// Each account's receipt and stored expiry (A2, A4, A6).
public protocol Ledger: AnyObject, Sendable {
    /// Records a purchase and updates the stored expiry, atomically. Idempotent per transaction id
    /// (W3: a retry after a lost answer adds nothing). Returns the stored expiry after it.
    @discardableResult
    func record(_ entry: ReceiptEntry, calendar: Calendar) throws(StoreError) -> Date?
    func hasReceiptEntry(transactionID: String) throws(StoreError) -> Bool
    func receiptEntry(transactionID: String) throws(StoreError) -> ReceiptEntry?
    func receipt(account: String) throws(StoreError) -> [ReceiptEntry]
    /// The receipt, the stored expiry, the stored plans and the plan lines, read at one moment:
    /// what A6 compares must not straddle another process's write.
    func receiptState(account: String) throws(StoreError) -> ReceiptState
    func storedExpiry(account: String) throws(StoreError) -> Date?
    /// Non-consumables on the receipt, in purchase order, each with its first transaction (A5).
    func ownedProducts(account: String) throws(StoreError) -> [(productID: String, transactionID: String)]
}

/// Auto-renewable plans, stored folded, and the lines they fold.
public protocol PlanBook: AnyObject, Sendable {
    /// Each plan of the account, by subscription group, as its lines fold.
    func plans(account: String) throws(StoreError) -> [String: PlanState]
    /// The account's plan lines in the order they were recorded, from the `offset`th on (lines
    /// are only ever added, so a reader can resume where it stopped).
    func planLines(account: String, from offset: Int) throws(StoreError) -> [ReceiptEntry]
    /// Adds plan lines atomically: `body` sees the plans and lines as they are at that moment and
    /// returns the lines to add. An implementation may run `body` more than once (a retry after a
    /// conflict), so it must only compute.
    @discardableResult
    func updatePlans(
        account: String,
        _ body: (_ plans: [String: PlanState], _ receipt: () throws -> [ReceiptEntry]) throws -> [ReceiptEntry]
    ) throws -> [ReceiptEntry]
    func accountsWithPlans() throws(StoreError) -> [String]
}

/// Settings every device shares (Q5, Q7, S4, W7).
public protocol SharedSettings: AnyObject, Sendable {
    func clockSetting() throws(StoreError) -> ClockSetting
    func setClockSetting(_ setting: ClockSetting) throws(StoreError)
    func billingSetting() throws(StoreError) -> BillingSetting
    func setBillingSetting(_ setting: BillingSetting) throws(StoreError)
    /// The app identity signed data carries (S4); nil while nobody has set it, so that the
    /// catalog's applies.
    func appIdentity() throws(StoreError) -> AppIdentity?
    func setAppIdentity(_ identity: AppIdentity) throws(StoreError)
    /// StoreKit errors set for the whole state folder (Q7); nil while nobody has set any, so that
    /// the catalog's own apply.
    func simulatedErrors() throws(StoreError) -> SimulatedErrors?
    func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError)
    /// The outcome the App Store gives customers' payments (Q4, W9), set by the developer; nil while
    /// nobody has set one, so that the catalog's applies.
    func paymentPolicy() throws(StoreError) -> PurchaseOutcome?
    func setPaymentPolicy(_ policy: PurchaseOutcome) throws(StoreError)
    /// What a team server signs in the developer's name for a customer's session (W18); nil while
    /// the developer has set none, so that `OfferSigningPolicy.standard` applies.
    func offerPolicy() throws(StoreError) -> OfferSigningPolicy?
    func setOfferPolicy(_ policy: OfferSigningPolicy) throws(StoreError)
    /// App account tokens set by Set App Account Token (M3), by original transaction id: they
    /// replace the token the purchase was made with, in everything signed after.
    func appAccountTokens() throws(StoreError) -> [String: String]
    func setAppAccountToken(_ token: String, original: String) throws(StoreError)
    /// The clock setting as last read, when it can be had without waiting on a lock or a network;
    /// nil when it cannot (then a reader asks `clockSetting()`).
    func clockSettingWithoutWaiting() -> ClockSetting?
}

extension SharedSettings {
    public func clockSettingWithoutWaiting() -> ClockSetting? { nil }
}

/// The keeper's catalog sets a fresh state folder's settings.
public protocol DefaultsAdopting: SharedSettings {
    /// A catalog's clock rate and billing, taken only by a server that has neither set yet.
    func adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date) throws(StoreError)
}

/// The developer's keys: the App Store Server API's and subscription offers' (V2, O2).
public protocol KeyStore: AnyObject, Sendable {
    /// nil until the first is made.
    func apiKeyring() throws(StoreError) -> APIKeyring?
    func setAPIKeyring(_ keyring: APIKeyring) throws(StoreError)
}

/// Uses taken once (a promotional offer's nonce, an offer code), and the offer codes (O2, O3).
public protocol ClaimStore: AnyObject, Sendable {
    /// How many uses of `key` are taken.
    func claims(_ key: String) throws(StoreError) -> Int
    /// Adds offer codes; a code that exists already (any case) refuses the whole batch.
    func addOfferCodes(_ codes: [OfferCode]) throws(StoreError)
    /// The offer code `code`, in any case.
    func offerCode(_ code: String) throws(StoreError) -> OfferCode?
    func offerCodes() throws(StoreError) -> [OfferCode]
}

/// Taking a use: only where the records are kept, as the App Store grants an offer (W9). A team
/// device asks for a grant (`TeamConnection.grantOffer`) and never takes a use itself.
public protocol ClaimTaking: ClaimStore {
    /// Takes one use of `key` for `account` if fewer than `limit` are taken and the account has
    /// none. True when taken now.
    func claim(_ key: String, account: String, limit: Int, at date: Date) throws(StoreError) -> Bool
    /// What deciding a payment reads (W9, Q4), in one read, so that a purchase that goes through
    /// costs its server one read and one write, as settling it did alone.
    func paymentDecisionInputs(transactionID: String, decided: String) throws(StoreError) -> PaymentDecisionInputs
}

/// Families (O5).
public protocol FamilyStore: AnyObject, Sendable {
    /// The families; through `storefront serve`, only those the caller's accounts are in (W6).
    func families() throws(StoreError) -> [Family]
    /// Whether any family exists, whoever is in it: a device whose account is in none still
    /// revokes the shares it held, and one on a server with no family at all reads nothing more.
    func hasFamilies() throws(StoreError) -> Bool
    /// One family's change, as one update: false (nothing written) when that family is no longer
    /// what the change expected (W9).
    func changeFamily(_ change: FamilyChange) throws(StoreError) -> Bool
}

/// Price changes of auto-renewable plans (O6).
public protocol PriceBook: AnyObject, Sendable {
    /// The latest price change of each product.
    func priceChanges() throws(StoreError) -> [PriceChange]
    /// A new change, replacing the product's last.
    func setPriceChange(_ change: PriceChange) throws(StoreError)
}

/// The notifications outbox and where it delivers (N1–N7).
public protocol Outbox: AnyObject, Sendable {
    /// Adds notifications not there yet, by the event each reports; returns those added.
    @discardableResult
    func enqueue(_ notifications: [ServerNotification]) throws(StoreError) -> [ServerNotification]
    func hasNotification(key: String) throws(StoreError) -> Bool
    func notifications(account: String?) throws(StoreError) -> [ServerNotification]
    func webhook() throws(StoreError) -> Webhook?
    func setWebhook(_ webhook: Webhook?) throws(StoreError)
}

/// The outbox as its deliverer works it: only where the records are kept.
public protocol DeliveryQueue: Outbox {
    func dueNotifications(at now: Date) throws(StoreError) -> [ServerNotification]
    func updateNotification(_ notification: ServerNotification) throws(StoreError)
}

/// The requests `storefront serve` answered (V7).
public protocol RequestLog: AnyObject, Sendable {
    func recentRequests(limit: Int) throws(StoreError) -> [ServedRequest]
}

/// The server's program writes what it answered.
public protocol RequestRecording: RequestLog {
    /// Adds requests, oldest first; the last 200 are kept.
    func recordRequests(_ requests: [ServedRequest]) throws(StoreError)
}

extension FamilyStore {
    /// A server that shows every family answers from them.
    public func hasFamilies() throws(StoreError) -> Bool { try !families().isEmpty }
}

extension PlanBook {
    /// All of the account's plan lines, in the order they were recorded.
    public func planLines(account: String) throws(StoreError) -> [ReceiptEntry] {
        try planLines(account: account, from: 0)
    }
}

extension AccountServer {
    /// Adds one line about a purchase already on the receipt (a refund, its request and answers,
    /// consumption information, a family share): a plan's line through the plans, so that its fold
    /// and notification follow; any other recorded as it is. Its month-less line never needs the
    /// calendar for the stored expiry.
    package func add(_ line: ReceiptEntry) throws(StoreError) {
        guard line.kind == .autoRenewableSubscription else {
            try record(line, calendar: Calendar(identifier: .gregorian))
            return
        }
        do {
            _ = try updatePlans(account: line.account) { _, _ in [line] }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(path: location, reason: "\(error)")
        }
    }
}

/// A point in an account server's history of changes (`AccountServer.changeStamp()`): equal
/// stamps mean nothing was committed in between.
public struct ChangeStamp: Sendable, Hashable, Codable {
    public var value: Int64

    public init(_ value: Int64) { self.value = value }
}

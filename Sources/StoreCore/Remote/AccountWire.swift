// The account server over the network (W1), declared once: each remote method is one
// `AccountMethod` — its name on the wire, its request and answer types, whose call it is, and what
// the server does with it. A device's `RemoteAccountServer` sends a method's request and reads its
// answer; `storefront serve`'s dispatcher (AccountService) looks the method up by name, checks
// who may call it in one place, and runs it. docs/architecture.md ("The wire") says what a new
// method takes.
import Foundation

/// The table: every remote method, by role.
public enum AccountWire {
    /// Where `storefront serve` takes calls: `POST` with `{"method": NAME, "request": …}`.
    public static let path = "/storefront/v1/call"
    /// The header that carries the developer's token (W9), apart from customers' sessions.
    public static let developerHeader = "Storefront-Developer"

    struct Envelope<Request: Codable>: Codable {
        var method: String
        var request: Request
    }

    struct Reply<Value: Codable>: Codable {
        var value: Value
    }

    typealias R = AccountRequests
    typealias Method = AccountMethod

    // MARK: Accounts and sessions (W2): no session needed to sign in; the answer carries one.

    static let signUp = Method<R.Credentials, AccountSession>("signUp", access: { _ in .anyone }) {
        server, request, call in
        try Accounts.validate(accountName: request.name)
        try StateDirectory.validate(device: request.device)
        guard !request.password.isEmpty else { throw StoreError.emptyPassword }
        // W11: sign-ups are limited per client.
        guard call.gate.signUp(client: call.client) else {
            throw StoreError.throttled(seconds: Int(SignInGate.signUpEvery))
        }
        let made = try server.signUp(
            name: request.name, password: request.password, hasher: call.hasher, device: request.device, at: call.now)
        return AccountSession(
            account: made.account,
            token: try server.createSession(account: made.account, device: request.device, at: call.now))
    }
    static let signIn = Method<R.Credentials, AccountSession>("signIn", access: { _ in .anyone }) {
        server, request, call in
        // The device's name is shown to the account's owner (`account sessions`): a name as a
        // device folder takes it, never one that writes to the owner's terminal.
        try StateDirectory.validate(device: request.device)
        // W11: one check at a time per name, four per client, none early after failures.
        if let wait = call.gate.enter(account: request.name, client: call.client) {
            throw StoreError.throttled(seconds: max(1, Int(wait.rounded(.up))))
        }
        do {
            let found = try server.signIn(
                name: request.name, password: request.password, hasher: call.hasher, device: request.device)
            call.gate.leave(account: request.name, client: call.client, succeeded: true)
            return AccountSession(
                account: found.account,
                token: try server.createSession(account: found.account, device: request.device, at: call.now))
        } catch let error as StoreError
            where error == .wrongPassword(request.name) || error == .unknownAccount(request.name)
        {
            // W6: each failure in a row doubles the wait, up to five seconds.
            call.delay = call.gate.leave(account: request.name, client: call.client, succeeded: false)
            // W11: an unknown name and a wrong password answer the same (kind, words, status,
            // wait), so that a stranger cannot learn which names have accounts.
            throw StoreError.wrongPassword(request.name)
        } catch {
            call.gate.release(account: request.name, client: call.client)
            throw error
        }
    }
    static let signOut = Method<R.None, Bool>("signOut", access: { _ in .anyone }) { server, _, call in
        for token in call.tokens { try server.revokeSession(token: token, at: call.now) }
        return true
    }
    /// Which account an app transaction id names: the developer's question (the Server API's).
    static let accountOfAppTransaction = Method<String, String?>(
        "accountOfAppTransaction", access: { _ in .developer }, reads: true
    ) {
        try $0.account(appTransactionID: $1)
    }
    static let deviceSessions = Method<String, [DeviceSessionInfo]>(
        "deviceSessions", access: { .account($0) }, reads: true
    ) { server, account, _ in
        try server.deviceSessions(account: account)
    }
    static let revokeDeviceSession = Method<R.SessionID, Bool>("revokeDeviceSession", access: { .account($0.account) })
    { server, request, call in
        try server.revokeDeviceSession(account: request.account, id: request.id, at: call.now)
    }

    // MARK: The ledger: an account's receipt, that account's session only (A7, W6).

    /// A line that answers for the App Store (a refund, its decline or reversal, an extension) is
    /// the developer's to write (W9); every other line, its account's.
    static let record = Method<R.Record, Date?>(
        "record", access: { $0.entry.event.isDevelopersAnswer ? .developer : .account($0.entry.account) }
    ) {
        server, request, call in
        try call.checkSold([request.entry])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: request.timeZone) ?? TimeZone(identifier: "UTC")!
        return try server.record(request.entry, calendar: calendar)
    }
    /// Another account's line is as good as none to the caller (the developer reads any).
    static let receiptEntry = Method<String, ReceiptEntry?>("receiptEntry", access: { _ in .anyone }, reads: true) {
        server, id, call in
        try server.receiptEntry(transactionID: id).flatMap { call.isCaller($0.account) || call.isDeveloper ? $0 : nil }
    }
    static let receipt = Method<String, [ReceiptEntry]>("receipt", access: { .account($0) }, reads: true) {
        try $0.receipt(account: $1)
    }
    static let receiptState = Method<String, ReceiptState>("receiptState", access: { .account($0) }, reads: true) {
        try $0.receiptState(account: $1)
    }
    static let storedExpiry = Method<String, Date?>("storedExpiry", access: { .account($0) }, reads: true) {
        try $0.storedExpiry(account: $1)
    }
    static let ownedProducts = Method<String, [[String]]>("ownedProducts", access: { .account($0) }, reads: true) {
        server, account, _ in
        try server.ownedProducts(account: account).map { [$0.productID, $0.transactionID] }
    }

    // MARK: Plans

    static let plans = Method<String, [String: PlanState]>(
        "plans", access: { .account($0, familyReads: true) }, reads: true
    ) { try $0.plans(account: $1) }
    static let planLines = Method<R.Lines, [ReceiptEntry]>("planLines", access: { .account($0.account) }, reads: true) {
        server, request, _ in
        try server.planLines(account: request.account, from: max(0, request.from))
    }
    static let addPlanLines = Method<R.AddLines, Bool>(
        "addPlanLines",
        access: { request in
            request.lines.contains { $0.event.isDevelopersAnswer }
                ? .developer : .accounts([request.account] + request.lines.map(\.account))
        }
    ) { server, request, call in
        try call.checkSold(request.lines)
        var added = false
        try server.updatePlans(account: request.account) { plans, _ in
            guard plans == request.expected else { return [] }
            added = true
            return request.lines
        }
        return added
    }
    static let accountsWithPlans = Method<R.None, [String]>("accountsWithPlans", access: { _ in .anyone }, reads: true)
    { server, _, call in
        try server.accountsWithPlans().filter { call.isCaller($0) }
    }

    // MARK: Claims and offer codes

    /// A use is taken for the caller's own account; a win-back offer's, only by the account it
    /// names. How many uses a key allows is the server's to say, from its own offer codes (W9): the
    /// device's `limit` is not taken.
    static let claim = Method<R.Claim, Bool>(
        "claim",
        access: { request in
            .accounts([request.account] + (ClaimKey(request.key)?.account.map { [$0] } ?? []))
        }
    ) { server, request, call in
        guard let key = ClaimKey(request.key) else {
            throw StoreError.offerRefused(
                .invalidOfferIdentifier("\"\(request.key)\" is not an offer whose uses this server counts"))
        }
        return try server.claim(request.key, account: request.account, limit: try key.limit(in: server), at: call.now)
    }
    /// How many uses a key has: a win-back offer's, its account's to know (W6); a code's or a
    /// nonce's, anyone's who holds it.
    static let claims = Method<String, Int>(
        "claims", access: { key in ClaimKey(key)?.account.map { .account($0) } ?? .anyone }, reads: true
    ) {
        try $0.claims($1)
    }
    static let addOfferCodes = Method<[OfferCode], Bool>("addOfferCodes", access: { _ in .developer }) {
        try $0.addOfferCodes($1)
        return true
    }
    static let offerCode = Method<String, OfferCode?>("offerCode", access: { _ in .anyone }, reads: true) {
        try $0.offerCode($1)
    }
    static let offerCodes = Method<R.None, [OfferCode]>("offerCodes", access: { _ in .developer }, reads: true) {
        server, _, _ in try server.offerCodes()
    }

    // MARK: Keys, prices, families

    /// The keys' public halves and issuer id (O2: devices check offer signatures).
    static let apiKeyring = Method<R.None, APIKeyring?>("apiKeyring", access: { _ in .anyone }, reads: true) {
        server, _, _ in try server.apiKeyring()
    }
    /// The keys' public halves only: a key's private half stays with whoever made it.
    static let setAPIKeyring = Method<APIKeyring, Bool>("setAPIKeyring", access: { _ in .developer }) {
        try $0.setAPIKeyring($1)
        return true
    }
    static let priceChanges = Method<R.None, [PriceChange]>("priceChanges", access: { _ in .anyone }, reads: true) {
        server, _, _ in try server.priceChanges()
    }
    static let setPriceChange = Method<PriceChange, Bool>("setPriceChange", access: { _ in .developer }) {
        try $0.setPriceChange($1)
        return true
    }
    /// The families the caller's accounts are in (W6: who is in which family is theirs to know);
    /// the developer's, every one. The server still refuses an account in two families, whatever a
    /// device could see (`FamilyChange.applied`).
    static let families = Method<R.None, [Family]>("families", access: { _ in .anyone }, reads: true) {
        server, _, call in
        try server.families().filter { family in call.isDeveloper || call.accounts.contains(where: family.includes) }
    }
    /// W6: a refusal says that someone else's family has an account, not whose family it is.
    private static func unnamingOthers<T>(_ call: AccountCallContext, _ body: () throws(StoreError) -> T)
        throws(StoreError) -> T
    {
        do {
            return try body()
        } catch {
            if case .familyRefused(.inFamilyOf(let account, let organizer)) = error, !call.isDeveloper,
                !call.isCaller(account), !call.isCaller(organizer)
            {
                throw StoreError.familyRefused(.inAFamily(account: account))
            }
            throw error
        }
    }
    static let hasFamilies = Method<R.None, Bool>("hasFamilies", access: { _ in .anyone }, reads: true) {
        server, _, _ in try server.hasFamilies()
    }
    /// A customer changes only a family they organize, or leaves one they are in (W9); the
    /// developer may change any. One family per call, written only if it is still as expected.
    static let changeFamily = Method<FamilyChange, Bool>("changeFamily", access: { _ in .signedIn }) {
        server, change, call in
        if !call.isDeveloper { try change.check(by: call.accounts) }
        return try unnamingOthers(call) { () throws(StoreError) in try server.changeFamily(change) }
    }

    // MARK: The outbox: the server writes and delivers notifications.

    /// A device asks for what the clock's passing means for its own accounts (a cancelled plan's
    /// end, a grace period running out), for a withdrawal of consent, and for TEST notifications.
    /// The server derives each one from its own plans, families and clock, and makes the TEST's
    /// UUID: what a device sends only says which to look at, so it can name neither another
    /// account's event key nor a type (W9). A withdrawal of consent may be asked for by the member
    /// or by the organizer who made it (the member's device may not be running).
    static let enqueue = Method<[ServerNotification], [ServerNotification]>(
        "enqueue",
        access: { asked in
            asked.allSatisfy { $0.type == "RESCIND_CONSENT" } ? .signedIn : .accounts(asked.map(\.account))
        }
    ) { server, asked, call in
        var derived: [ServerNotification] = []
        for account in Set(asked.map(\.account)).sorted() {
            let mine = asked.filter { $0.account == account }
            let keys = Set(mine.map(\.key))
            if mine.contains(where: { $0.type == "RESCIND_CONSENT" }) {
                derived += try server.families().filter {
                    call.isDeveloper || call.isCaller(account) || call.isCaller($0.organizer)
                }
                .compactMap { $0.withdrawal(of: account)?.notification }.filter { keys.contains($0.key) }
            }
            // Anything else only for the account's own session (the access rule saw to that).
            guard call.isCaller(account) || call.isDeveloper else { continue }
            derived += NotificationRules.timed(try server.plans(account: account), account: account, now: call.now)
                .filter { keys.contains($0.key) }
            for _ in mine.filter({ $0.type == "TEST" }) {
                let uuid = UUID().uuidString.lowercased()
                derived.append(
                    ServerNotification(
                        key: "test:\(uuid)", account: account, type: "TEST", createdAt: call.now, uuid: uuid))
            }
        }
        return try server.enqueue(derived)
    }
    static let hasNotification = Method<String, Bool>("hasNotification", access: { _ in .anyone }, reads: true) {
        try $0.hasNotification(key: $1)
    }
    /// One account's notifications, or (nil) those of every account the call has a session for.
    static let notifications = Method<String?, [ServerNotification]>(
        "notifications", access: { $0.map { .account($0) } ?? .anyone }, reads: true
    ) {
        server, account, call in
        if let account { return try server.notifications(account: account) }
        return try server.notifications(account: nil).filter { call.isCaller($0.account) }
    }
    /// The developer reads the webhook whole; anyone else only where it goes (its path and query
    /// may hold the developer's secret).
    static let webhook = Method<R.None, Webhook?>("webhook", access: { _ in .anyone }, reads: true) { server, _, call in
        try call.isDeveloper ? server.webhook() : server.webhook()?.shownToCustomers
    }
    static let setWebhook = Method<Webhook?, Bool>("setWebhook", access: { _ in .developer }) {
        try $0.setWebhook($1)
        return true
    }

    /// What each of the developer's methods does, in words for a refusal.
    package static let developerActions: [String: String] = [
        setClockSetting.name: "move the store clock", setBillingSetting.name: "change billing or the grace period",
        setAppIdentity.name: "change the app's identity", setSimulatedErrors.name: "set simulated StoreKit errors",
        setWebhook.name: "set the webhook", setPriceChange.name: "change prices",
        addOfferCodes.name: "make offer codes",
        offerCodes.name: "list offer codes", recentRequests.name: "list the requests the server answered",
        setAPIKeyring.name: "make or revoke in-app purchase keys", setAppAccountToken.name: "set app account tokens",
        replaceRetentionSetup.name: "change retention messages",
        setRetentionImage.name: "upload or delete retention images",
        record.name: "answer refund requests or extend subscriptions",
        addPlanLines.name: "answer refund requests or extend subscriptions",
        accountOfAppTransaction.name: "look up an app transaction id",
    ]

    /// Every method the server answers, by name.
    package static let all: [String: AnyAccountMethod] = {
        let methods: [AnyAccountMethod] = [
            signUp.erased, signIn.erased, signOut.erased, deviceSessions.erased, revokeDeviceSession.erased,
            accountOfAppTransaction.erased,
            record.erased, receiptEntry.erased, receipt.erased, receiptState.erased, storedExpiry.erased,
            ownedProducts.erased,
            plans.erased, planLines.erased, addPlanLines.erased, accountsWithPlans.erased,
            claim.erased, claims.erased, addOfferCodes.erased, offerCode.erased, offerCodes.erased,
            apiKeyring.erased, setAPIKeyring.erased, priceChanges.erased, setPriceChange.erased, families.erased,
            hasFamilies.erased, changeFamily.erased,
            enqueue.erased, hasNotification.erased, notifications.erased, webhook.erased, setWebhook.erased,
            changeStamp.erased, clockSetting.erased, setClockSetting.erased, billingSetting.erased,
            setBillingSetting.erased,
            appIdentity.erased, setAppIdentity.erased, simulatedErrors.erased, setSimulatedErrors.erased,
            appAccountTokens.erased, setAppAccountToken.erased, recentRequests.erased,
            retentionSetup.erased, replaceRetentionSetup.erased, retentionImage.erased, setRetentionImage.erased,
            signed.erased,
            rootCertificate.erased,
        ]
        return Dictionary(methods.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }()

    /// A call's body, as a device sends it: keys in order, so that the same call is the same
    /// bytes (a screen tick keeps a read's answer by them).
    package static func body<Request, Response>(_ method: AccountMethod<Request, Response>, _ request: Request) throws
        -> Data
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(Envelope(method: method.name, request: request))
    }
}

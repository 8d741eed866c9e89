// What the server knows of one call while it runs a method of the wire (W6, W9, W11).
import Foundation
import Logging
import StoreCore
import StoreModel

/// What the server knows of one call while it runs a method.
final class AccountCallContext: @unchecked Sendable {
    /// The accounts the call's sessions stand for, lowercased.
    let accounts: Set<String>
    /// The call's session tokens, as sent.
    let tokens: [String]
    /// The call carries the server's developer token (W9).
    let isDeveloper: Bool
    /// The store's time, read once, when a method first asks (most never do, and on PostgreSQL
    /// reading it is a query).
    private(set) lazy var now: Date = clock.now()
    private let clock: any StoreClock
    let hasher: PasswordHasher
    /// The server's limits on sign-ins and sign-ups (W11), and who is calling: the client's
    /// address ("" when unknown).
    let gate: SignInGate
    let client: String
    /// How long the server waits before it answers (a failed sign-in).
    var delay: TimeInterval = 0
    /// What signs a device's data with the server's root (S1); nil where the server keeps no store.
    let signer: (any DeviceSigning)?
    /// What grants offers and settles purchases (W9); nil where the server keeps no store.
    let desk: (any PurchaseDesk)?
    /// The products the server's catalog sells; nil where the server keeps no catalog (no check).
    let sold: Set<String>?
    /// When a session made by this call stops standing for its account (real time).
    let sessionExpiry: Date
    /// The real time, as sessions and device tokens are judged by.
    let realNow: Date
    /// When a device token made by this call stops exempting its device (real time, W17).
    var deviceTokenExpiry: Date { realNow.addingTimeInterval(Self.deviceTokenLifetime) }
    static let deviceTokenLifetime: TimeInterval = 180 * 86_400
    /// The developer's log (failed sign-ins name their addresses there, W17).
    let logger: Logger?
    init(
        accounts: Set<String>, tokens: [String], isDeveloper: Bool, clock: any StoreClock, hasher: PasswordHasher,
        gate: SignInGate, client: String,
        signer: (any DeviceSigning)? = nil, desk: (any PurchaseDesk)? = nil, sold: Set<String>? = nil,
        sessionExpiry: Date = Date().addingTimeInterval(DeviceSessionInfo.defaultLifetime), realNow: Date = Date(),
        logger: Logger? = nil
    ) {
        self.sessionExpiry = sessionExpiry
        self.realNow = realNow
        self.logger = logger
        self.signer = signer
        self.desk = desk
        self.sold = sold
        self.accounts = accounts
        self.tokens = tokens
        self.isDeveloper = isDeveloper
        self.clock = clock
        self.hasher = hasher
        self.gate = gate
        self.client = client
    }

    func isCaller(_ account: String) -> Bool { accounts.contains(account.lowercased()) }

    /// W17: the developer's log names where a failed sign-in came from, and when a name locks.
    func noteFailedSignIn(_ account: String, caller: SignInLimits.Caller) {
        guard let logger else { return }
        let from =
            switch caller {
            case .stranger(let address): address.isEmpty ? "an unknown address" : address
            case .knownDevice: "a device of the account"
            }
        let count = gate.failures(of: account).count
        logger.notice("sign-in to \"\(account)\" from \(from) failed (\(count) since the last success)")
        if gate.isLocked(account) {
            logger.notice(
                "sign-ins to \"\(account)\" from new devices are locked for \(Int(SignInLimits.lockFor / 60)) minutes; `storefront account unlock \(account)` lifts it"
            )
        }
    }

    /// Every line is the App Store's to write (W9), so a customer's device writes none: the server
    /// settles purchases, changes of plan and upgrades' credits (`settlePurchase`), renewals,
    /// billing and expiries (`settlePlans`), a plan's cancel, renewal turned back on and price
    /// consent (`actOnPlan`), refund requests (`fileRefundRequest`) and family shares
    /// (`settleFamily`). Only the developer's token writes lines: the answers that stand for the
    /// App Store (refunds, extensions) and the developer's tools.
    func checkLines(_ lines: [ReceiptEntry]) throws(StoreError) {
        try checkSold(lines)
        guard !isDeveloper, let decided = lines.first else { return }
        throw StoreError.refusedByServer(
            "a line of \(decided.productID) (\(decided.event.rawValue)): the server writes those itself")
    }

    /// A new purchase (or a change to another plan) of a product the server's catalog does not
    /// sell is refused: the device runs on another catalog than the server, and what the server
    /// would sign and notify would name a product its app does not have. Lines of plans already
    /// on the receipt (renewals, cancels, refunds) are not asked about.
    func checkSold(_ lines: [ReceiptEntry]) throws(StoreError) {
        guard let sold else { return }
        if let line = lines.first(where: { [.purchase, .change].contains($0.event) && !sold.contains($0.productID) }) {
            throw StoreError.notSoldByServer(productID: line.productID, server: "")
        }
    }
}

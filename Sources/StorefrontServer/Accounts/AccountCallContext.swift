// What the server knows of one call while it runs a method of the wire (W6, W9, W11).
import Foundation
import StoreCore

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
    /// What a customer's lines are held against; nil where the server keeps no catalog.
    let lineCheck: LineCheck?

    init(
        accounts: Set<String>, tokens: [String], isDeveloper: Bool, clock: any StoreClock, hasher: PasswordHasher,
        gate: SignInGate, client: String,
        signer: (any DeviceSigning)? = nil, desk: (any PurchaseDesk)? = nil, sold: Set<String>? = nil,
        sessionExpiry: Date = Date().addingTimeInterval(DeviceSessionInfo.defaultLifetime),
        lineCheck: LineCheck? = nil
    ) {
        self.lineCheck = lineCheck
        self.sessionExpiry = sessionExpiry
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

    /// A new purchase (or a change to another plan) of a product the server's catalog does not
    /// sell is refused: the device runs on another catalog than the server, and what the server
    /// would sign and notify would name a product its app does not have. Lines of plans already
    /// on the receipt (renewals, cancels, refunds) are not asked about.
    /// A customer's lines, held against the server's catalog and records (`LineCheck`); the
    /// developer's are the App Store's answers.
    /// What the App Store decides is the server's to write (W9): purchases, changes of plan and
    /// upgrades' credits (`settlePurchase`), renewals, billing and expiries (`settlePlans`), and a
    /// plan's cancel, renewal turned back on and price consent (`actOnPlan`). A customer's device
    /// writes only its refund requests, consumption answers and family shares, held by `LineCheck`.
    static let customersLines: Set<ReceiptEvent> = [.refundRequest, .consumptionInfo, .familyShare, .familyRevoke]

    func checkLines(_ lines: [ReceiptEntry], server: any RecordKeeping) throws(StoreError) {
        try checkSold(lines)
        guard !isDeveloper else { return }
        if let decided = lines.first(where: { !Self.customersLines.contains($0.event) }) {
            throw StoreError.refusedByServer(
                "a line of \(decided.productID) (\(decided.event.rawValue)): the server writes those itself")
        }
        try lineCheck?.check(lines, server: server)
    }

    func checkSold(_ lines: [ReceiptEntry]) throws(StoreError) {
        guard let sold else { return }
        if let line = lines.first(where: { [.purchase, .change].contains($0.event) && !sold.contains($0.productID) }) {
            throw StoreError.notSoldByServer(productID: line.productID, server: "")
        }
    }
}

// What each method of the account server's wire is made of (W1, W6): whose call it may be, what
// the server knows of one call, the method itself with its request and answer types, and the
// requests' shapes. AccountWire.swift declares the methods.
import Foundation

/// Whose call a request is: what the server checks before it runs a method (W6).
package enum AccountAccess: Sendable, Equatable {
    /// Anyone who reaches the server (sign-up, sign-in, the settings every device reads).
    case anyone
    /// A device with a session for some account.
    case signedIn
    /// The developer (W9): the server's developer token. The clock, billing, simulated errors,
    /// the app's identity, the webhook, prices, offer codes, refund answers, extensions and the
    /// request log.
    case developer
    /// A device with a session for each of these accounts, or the developer (who answers for the
    /// App Store on any account: refunds, extensions). `familyReads`: a member of a family
    /// that the account organizes may read it too (O5: a shared plan's access follows the
    /// organizer's plans).
    case accounts([String], familyReads: Bool = false)

    static func account(_ name: String, familyReads: Bool = false) -> AccountAccess {
        .accounts([name], familyReads: familyReads)
    }
}

/// What the server knows of one call while it runs a method.
package final class AccountCallContext: @unchecked Sendable {
    /// The accounts the call's sessions stand for, lowercased.
    package let accounts: Set<String>
    /// The call's session tokens, as sent.
    package let tokens: [String]
    /// The call carries the server's developer token (W9).
    package let isDeveloper: Bool
    /// The store's time, read once, when a method first asks (most never do, and on PostgreSQL
    /// reading it is a query).
    package private(set) lazy var now: Date = clock.now()
    private let clock: any StoreClock
    package let hasher: PasswordHasher
    /// The server's limits on sign-ins and sign-ups (W11), and who is calling: the client's
    /// address ("" when unknown).
    package let gate: SignInGate
    package let client: String
    /// How long the server waits before it answers (a failed sign-in).
    package var delay: TimeInterval = 0
    /// What signs a device's data with the server's root (S1); nil where the server keeps no store.
    package let signer: (any DeviceSigning)?
    /// The products the server's catalog sells; nil where the server keeps no catalog (no check).
    package let sold: Set<String>?

    package init(
        accounts: Set<String>, tokens: [String], isDeveloper: Bool, clock: any StoreClock, hasher: PasswordHasher,
        gate: SignInGate, client: String,
        signer: (any DeviceSigning)? = nil, sold: Set<String>? = nil
    ) {
        self.signer = signer
        self.sold = sold
        self.accounts = accounts
        self.tokens = tokens
        self.isDeveloper = isDeveloper
        self.clock = clock
        self.hasher = hasher
        self.gate = gate
        self.client = client
    }

    package func isCaller(_ account: String) -> Bool { accounts.contains(account.lowercased()) }

    /// A new purchase (or a change to another plan) of a product the server's catalog does not
    /// sell is refused: the device runs on another catalog than the server, and what the server
    /// would sign and notify would name a product its app does not have. Lines of plans already
    /// on the receipt (renewals, cancels, refunds) are not asked about.
    package func checkSold(_ lines: [ReceiptEntry]) throws(StoreError) {
        guard let sold else { return }
        if let line = lines.first(where: { [.purchase, .change].contains($0.event) && !sold.contains($0.productID) }) {
            throw StoreError.notSoldByServer(productID: line.productID, server: "")
        }
    }
}

/// The server a method runs against: the account server's roles and its device sessions.
package typealias ServingAccountServer = AccountServer & SessionKeeping

/// One remote method of the account server.
public struct AccountMethod<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable {
    public let name: String
    package let access: @Sendable (Request) -> AccountAccess
    /// It only reads: within one screen tick a device may reuse its answer (`sharingReads`).
    package let reads: Bool
    package let perform: @Sendable (any ServingAccountServer, Request, AccountCallContext) throws -> Response

    package init(
        _ name: String, access: @escaping @Sendable (Request) -> AccountAccess, reads: Bool = false,
        _ perform: @escaping @Sendable (any ServingAccountServer, Request, AccountCallContext) throws -> Response
    ) {
        self.name = name
        self.access = access
        self.reads = reads
        self.perform = perform
    }

    /// A method that needs nothing of the call but its request.
    package init(
        _ name: String, access: @escaping @Sendable (Request) -> AccountAccess, reads: Bool = false,
        _ perform: @escaping @Sendable (any ServingAccountServer, Request) throws -> Response
    ) {
        self.init(name, access: access, reads: reads) { server, request, _ in try perform(server, request) }
    }

    /// The method with its types erased, for the server's dispatcher.
    package var erased: AnyAccountMethod {
        AnyAccountMethod(name: name) { body, decoder in
            let request = try decoder.decode(AccountWire.Envelope<Request>.self, from: body).request
            return (
                access(request),
                { server, context in
                    try JSONEncoder().encode(AccountWire.Reply(value: try perform(server, request, context)))
                }
            )
        }
    }
}

/// A method as the dispatcher holds it: from a call's body, whose call it is and how to answer it.
package struct AnyAccountMethod: Sendable {
    package let name: String
    package let prepare:
        @Sendable (Data, JSONDecoder) throws -> (
            AccountAccess, (any ServingAccountServer, AccountCallContext) throws -> Data
        )
}

/// Requests of more than one value.
public enum AccountRequests {
    public struct Credentials: Codable, Sendable { var name, password, device: String }
    public struct SessionID: Codable, Sendable { var account, id: String }
    public struct Record: Codable, Sendable {
        var entry: ReceiptEntry
        var timeZone: String
    }
    public struct Lines: Codable, Sendable {
        var account: String
        var from: Int
    }
    /// Plan lines to add if the plans are still `expected` (the device computed the lines from
    /// them); otherwise nothing, and the device computes again (W3).
    public struct AddLines: Codable, Sendable {
        var account: String
        var expected: [String: PlanState]
        var lines: [ReceiptEntry]
    }
    /// `limit` is what the device counts on; the server takes its own (ClaimKey), and a server
    /// of an earlier build still reads it.
    public struct Claim: Codable, Sendable {
        var key, account: String
        var limit: Int
    }
    public struct AppAccountToken: Codable, Sendable { var token, original: String }
    public struct RetentionImage: Codable, Sendable {
        var id: String
        var png: Data?
    }
    /// No value.
    public struct None: Codable, Sendable { public init() {} }
}

// What each method of the account server's wire is made of (W1, W6): whose call it may be, the
// method itself with its request and answer types, and the requests' shapes. AccountWire.swift
// declares the methods; StorefrontServer performs them.
import Foundation
import StoreModel

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

/// A method as the wire declares it, whatever its types: what `AccountWire.all` lists.
package protocol DeclaredAccountMethod: Sendable {
    var name: String { get }
}

/// One remote method of the account server.
public struct AccountMethod<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable,
    DeclaredAccountMethod
{
    public let name: String
    package let access: @Sendable (Request) -> AccountAccess
    /// It only reads: within one screen tick a device may reuse its answer (`sharingReads`).
    package let reads: Bool

    package init(_ name: String, access: @escaping @Sendable (Request) -> AccountAccess, reads: Bool = false) {
        self.name = name
        self.access = access
        self.reads = reads
    }
}

/// Requests of more than one value.
public enum AccountRequests {
    public struct Credentials: Codable, Sendable {
        package var name, password, device: String
        /// W17: the device token this device holds for the account, if any.
        package var deviceToken: String? = nil

        package init(name: String, password: String, device: String, deviceToken: String? = nil) {
            (self.name, self.password, self.device, self.deviceToken) = (name, password, device, deviceToken)
        }
    }
    /// F3: an account's storefront, as it sets it.
    public struct AccountStorefront: Codable, Sendable {
        package var account, storefront: String
        package init(account: String, storefront: String) { (self.account, self.storefront) = (account, storefront) }
    }
    public struct SessionID: Codable, Sendable {
        package var account, id: String
        package init(account: String, id: String) { (self.account, self.id) = (account, id) }
    }
    public struct Record: Codable, Sendable {
        package var entry: ReceiptEntry
        package var timeZone: String
    }
    public struct Lines: Codable, Sendable {
        package var account: String
        package var from: Int
    }
    /// Plan lines to add if the plans are still `expected` (the device computed the lines from
    /// them); otherwise nothing, and the device computes again (W3).
    public struct AddLines: Codable, Sendable {
        package var account: String
        package var expected: [String: PlanState]
        package var lines: [ReceiptEntry]
    }
    public struct AppAccountToken: Codable, Sendable { package var token, original: String }
    public struct RetentionImage: Codable, Sendable {
        package var id: String
        package var png: Data?
    }
    /// No value.
    public struct None: Codable, Sendable { public init() {} }
}

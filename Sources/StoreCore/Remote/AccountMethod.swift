// What each method of the account server's wire is made of (W1): the method itself with its
// request and answer types, and the requests' shapes. AccountWire.swift declares the methods;
// StorefrontServer says whose call each may be and performs it.
import Foundation
import StoreModel

/// A method as the wire declares it, whatever its types: what `AccountWire.all` lists.
package protocol DeclaredAccountMethod: Sendable {
    var name: String { get }
}

/// One remote method of the account server.
public struct AccountMethod<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable,
    DeclaredAccountMethod
{
    public let name: String
    /// It only reads: within one screen tick a device may reuse its answer (`sharingReads`).
    package let reads: Bool

    package init(_ name: String, reads: Bool = false) {
        self.name = name
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

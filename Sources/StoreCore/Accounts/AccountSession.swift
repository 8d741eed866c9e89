// What stands for an account on a device (W2, W17): the session a server gives, the device
// sessions it lists and keeps, the tokens' hashes, and what a team server tells a device of its
// sessions and sign-ins.
import Crypto
import Foundation
import StoreModel

/// A team server's side of a device's sessions and sign-ins, as the device reaches it.
public protocol TeamSessions: AnyObject, Sendable {
    /// A session the device kept, handed back when it starts, so that the server acts for it.
    func resume(_ session: AccountSession)
    /// Ends a session this device holds: the server revokes its token.
    func signOut(_ session: AccountSession) throws(StoreError)
    /// W17: the account's failed sign-ins since its last successful one (its owner's question).
    func failedSignIns(account: String) throws(StoreError) -> FailedSignIns
    /// W17: the developer lifts an account's lock on new devices; whether it was locked.
    func unlockAccount(_ name: String) throws(StoreError) -> Bool
}

/// What stands for an account on a device after it signed in (W2): the embedded server needs no
/// token; a remote one gives one per device and account, kept in the device's database.
public struct AccountSession: Sendable, Equatable, Codable {
    public var account: String
    public var token: String?
    /// W17: the device token a team server gave with the session; the device keeps it after signing out.
    public var deviceToken: String?
    /// W17: the sign-ins that failed since the account's last successful one, told at sign-in.
    public var failedBefore: FailedSignIns?

    public init(
        account: String, token: String? = nil, deviceToken: String? = nil, failedBefore: FailedSignIns? = nil
    ) {
        self.account = account
        self.token = token
        self.deviceToken = deviceToken
        self.failedBefore = failedBefore
    }
}

/// Failed sign-ins of one account since its last successful one, as its owner is shown them (W17).
public struct FailedSignIns: Sendable, Equatable, Codable {
    public var count: Int
    /// The first addresses they came from ("a device of the account" for a known device).
    public var addresses: [String]

    public init(count: Int = 0, addresses: [String] = []) {
        self.count = count
        self.addresses = addresses
    }
}

/// One device's session as `storefront account sessions` lists it: an id (the start of the token's
/// hash, never the token), the device's name, and when it was made and revoked.
public struct DeviceSessionInfo: Sendable, Equatable, Codable {
    public var id: String
    public var device: String
    public var createdAt: Date
    public var revokedAt: Date?
    /// When it stops standing for the account (real time); nil for a session made before
    /// sessions expired.
    public var expiresAt: Date?

    public init(id: String, device: String, createdAt: Date, revokedAt: Date?, expiresAt: Date? = nil) {
        self.id = id
        self.device = device
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.expiresAt = expiresAt
    }

    /// How long a session stands for its account unless the developer says otherwise.
    public static let defaultLifetime: TimeInterval = 30 * 86_400

    /// How many characters of the token's hash stand for a session.
    public static let idLength = 12
}

/// The sessions devices hold on the account server `storefront serve` keeps (W2): made at sign-in,
/// kept only as hashes, revocable. The embedded server and the PostgreSQL one both keep them.
public protocol SessionKeeping: Sendable {
    /// A new session for `device` acting for `account`, made at `date` (store time) and good until
    /// `expiresAt` (real time): the token, handed out once.
    func createSession(account: String, device: String, at date: Date, expiresAt: Date) throws(StoreError) -> String
    /// The account a token acts for, nil when it is unknown, revoked or expired at `realNow`.
    func sessionAccount(token: String, at realNow: Date) throws(StoreError) -> String?
    func revokeSession(token: String, at date: Date) throws(StoreError)
    /// A device token for `device` of `account` (W17), good until `expiresAt` (real time): the
    /// token, handed out once and kept only as its SHA-256. Revoking the device's session
    /// (`revokeDeviceSession`) revokes it; signing out does not.
    func createDeviceToken(account: String, device: String, at date: Date, expiresAt: Date) throws(StoreError)
        -> String
    /// The id of `token` when it is a device token of this account and device, neither revoked nor
    /// expired at `realNow`; nil otherwise (forged, another account's or device's, revoked, old).
    func deviceTokenID(token: String, account: String, device: String, at realNow: Date) throws(StoreError)
        -> String?
    /// Whether an account has this name, whatever its case: only the keeper of the records asks.
    func hasAccount(_ name: String) throws(StoreError) -> Bool
}

/// A session token as the server keeps it: SHA-256, in hex.
public enum SessionToken {
    public static func make() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        return JWS.base64URL(Data(bytes))
    }

    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

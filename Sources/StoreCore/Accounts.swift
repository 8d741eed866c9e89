// Signing up, in and out (A1, A7): passwords checked against the account server's slow hashes;
// the device remembers who is signed in.
import Foundation

public final class Accounts: SessionRole {
    let session: DeviceSession
    public var passwordHasher: PasswordHasher

    init(session: DeviceSession, passwordHasher: PasswordHasher) {
        self.session = session
        self.passwordHasher = passwordHasher
    }

    /// The account this device acts for, or nil for a guest.
    public func currentUser() throws(StoreError) -> String? { try session.currentUser() }

    public func signUp(_ name: String, password: String) throws(StoreError) {
        try Self.validate(accountName: name)
        guard !password.isEmpty else { throw StoreError.emptyPassword }
        let hash: String
        do {
            hash = try passwordHasher.hash(password)
        } catch {
            throw StoreError.storage(path: session.server.location, reason: "cannot hash the password (\(error))")
        }
        guard try session.server.createAccount(name: name, passwordHash: hash, at: session.now()) else {
            throw StoreError.accountExists(name)
        }
        try session.device.setMeta("currentUser", name)
    }

    /// Signs in and remembers the account on this device. Like the seed app, signing in fetches
    /// the account's expiry from the server; owned comics come back with `restore()` (A5).
    public func signIn(_ name: String, password: String) throws(StoreError) {
        let canonical = try authenticate(name, password: password)
        try session.withDeviceLock { () throws(StoreError) in
            try session.device.setMeta("currentUser", canonical)
            try session.device.raiseExpiry(user: canonical, to: try session.server.storedExpiry(account: canonical))
        }
    }

    /// Acts as `name` for this store value only (the device keeps whoever it remembers).
    public func actAs(_ name: String, password: String) throws(StoreError) {
        let canonical = try authenticate(name, password: password)
        session.sessionUser = canonical
        try session.device.raiseExpiry(user: canonical, to: try session.server.storedExpiry(account: canonical))
    }

    public func signOut() throws(StoreError) {
        session.sessionUser = nil
        try session.device.setMeta("currentUser", nil)
    }

    /// Checks a password; returns the account's name as it was created.
    func authenticate(_ name: String, password: String) throws(StoreError) -> String {
        try Self.validate(accountName: name)
        guard !password.isEmpty else { throw StoreError.emptyPassword }
        guard let account = try session.server.passwordHash(account: name) else { throw StoreError.unknownAccount(name) }
        guard passwordHasher.verify(password, against: account.hash) else { throw StoreError.wrongPassword(name) }
        return account.name
    }

    static func validate(accountName name: String) throws(StoreError) {
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) }
        guard !name.isEmpty, name.count <= 64, allowed else { throw StoreError.invalidAccountName(name) }
    }
}

// Signing up, in and out (A1, A7): passwords checked against the account server's slow hashes;
// the device remembers who is signed in.
import Foundation
import StoreModel

public final class Accounts: SessionRole {
    let session: DeviceSession
    public var passwordHasher: PasswordHasher
    let plans: Plans

    init(session: DeviceSession, passwordHasher: PasswordHasher, plans: Plans) {
        self.session = session
        self.passwordHasher = passwordHasher
        self.plans = plans
    }

    /// The account this device acts for, or nil for a guest.
    public func currentUser() throws(StoreError) -> String? { try session.currentUser() }

    public func signUp(_ name: String, password: String) throws(StoreError) {
        try Self.validate(accountName: name)
        guard !password.isEmpty else { throw StoreError.emptyPassword }
        let account = try session.server.signUp(
            name: name, password: password, hasher: passwordHasher, device: session.deviceName, at: session.now())
        try keep(account)
        try session.device.setSetting(.currentUser, name)
    }

    /// Signs in and remembers the account on this device. Like the seed app, signing in fetches
    /// the account's expiry from the server; owned comics come back with `restore()` (A5).
    public func signIn(_ name: String, password: String) throws(StoreError) {
        let canonical = try authenticate(name, password: password)
        try session.withDeviceLock { () throws(StoreError) in
            try session.device.setSetting(.currentUser, canonical)
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
        if let user = try session.currentUser(), let kept = try session.keptSessions()[user.lowercased()] {
            try session.server.keeper.team?.signOut(kept)
            var sessions = try session.keptSessions()
            sessions[user.lowercased()] = nil
            try session.keepSessions(sessions)
        }
        session.sessionUser = nil
        try session.device.setSetting(.currentUser, nil)
    }

    /// F3: the storefront the signed-in account buys in (the catalog's for a guest, and while the
    /// account has chosen none).
    public func storefront() throws(StoreError) -> String {
        guard let user = try currentUser() else { return session.homeCatalog.storefront }
        return try session.storefront(of: user, fresh: true)
    }

    /// F3: moves the signed-in account to the storefront `code` (alpha-3, any case), as Apple
    /// does: only once its plans have ended (`StorefrontChange`). Prices and availability follow at
    /// once; what it bought keeps the storefront it was bought in.
    public func setStorefront(_ code: String) throws(StoreError) {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        _ = try plans.settle(account: user)
        let own = Array(try planBook.plans(account: user).values)
        if let refusal = StorefrontChange.refusal(to: code, plans: own, now: now()) {
            throw StoreError.storefrontRefused(refusal)
        }
        try directory.setStorefront(code.uppercased(), account: user)
        session.wroteStorefront(code.uppercased(), of: user)
    }

    /// The sessions devices hold for the signed-in account on a server that hands them out (W2).
    public func deviceSessions() throws(StoreError) -> [DeviceSessionInfo] {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        // A name a server of an earlier build took as sent: its control characters (an escape
        // sequence that moves the cursor or rewrites the terminal) are shown as "?".
        return try session.server.deviceSessions(account: user).map { found in
            var shown = found
            shown.device = String(
                String.UnicodeScalarView(
                    found.device.unicodeScalars.map { scalar in
                        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) ? "?" : scalar
                    }))
            return shown
        }
    }

    /// W17: the signed-in account's failed sign-ins since its last successful one, on a team
    /// server (nil elsewhere: the embedded server has no limits to count against).
    public func failedSignIns() throws(StoreError) -> FailedSignIns? {
        guard let user = try currentUser(), let team = session.server.keeper.team else { return nil }
        return try team.failedSignIns(account: user)
    }

    /// W17: the developer lifts an account's lock on new devices (a team server only); whether it
    /// was locked.
    public func unlock(_ name: String) throws(StoreError) -> Bool {
        try Self.validate(accountName: name)
        guard let team = session.server.keeper.team else { throw StoreError.noSignInLimits }
        return try team.unlockAccount(name)
    }

    /// Revokes one of them (a lost or stolen device): it must sign in again.
    public func revokeDeviceSession(_ id: String) throws(StoreError) {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        guard try session.server.revokeDeviceSession(account: user, id: id, at: session.now()) else {
            throw StoreError.unknownSession(id)
        }
    }

    /// Checks a password on the server; returns the account's name as it was created.
    func authenticate(_ name: String, password: String) throws(StoreError) -> String {
        try Self.validate(accountName: name)
        guard !password.isEmpty else { throw StoreError.emptyPassword }
        let account = try session.server.signIn(
            name: name, password: password, hasher: passwordHasher, device: session.deviceName,
            deviceToken: try session.keptDeviceTokens()[name.lowercased()])
        try keep(account)
        failedBefore = account.failedBefore
        return account.account
    }

    /// W17: the failed sign-ins the last sign-in was told of (nil: none, or no team server).
    public private(set) var failedBefore: FailedSignIns?

    /// Keeps a session the server gave on this device (a remote server's token), by account, and
    /// the device token that came with it (W17).
    private func keep(_ account: AccountSession) throws(StoreError) {
        guard account.token != nil else { return }
        var sessions = try session.keptSessions()
        var kept = account
        kept.deviceToken = nil
        kept.failedBefore = nil
        sessions[account.account.lowercased()] = kept
        try session.keepSessions(sessions)
        if let token = account.deviceToken {
            var tokens = try session.keptDeviceTokens()
            tokens[account.account.lowercased()] = token
            try session.keepDeviceTokens(tokens)
        }
    }

    package static func validate(accountName name: String) throws(StoreError) {
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) }
        guard !name.isEmpty, name.count <= 64, allowed else { throw StoreError.invalidAccountName(name) }
    }
}

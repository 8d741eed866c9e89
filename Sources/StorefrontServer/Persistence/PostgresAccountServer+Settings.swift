// Settings every device shares (Q5, Q7, S4, W7), in PostgreSQL's setting table.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: SharedSettings, DefaultsAdopting {
    /// Read each time: a commit by another server is in the log's position a moment before it is
    /// visible, so a setting kept by that stamp could miss it.
    public func clockSetting() throws(StoreError) -> ClockSetting { try setting("clock") ?? .standard }

    public func setClockSetting(_ setting: ClockSetting) throws(StoreError) { try setSetting("clock", setting) }

    public func billingSetting() throws(StoreError) -> BillingSetting { try setting("billing") ?? BillingSetting() }

    public func setBillingSetting(_ setting: BillingSetting) throws(StoreError) { try setSetting("billing", setting) }

    public func appIdentity() throws(StoreError) -> AppIdentity? { try setting("appIdentity") }

    /// F3: an account's storefront, one setting per account.
    public func storefront(account: String) throws(StoreError) -> String? {
        try setting("storefront:" + Self.key(account))
    }

    public func setStorefront(_ code: String, account: String) throws(StoreError) {
        try setSetting("storefront:" + Self.key(account), code)
    }

    public func setAppIdentity(_ identity: AppIdentity) throws(StoreError) { try setSetting("appIdentity", identity) }

    public func simulatedErrors() throws(StoreError) -> SimulatedErrors? { try setting("simulatedErrors") }

    public func setSimulatedErrors(_ errors: SimulatedErrors) throws(StoreError) {
        try setSetting("simulatedErrors", errors)
    }

    public func paymentPolicy() throws(StoreError) -> PurchaseOutcome? { try setting("paymentPolicy") }

    public func setPaymentPolicy(_ policy: PurchaseOutcome) throws(StoreError) {
        try setSetting("paymentPolicy", policy)
    }

    public func offerPolicy() throws(StoreError) -> OfferSigningPolicy? { try setting("offerPolicy") }

    public func setOfferPolicy(_ policy: OfferSigningPolicy) throws(StoreError) {
        try policy.check()
        try setSetting("offerPolicy", policy)
    }

    public func appAccountTokens() throws(StoreError) -> [String: String] { try setting("appAccountTokens") ?? [:] }

    public func setAppAccountToken(_ token: String, original: String) throws(StoreError) {
        try updateSetting("appAccountTokens", lock: "app-account-tokens:", empty: [String: String]()) { tokens in
            tokens.merging([original: token]) { $1 }
        }
    }

    public func adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date) throws(StoreError) {
        guard clockRate != nil || billing != nil else { return }
        try transaction { connection in
            try query(connection, "SELECT pg_advisory_xact_lock(7305816)")
            guard try query(connection, "SELECT key FROM setting WHERE key IN ('clock', 'billing')").isEmpty else {
                return
            }
            if let clockRate {
                try query(
                    connection,
                    """
                    INSERT INTO setting (key, value)
                    VALUES ('clock', \(Self.json(ClockSetting.standard.accelerated(rate: clockRate, real: real))))
                    """
                )
            }
            try query(
                connection,
                "INSERT INTO setting (key, value) VALUES ('billing', \(Self.json(billing ?? BillingSetting())))")
        }
    }
}

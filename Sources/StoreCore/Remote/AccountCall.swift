// The account server's interface as messages (W1): what a device asks `storefront serve` over
// HTTP, one call a request (`POST /storefront/v1/call`, JSON), and the answer's shape. Every
// AccountServer method a device uses has its call; the server checks the session for each (W6).
import Foundation

public enum AccountCall: Codable, Sendable {
    /// Where `storefront serve` takes them.
    public static let path = "/storefront/v1/call"

    // Accounts (W2): no session needed; the answer carries one.
    case signUp(name: String, password: String, device: String)
    case signIn(name: String, password: String, device: String)
    case signOut
    case deviceSessions(account: String)
    case revokeDeviceSession(account: String, id: String)
    // The receipt and plans of an account: that account's session only (A7, W6).
    case record(ReceiptEntry, timeZone: String)
    case receiptEntry(transactionID: String)
    case receipt(account: String)
    case receiptState(account: String)
    case storedExpiry(account: String)
    case ownedProducts(account: String)
    case plans(account: String)
    case planLines(account: String, from: Int)
    /// Adds plan lines if the plans are still `expected` (the device computed the lines from
    /// them); otherwise nothing, and the device computes again (W3).
    case addPlanLines(account: String, expected: [String: PlanState], lines: [ReceiptEntry])
    case accountsWithPlans
    case claim(key: String, account: String, limit: Int)
    case claims(key: String)
    case addOfferCodes([OfferCode])
    case offerCode(String)
    case offerCodes
    /// The keys' public halves and issuer id (O2: devices check offer signatures).
    case apiKeyring
    case priceChanges
    case setPriceChange(PriceChange)
    case families
    case setFamilies([Family])
    case enqueue([ServerNotification])
    case hasNotification(key: String)
    case notifications(account: String?)
    // Settings every device shares (W7): read by anyone, changed by a signed-in device.
    case changeStamp
    case clockSetting
    case setClockSetting(ClockSetting)
    case billingSetting
    case setBillingSetting(BillingSetting)
    case appIdentity
    case setAppIdentity(AppIdentity)
    case simulatedErrors
    case setSimulatedErrors(SimulatedErrors)
    case webhook
    case setWebhook(Webhook?)
    case recentRequests(limit: Int)
    case adoptDefaults(clockRate: Double?, billing: BillingSetting?, real: Date)

    /// Changes what every device sees: needs a signed-in device.
    package var changesSettings: Bool {
        switch self {
        case .setClockSetting, .setBillingSetting, .setAppIdentity, .setSimulatedErrors, .setWebhook, .addOfferCodes, .setPriceChange, .setFamilies: true
        default: false
        }
    }

    /// The account whose session the call needs, if it names one.
    package var account: String? {
        switch self {
        case .record(let entry, _): entry.account
        case .receipt(let account), .receiptState(let account), .storedExpiry(let account), .ownedProducts(let account),
             .plans(let account), .planLines(let account, _), .addPlanLines(let account, _, _):
            account
        case .notifications(let account): account
        case .claim(_, let account, _): account
        case .deviceSessions(let account), .revokeDeviceSession(let account, _): account
        default: nil
        }
    }
}

/// An error the server answers with, as the device shows it.
package struct AccountCallError: Codable, Sendable {
    package var kind: String
    package var name: String?
    package var text: String

    package init(_ error: StoreError) {
        text = error.description
        switch error {
        case .accountExists(let name): (kind, self.name) = ("accountExists", name)
        case .unknownAccount(let name): (kind, self.name) = ("unknownAccount", name)
        case .wrongPassword(let name): (kind, self.name) = ("wrongPassword", name)
        case .invalidAccountName(let name): (kind, self.name) = ("invalidAccountName", name)
        case .emptyPassword: kind = "emptyPassword"
        case .planRefused(let text): (kind, self.name) = ("planRefused", text)
        case .offerCodeExists(let code): (kind, self.name) = ("offerCodeExists", code)
        default: kind = "storage"
        }
    }

    package init(kind: String, text: String) {
        self.kind = kind
        self.text = text
    }

    /// The error on the device; `server` names where it came from.
    package func storeError(server: String) -> StoreError {
        switch kind {
        case "accountExists": .accountExists(name ?? "")
        case "unknownAccount": .unknownAccount(name ?? "")
        case "wrongPassword": .wrongPassword(name ?? "")
        case "invalidAccountName": .invalidAccountName(name ?? "")
        case "emptyPassword": .emptyPassword
        case "planRefused": .planRefused(name ?? text)
        case "offerCodeExists": .offerCodeExists(name ?? "")
        case "session": .sessionRefused(server: server, reason: text)
        default: .storage(path: server, reason: text)
        }
    }
}

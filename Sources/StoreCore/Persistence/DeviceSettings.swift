// The device's own settings, kept in its `meta` table as text, each read through a key that knows
// its type: a stored value that does not read as that type is a corrupt database (P2), never
// quietly a default. Absent is absent (nil), which each reader turns into its default.
import Foundation
import StoreModel

struct DeviceSetting<Value>: Sendable {
    let name: String
    /// What it is, for the corrupt-database message.
    let meaning: String
    let decode: @Sendable (String) -> Value?
    let encode: @Sendable (Value) -> String
}

extension DeviceSetting where Value == String {
    static let currentUser = DeviceSetting(
        name: "currentUser", meaning: "the signed-in account", decode: { $0 }, encode: { $0 })
    /// O7: set while a request made here waits for this device's policy to answer it (a crash
    /// between is answered at the next start).
    static let refundAwaitingPolicy = DeviceSetting(
        name: "refundAwaitingPolicy", meaning: "the refund request waiting", decode: { $0.isEmpty ? nil : $0 },
        encode: { $0 }
    )
}

extension DeviceSetting where Value == PurchaseOutcome {
    static let policy = DeviceSetting(
        name: "policy", meaning: "the policy", decode: { try? PurchaseOutcome(parsing: $0) }, encode: { $0.description }
    )
}

extension DeviceSetting where Value == RefundPolicy {
    static let refundPolicy = DeviceSetting(
        name: "refundPolicy", meaning: "the refund policy", decode: RefundPolicy.init(rawValue:), encode: \.rawValue)
}

extension DeviceSetting where Value == Int {
    /// Q6: how many of the account's plan lines this device has read.
    static func planLinesSeen(_ account: String) -> DeviceSetting {
        DeviceSetting(
            name: "planLinesSeen:" + account.lowercased(), meaning: "the plan lines read",
            decode: { Int($0).flatMap { $0 >= 0 ? $0 : nil } }, encode: { String($0) }
        )
    }
}

extension DeviceSetting where Value == [String: String] {
    /// W17: the device tokens team servers gave this device, by account (lowercased); kept after
    /// signing out, so that the device is known when it signs in again.
    static let deviceTokens = DeviceSetting(
        name: "deviceTokens", meaning: "the kept device tokens",
        decode: { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) },
        encode: { (try? JSONEncoder().encode($0)).map { String(decoding: $0, as: UTF8.self) } ?? "{}" }
    )
}

extension DeviceSetting where Value == [String: AccountSession] {
    /// W2: the sessions a remote account server gave this device, by account (lowercased).
    static let serverSessions = DeviceSetting(
        name: "serverSessions", meaning: "the kept server sessions",
        decode: { try? JSONDecoder().decode([String: AccountSession].self, from: Data($0.utf8)) },
        encode: { (try? JSONEncoder().encode($0)).map { String(decoding: $0, as: UTF8.self) } ?? "{}" }
    )
}

// How renewals are charged (billing retry and the grace period), as the account
// server is set and the command line and scenarios write it.
import Foundation

/// How renewals are charged, as the account server is set (`storefront billing`, `storefront grace`).
public struct BillingSetting: Sendable, Equatable, Codable {
    /// Renewals fail to charge (an expired card): billing retry.
    public var failing: Bool
    /// Access kept after a failed renewal; nil turns the billing grace period off.
    public var graceDays: Int?

    public init(failing: Bool = false, graceDays: Int? = nil) {
        self.failing = failing
        self.graceDays = graceDays
    }

    /// The grace period `on` means, and the one a `.storekit` file's switch turns on.
    public static let defaultGraceDays = 16

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// `ok` → false, `fail` (or `failing`) → true, as the command line and scenarios write it.
    public static func failing(parsing text: String) throws(ParseError) -> Bool {
        switch text.lowercased() {
        case "ok": return false
        case "fail", "failing": return true
        default: throw ParseError(description: "billing takes ok or fail, not \"\(text)\"")
        }
    }

    /// `off` → nil, `on` → 16, `3d` or `3` → 3 (1 to 60 days).
    public static func graceDays(parsing text: String) throws(ParseError) -> Int? {
        let lower = text.lowercased()
        if lower == "off" { return nil }
        if lower == "on" { return defaultGraceDays }
        guard let days = Int(lower.hasSuffix("d") ? String(lower.dropLast()) : lower), (1...60).contains(days) else {
            throw ParseError(description: "grace takes off, on or a number of days from 1d to 60d, not \"\(text)\"")
        }
        return days
    }
}

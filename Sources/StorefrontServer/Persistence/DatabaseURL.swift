// W12: where a team server's PostgreSQL URL comes from — an option, else the environment, which
// is where a URL with a password belongs (options show in the process list).
import Foundation
import StoreModel

public enum DatabaseURL {
    /// The environment variable `storefront serve` and `storefront-server` read, and the one
    /// `serve` hands the URL to the server in.
    public static let variable = "STOREFRONT_DATABASE_URL"

    /// The URL `option` names, else a non-empty `$STOREFRONT_DATABASE_URL`; nil for SQLite.
    public static func given(_ option: String?) -> String? {
        option ?? ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }
}

// The developer's credential on a team server (W9): `storefront serve` makes it on first start, in
// the state folder, owner-only; `storefront developer-token` prints it on the server's machine and
// `--rotate` replaces it. A device acts as the developer when it is given the token
// (STOREFRONT_DEVELOPER_TOKEN, or --developer-token-file); without one it is a customer.
import Foundation
import StoreModel

public enum DeveloperToken {
    static let secret = StateSecret(name: "developer-token", title: "the developer token") {
        "sfdev_" + SessionToken.make()
    }

    /// The file that holds it.
    public static func file(in state: StateDirectory) -> URL { secret.file(in: state) }

    /// The state folder's token, made (owner-only) if there is none yet, or anew with `rotate`.
    public static func current(in state: StateDirectory, rotate: Bool = false) throws(StoreError) -> String {
        try secret.current(in: state, rotate: rotate)
    }

    /// The token in a file, nil when there is none.
    public static func read(_ url: URL) -> String? { StateSecret.read(url) }

    /// Compares in time that does not depend on where the two differ.
    public static func matches(_ given: String?, _ expected: String) -> Bool { StateSecret.matches(given, expected) }
}

// The app's shared secrets (V10): what a backend sends as `password` with a receipt that holds
// auto-renewable subscriptions. App Store Connect has two that both work: the app-specific one and
// the primary one of the whole account. Each is 32 hexadecimal characters, kept in the server's
// state folder; `storefront shared-secret` prints one (made on first use), `--rotate` replaces it.
import Foundation
import StoreModel

public enum SharedSecret: String, CaseIterable, Sendable {
    case appSpecific = "shared-secret"
    case primary = "shared-secret-primary"

    var secret: StateSecret {
        StateSecret(
            name: rawValue, title: self == .primary ? "the primary shared secret" : "the app-specific shared secret"
        ) {
            var generator = SystemRandomNumberGenerator()
            return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
                .joined()
        }
    }

    /// This secret of the state folder, made on first use, or anew with `rotate`.
    public func current(in state: StateDirectory, rotate: Bool = false) throws(StoreError) -> String {
        try secret.current(in: state, rotate: rotate)
    }

    /// Whether `password` is one of the state folder's secrets, as they are now (one not made yet
    /// matches nothing).
    public static func accepts(_ password: String, in state: StateDirectory) -> Bool {
        allCases.contains { kind in
            StateSecret.read(kind.secret.file(in: state)).map { StateSecret.matches(password, $0) } ?? false
        }
    }
}

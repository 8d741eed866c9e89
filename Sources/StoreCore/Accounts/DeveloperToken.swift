// The developer's credential on a team server (W9): `storefront serve` makes it on first start, in
// the state folder, owner-only; `storefront developer-token` prints it on the server's machine and
// `--rotate` replaces it. A device acts as the developer when it is given the token
// (STOREFRONT_DEVELOPER_TOKEN, or --developer-token-file); without one it is a customer.
import Crypto
import Foundation

public enum DeveloperToken {
    /// The file that holds it.
    public static func file(in state: StateDirectory) -> URL { state.url.appendingPathComponent("developer-token") }

    /// The state folder's token, made (owner-only) if there is none yet, or anew with `rotate`.
    public static func current(in state: StateDirectory, rotate: Bool = false) throws(StoreError) -> String {
        let url = file(in: state)
        if !rotate, let kept = read(url) { return kept }
        try state.prepare()
        let token = "sfdev_" + SessionToken.make()
        // Written beside, then renamed: a reader sees the old token or the new one, never half.
        let staging = url.appendingPathExtension("new")
        try? FileManager.default.removeItem(at: staging)
        guard FileManager.default.createFile(atPath: staging.path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw StoreError.storage(path: url.path, reason: "cannot write the developer token")
        }
        guard rename(staging.path, url.path) == 0 else {
            throw StoreError.storage(path: url.path, reason: "cannot write the developer token (\(String(cString: strerror(errno))))")
        }
        return token
    }

    /// The token in a file, nil when there is none.
    public static func read(_ url: URL) -> String? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Compares in time that does not depend on where the two differ.
    public static func matches(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        return SHA256.hash(data: Data(given.utf8)) == SHA256.hash(data: Data(expected.utf8))
    }
}

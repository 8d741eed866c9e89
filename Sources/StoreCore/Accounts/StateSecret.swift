// A secret the developer keeps in the server's state folder, owner-only: the developer token (W9)
// and the app's shared secrets (V10). Made on first use, replaced whole by `rotate`, and read
// again on each use, so that a rotated one stops working at once.
import Crypto
import Foundation
import StoreModel

public struct StateSecret: Sendable {
    /// The file's name in the state folder.
    public let name: String
    /// What the secret is, for messages: "the developer token".
    public let title: String
    /// Makes a new value.
    let make: @Sendable () -> String

    public init(name: String, title: String, make: @escaping @Sendable () -> String) {
        self.name = name
        self.title = title
        self.make = make
    }

    /// The file that holds it.
    public func file(in state: StateDirectory) -> URL { state.url.appendingPathComponent(name) }

    /// The state folder's value, made (owner-only) if there is none yet, or anew with `rotate`.
    public func current(in state: StateDirectory, rotate: Bool = false) throws(StoreError) -> String {
        let url = file(in: state)
        if !rotate, let kept = Self.read(url) { return kept }
        try state.prepare()
        let value = make()
        // Written beside, then renamed: a reader sees the old value or the new one, never half.
        let staging = url.appendingPathExtension("new")
        try? FileManager.default.removeItem(at: staging)
        guard
            FileManager.default.createFile(
                atPath: staging.path, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw StoreError.storage(path: url.path, reason: "cannot write \(title)")
        }
        guard rename(staging.path, url.path) == 0 else {
            throw StoreError.storage(
                path: url.path, reason: "cannot write \(title) (\(String(cString: strerror(errno))))")
        }
        return value
    }

    /// The value in a file, nil when there is none.
    public static func read(_ url: URL) -> String? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// Compares in time that does not depend on where the two differ.
    public static func matches(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        return SHA256.hash(data: Data(given.utf8)) == SHA256.hash(data: Data(expected.utf8))
    }
}

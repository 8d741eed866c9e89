// Passwords are kept only as salted, slow hashes (A1): scrypt from swift-crypto's _CryptoExtras.
import Crypto
import Foundation
import StoreModel
import _CryptoExtras

public struct PasswordHasher: Sendable {
    /// scrypt's N. 2^15 with r = 8 costs 32 MiB and tens of milliseconds: slow for a guesser.
    public var cost: Int
    /// Counts the keys derived, for a test that checks which answers cost a password check.
    let derived: Locked<Int>?

    public init(cost: Int = 1 << 15) {
        self.cost = cost
        derived = nil
    }

    /// A hasher that counts its work in `derived`.
    package init(cost: Int, counting derived: Locked<Int>) {
        self.cost = cost
        self.derived = derived
    }

    /// A fast hasher for tests that create many accounts; never used by the program.
    public static let fastForTests = PasswordHasher(cost: 1 << 4)

    /// "scrypt$N$r$p$salt$hash", salt and hash in base64.
    public func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &generator) }
        let key = try derive(password, salt: salt, cost: cost)
        return "scrypt$\(cost)$8$1$\(Data(salt).base64EncodedString())$\(key.base64EncodedString())"
    }

    /// True when `password` matches `stored`; compares in constant time.
    public func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let cost = Int(parts[1]),
            let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
            let actual = try? derive(password, salt: [UInt8](salt), cost: cost), actual.count == expected.count
        else { return false }
        return zip(actual, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Checks `password` against a hash of nothing at this hasher's cost, and says no: a sign-in
    /// for a name with no account then takes as long as a wrong password, so that timing does not
    /// tell which names exist.
    public func verifyForNoAccount(_ password: String) {
        let salt = [UInt8](repeating: 0, count: 16)
        _ = try? derive(password, salt: salt, cost: cost)
    }

    private func derive(_ password: String, salt: [UInt8], cost: Int) throws -> Data {
        BlockingWatch.check("scrypt (N = \(cost))")
        derived?.withLock { $0 += 1 }
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: cost, blockSize: 8, parallelism: 1
        )
        return key.withUnsafeBytes { Data($0) }
    }
}

// JWS in compact serialization with ES256 (RFC 7515, RFC 7518 §3.4), as Apple signs StoreKit and
// App Store Server data: a header with `alg` and `x5c` (leaf, intermediate, root; standard base64
// DER), the payload, and the raw 64-byte r‖s P-256 signature, each part base64url without padding.
// docs/decisions/0009 says why this is ours over swift-crypto, not jwt-kit.
import Crypto
import Foundation
import StoreModel

public enum JWS {
    /// Signs `payload` (a JSON object) with `key`, carrying `chain` (DER certificates, leaf first).
    public static func sign(_ payload: [String: Any], key: P256.Signing.PrivateKey, chain: [Data]) throws -> String {
        try sign(payload, key: key, headerPart: header(chain: chain))
    }

    /// The encoded header of a chain's JWS (`alg` ES256, `x5c`), made once per chain by a signer.
    public static func header(chain: [Data]) -> [UInt8] {
        Base64URL.encode(
            CompactJSON.encode(["alg": "ES256", "x5c": chain.map { $0.base64EncodedString() }] as [String: Any]))
    }

    static func sign(_ payload: [String: Any], key: P256.Signing.PrivateKey, headerPart: [UInt8]) throws -> String {
        var input = headerPart
        input.append(UInt8(ascii: "."))
        input += Base64URL.encode(CompactJSON.encode(payload))
        let signature = try key.signature(for: input)
        input.append(UInt8(ascii: "."))
        input += Base64URL.encode(signature.rawRepresentation)
        return String(decoding: input, as: UTF8.self)
    }

    /// A JWS's parts decoded, without verifying anything: for showing what was signed.
    public struct Decoded {
        public let header: [String: Any]
        public let payload: [String: Any]
        public let signature: Data
        public let signingInput: Data

        /// True when the raw r‖s signature verifies with `key` over the header and payload.
        public func isSigned(by key: P256.Signing.PublicKey) -> Bool {
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: signingInput)
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self {
            case .malformed(let why): "not a JWS: \(why)"
            }
        }
    }

    public static func decode(_ jws: String) throws(Failure) -> Decoded {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three parts separated by dots, found \(parts.count)") }
        guard let headerData = data(base64URL: parts[0]), let payloadData = data(base64URL: parts[1]),
            let signature = data(base64URL: parts[2])
        else { throw .malformed("a part is not base64url") }
        guard let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let payload = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any]
        else { throw .malformed("the header or payload is not a JSON object") }
        return Decoded(
            header: header, payload: payload, signature: signature, signingInput: Data("\(parts[0]).\(parts[1])".utf8))
    }

    /// True when `jws` is signed by `key` (the signature only; chains are the verifier's business).
    public static func isSigned(_ jws: String, by key: P256.Signing.PublicKey) -> Bool {
        (try? decode(jws))?.isSigned(by: key) ?? false
    }

    /// Why a developer's JWT is refused before its key is looked up.
    public enum KeyedFailure: Error, Equatable {
        case malformed(String)
        case notES256
        case noKeyID
    }

    /// The one verifier of the JWTs a developer signs with an App Store Connect key: the Server
    /// API's bearer tokens (APIToken) and promotional offers' V2 JWS (PromotionalOfferSignature).
    /// Decodes `token` and checks it is ES256 with a `kid`; `key` finds that key (refusing in the
    /// caller's own words: unknown, revoked, of the wrong type), and the signature is verified with
    /// it. The claims are the caller's to check.
    public static func verify<Refusal: Error>(
        keyed token: String, refusing: (KeyedFailure) -> Refusal, badSignature: (String) -> Refusal,
        key: (String) throws(Refusal) -> APIKey
    ) throws(Refusal) -> (key: APIKey, claims: [String: Any]) {
        let decoded: Decoded
        do { decoded = try decode(token) } catch { throw refusing(.malformed(error.description)) }
        guard decoded.header["alg"] as? String == "ES256" else { throw refusing(.notES256) }
        guard let keyID = decoded.header["kid"] as? String else { throw refusing(.noKeyID) }
        let found = try key(keyID)
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: found.publicKey),
            decoded.isSigned(by: publicKey)
        else {
            throw badSignature(keyID)
        }
        return (found, decoded.payload)
    }

    public static func base64URL(_ data: Data) -> String { String(decoding: Base64URL.encode(data), as: UTF8.self) }

    public static func data(base64URL text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

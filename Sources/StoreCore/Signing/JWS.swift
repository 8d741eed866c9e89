// JWS in compact serialization with ES256 (RFC 7515, RFC 7518 §3.4), as Apple signs StoreKit and
// App Store Server data: a header with `alg` and `x5c` (leaf, intermediate, root; standard base64
// DER), the payload, and the raw 64-byte r‖s P-256 signature, each part base64url without padding.
// DECISIONS.md says why this is a page of our own over swift-crypto rather than jwt-kit.
import Crypto
import Foundation

public enum JWS {
    /// Signs `payload` (a JSON object) with `key`, carrying `chain` (DER certificates, leaf first).
    public static func sign(_ payload: [String: Any], key: P256.Signing.PrivateKey, chain: [Data]) throws -> String {
        try sign(payload, key: key, headerPart: header(chain: chain))
    }

    /// The encoded header of a chain's JWS (`alg` ES256, `x5c`), made once per chain by a signer.
    public static func header(chain: [Data]) -> [UInt8] {
        Base64URL.encode(CompactJSON.encode(["alg": "ES256", "x5c": chain.map { $0.base64EncodedString() }] as [String: Any]))
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
        return Decoded(header: header, payload: payload, signature: signature, signingInput: Data("\(parts[0]).\(parts[1])".utf8))
    }

    /// True when `jws` is signed by `key` (the signature only; chains are the verifier's business).
    public static func isSigned(_ jws: String, by key: P256.Signing.PublicKey) -> Bool {
        guard let decoded = try? decode(jws), let signature = try? P256.Signing.ECDSASignature(rawRepresentation: decoded.signature) else {
            return false
        }
        return key.isValidSignature(signature, for: decoded.signingInput)
    }

    public static func base64URL(_ data: Data) -> String { String(decoding: Base64URL.encode(data), as: UTF8.self) }

    public static func data(base64URL text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

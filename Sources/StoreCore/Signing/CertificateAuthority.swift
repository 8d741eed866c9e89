// A state folder's own certificate authority (S1): a root, an intermediate marked as Apple marks
// its WWDR intermediate (OID 1.2.840.113635.100.6.2.1) and a leaf marked as Apple marks the key that
// signs StoreKit data (1.2.840.113635.100.6.11.1), ECDSA P-256. Apple's server library checks those
// marks and the chain at the payload's `signedDate`, so a backend that trusts our root verifies our
// data with every check on. Made on first use in `ca/` (owner-only), staged and renamed into place so
// that two programs starting together end up with one authority.
import Crypto
import Foundation
import StoreModel
import SwiftASN1
import X509

public final class CertificateAuthority: Sendable {
    /// DER certificates, leaf first: the `x5c` of every JWS.
    public let chain: [Data]
    public let rootDER: Data
    let signingKey: P256.Signing.PrivateKey
    /// Signs the leaves of the deliberately broken chains (S5).
    let intermediateKey: P256.Signing.PrivateKey

    public static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]
    public static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    /// Valid over every date the store clock is likely to show (the verifier checks at `signedDate`).
    static let notBefore = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
    static let notAfter = Date(timeIntervalSince1970: 4_102_444_799)  // 2099-12-31T23:59:59Z

    /// The encoded JWS header of this chain, made once.
    let headerPart: [UInt8]

    init(chain: [Data], signingKey: P256.Signing.PrivateKey, intermediateKey: P256.Signing.PrivateKey) {
        self.chain = chain
        headerPart = JWS.header(chain: chain)
        rootDER = chain[chain.count - 1]
        self.signingKey = signingKey
        self.intermediateKey = intermediateKey
    }

    /// Signs `payload` as a JWS whose `x5c` is this authority's chain.
    public func sign(_ payload: [String: Any]) throws(StoreError) -> String {
        do {
            return try JWS.sign(payload, key: signingKey, headerPart: headerPart)
        } catch {
            throw StoreError.storage(path: "signing", reason: "\(error)")
        }
    }

    /// Signs a typed payload (Payloads.swift).
    public func sign(_ payload: some SignedPayload) throws(StoreError) -> String {
        try sign(payload.fields)
    }

    /// How a signature is made to fail verification on purpose (S5), one way at a time.
    public enum Breakage: String, Sendable, CaseIterable {
        /// A well-formed signature over other bytes.
        case signature
        /// A chain of two certificates, the root left out.
        case chain
        /// A leaf that expired long before the data was signed.
        case expired
        /// A leaf without Apple's StoreKit signing marker.
        case oid
    }

    /// Signs `payload`, broken as `breakage` says.
    public func sign(_ payload: [String: Any], breaking breakage: Breakage?) throws(StoreError) -> String {
        guard let breakage else { return try sign(payload) }
        do {
            switch breakage {
            case .signature:
                let good = try JWS.sign(payload, key: signingKey, chain: chain)
                let other = try signingKey.signature(for: Data("not what was signed".utf8))
                return good.split(separator: ".").prefix(2).joined(separator: ".") + "."
                    + JWS.base64URL(other.rawRepresentation)
            case .chain:
                return try JWS.sign(payload, key: signingKey, chain: Array(chain.prefix(2)))
            case .expired, .oid:
                let (key, leaf) = try mintLeaf(expired: breakage == .expired, marked: breakage != .oid)
                return try JWS.sign(payload, key: key, chain: [leaf, chain[1], chain[2]])
            }
        } catch {
            throw StoreError.storage(path: "signing", reason: "\(error)")
        }
    }

    /// A leaf under the intermediate, expired in 2000 or without the marker OID.
    func mintLeaf(expired: Bool, marked: Bool) throws -> (P256.Signing.PrivateKey, Data) {
        let key = P256.Signing.PrivateKey()
        let intermediate = try Certificate(derEncoded: Array(chain[1]))
        let publicKey = Certificate.PublicKey(key.publicKey)
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: publicKey, notValidBefore: Self.notBefore,
            notValidAfter: expired ? Self.notBefore.addingTimeInterval(86_400) : Self.notAfter,
            issuer: intermediate.subject,
            subject: try DistinguishedName {
                CommonName(expired ? "Storefront Expired Leaf" : "Storefront Unmarked Leaf")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(
                    keyIdentifier: SubjectKeyIdentifier(hash: Certificate.PublicKey(intermediateKey.publicKey))
                        .keyIdentifier)
                if marked { Certificate.Extension(oid: Self.leafMarker, critical: false, value: [0x05, 0x00]) }
            },
            issuerPrivateKey: .init(intermediateKey)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(leaf)
        return (key, Data(serializer.serializedBytes))
    }

    /// The root as PEM, for a backend's trust store.
    public var rootPEM: String { Self.pem(der: rootDER) }

    /// A certificate in DER as PEM.
    public static func pem(der: Data) -> String {
        let lines = der.base64EncodedString().chunked(64)
        return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
    }

    // MARK: On disk

    static let files = ["root.der", "intermediate.der", "leaf.der", "leaf.key", "intermediate.key"]

    /// The authority of `folder` (`STATE/ca`), made now if there is none. A folder with some of the
    /// files but not all, or files that do not parse, is reported, never replaced (P2).
    public static func open(in folder: URL) throws(StoreError) -> CertificateAuthority {
        let manager = FileManager.default
        if !manager.fileExists(atPath: folder.path) {
            let staging = folder.deletingLastPathComponent().appendingPathComponent(
                ".ca-\(getpid())-\(UUID().uuidString.prefix(8))")
            defer { try? manager.removeItem(at: staging) }
            do {
                try manager.createDirectory(
                    at: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let made = try make()
                for (name, data) in zip(files, made) {
                    let url = staging.appendingPathComponent(name)
                    guard manager.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600])
                    else {
                        throw StoreError.storage(path: url.path, reason: "cannot be written")
                    }
                }
                try manager.moveItem(at: staging, to: folder)
            } catch  where manager.fileExists(atPath: folder.appendingPathComponent("leaf.key").path) {
                // Another program made it first: use that one.
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError.storage(path: folder.path, reason: "cannot make the certificate authority (\(error))")
            }
        }
        var contents: [Data] = []
        for name in files {
            let url = folder.appendingPathComponent(name)
            guard let data = manager.contents(atPath: url.path) else {
                throw StoreError.corruptDatabase(path: url.path, reason: "the certificate authority is missing \(name)")
            }
            contents.append(data)
        }
        do {
            for der in contents.prefix(3) { _ = try Certificate(derEncoded: Array(der)) }
            let key = try P256.Signing.PrivateKey(derRepresentation: contents[3])
            let intermediateKey = try P256.Signing.PrivateKey(derRepresentation: contents[4])
            return CertificateAuthority(
                chain: [contents[2], contents[1], contents[0]], signingKey: key, intermediateKey: intermediateKey)
        } catch {
            throw StoreError.corruptDatabase(
                path: folder.path, reason: "the certificate authority does not parse (\(error))")
        }
    }

    /// A new root, intermediate and leaf: their DER, then the leaf's and the intermediate's keys.
    static func make() throws -> [Data] {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CommonName("Storefront Local Root CA")
            OrganizationName("Storefront (local testing)")
            CountryName("US")
        }
        let intermediateName = try DistinguishedName {
            CommonName("Storefront Local Worldwide Developer Relations CA")
            OrganizationName("Storefront (local testing)")
            CountryName("US")
        }
        let leafName = try DistinguishedName {
            CommonName("Storefront Local StoreKit Signing")
            OrganizationName("Storefront (local testing)")
            CountryName("US")
        }
        let rootPublic = Certificate.PublicKey(rootKey.publicKey)
        let intermediatePublic = Certificate.PublicKey(intermediateKey.publicKey)
        let leafPublic = Certificate.PublicKey(leafKey.publicKey)
        let null: ArraySlice<UInt8> = [0x05, 0x00]
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: rootPublic, notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: rootPublic)
            },
            issuerPrivateKey: .init(rootKey)
        )
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: intermediatePublic, notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: intermediatePublic)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublic).keyIdentifier)
                Certificate.Extension(oid: intermediateMarker, critical: false, value: null)
            },
            issuerPrivateKey: .init(rootKey)
        )
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: leafPublic, notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(hash: leafPublic)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediatePublic).keyIdentifier)
                Certificate.Extension(oid: leafMarker, critical: false, value: null)
            },
            issuerPrivateKey: .init(intermediateKey)
        )
        func der(_ certificate: Certificate) throws -> Data {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return Data(serializer.serializedBytes)
        }
        return [
            try der(root), try der(intermediate), try der(leaf), leafKey.derRepresentation,
            intermediateKey.derRepresentation,
        ]
    }
}

extension String {
    func chunked(_ size: Int) -> [String] {
        var chunks: [String] = []
        var rest = Substring(self)
        while !rest.isEmpty {
            chunks.append(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return chunks
    }
}

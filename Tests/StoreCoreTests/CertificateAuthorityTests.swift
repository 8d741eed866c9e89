// S1: the state folder's certificate authority — made once, owner-only, Apple's marker OIDs where
// Apple's verifier looks for them, a chain that verifies, and a damaged authority reported, never
// replaced. (Apple's own library judges the signed data in EndToEndTests/SignedDataTests.)
import Crypto
import Foundation
import SwiftASN1
import TestSupport
import Testing
import X509

@testable import StoreCore
@testable import StoreModel

@Suite("Certificate authority")
struct CertificateAuthorityTests {
    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("storefront-ca-\(UUID().uuidString)")
    }

    @Test("S1 made on first use, owner-only; opened again it is the same authority")
    func madeOnce() throws {
        let parent = folder()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let ca = parent.appendingPathComponent("ca")
        let first = try CertificateAuthority.open(in: ca)
        let second = try CertificateAuthority.open(in: ca)
        #expect(first.chain == second.chain && first.rootDER == second.rootDER)
        let mode = try FileManager.default.attributesOfItem(atPath: ca.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        for name in CertificateAuthority.files {
            let fileMode =
                try FileManager.default.attributesOfItem(atPath: ca.appendingPathComponent(name).path)[
                    .posixPermissions] as? Int
            #expect(fileMode == 0o600, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["ca"], "no staging folder left")
        #expect(
            first.rootPEM.hasPrefix("-----BEGIN CERTIFICATE-----\n")
                && first.rootPEM.hasSuffix("-----END CERTIFICATE-----\n"))
    }

    @Test("S1 the chain: Apple's marker OIDs on the intermediate and the leaf, CA constraints, each signed by the next")
    func chain() async throws {
        let parent = folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let authority = try CertificateAuthority.open(in: parent.appendingPathComponent("ca"))
        let leaf = try Certificate(derEncoded: Array(authority.chain[0]))
        let intermediate = try Certificate(derEncoded: Array(authority.chain[1]))
        let root = try Certificate(derEncoded: Array(authority.chain[2]))
        #expect(leaf.extensions[oid: CertificateAuthority.leafMarker] != nil)
        #expect(intermediate.extensions[oid: CertificateAuthority.intermediateMarker] != nil)
        #expect(leaf.extensions[oid: CertificateAuthority.intermediateMarker] == nil)
        #expect(try intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        #expect(
            root.subject == root.issuer && intermediate.issuer == root.subject && leaf.issuer == intermediate.subject)
        var verifier = Verifier(rootCertificates: CertificateStore([root])) {
            RFC5280Policy(validationTime: Date(timeIntervalSince1970: 1_768_478_400))
        }
        let result = await verifier.validate(leafCertificate: leaf, intermediates: CertificateStore([intermediate]))
        guard case .validCertificate = result else {
            Issue.record("the chain does not verify: \(result)")
            return
        }
        let jws = try authority.sign(["transactionId": "2000000000000001"])
        #expect(
            JWS.isSigned(
                jws, by: try P256.Signing.PublicKey(pemRepresentation: leaf.publicKey.serializeAsPEM().pemString)))
        let decoded = try JWS.decode(jws)
        #expect(decoded.header["alg"] as? String == "ES256" && (decoded.header["x5c"] as? [String])?.count == 3)
    }

    @Test("P2 a damaged authority is reported as corrupt and left as it was")
    func damaged() throws {
        let parent = folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let ca = parent.appendingPathComponent("ca")
        _ = try CertificateAuthority.open(in: ca)
        try Data("not a certificate".utf8).write(to: ca.appendingPathComponent("leaf.der"))
        #expect(throws: StoreError.self) { try CertificateAuthority.open(in: ca) }
        #expect(try Data(contentsOf: ca.appendingPathComponent("leaf.der")) == Data("not a certificate".utf8))
        try FileManager.default.removeItem(at: ca.appendingPathComponent("root.der"))
        do {
            _ = try CertificateAuthority.open(in: ca)
            Issue.record("opened without its root")
        } catch {
            #expect(error.description.contains("missing root.der"), "\(error)")
        }
    }

    @Test("S2 units: milliseconds and milliunits, exactly")
    func units() {
        #expect(SignedUnits.milliseconds(Date(timeIntervalSince1970: 1_768_478_400.5)) == 1_768_478_400_500)
        #expect(SignedUnits.milliunits(Decimal(string: "0.99")!) == 990)
        #expect(SignedUnits.milliunits(Decimal(string: "4900")!) == 4_900_000)
        #expect(SignedUnits.milliunits(Decimal(string: "1.2345")!) == 1235)
        #expect(TransactionID.make(42) == "2000000000000042" && TransactionID.make(UInt64.max).count == 16)
    }
}

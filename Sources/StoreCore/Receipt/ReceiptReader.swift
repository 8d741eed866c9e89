import Foundation
import StoreModel
import SwiftASN1
// Reading an app receipt back (V10): what verifyReceipt takes from the device. The PKCS #7
// envelope is checked against the store's root with swift-certificates' CMS verifier; its content
// is the DER SET of attributes that `AppReceipt.content()` writes.
@_spi(CMS) import X509

extension AppReceipt {
    /// What a receipt says about itself, as read from its signed content.
    public struct Contents: Sendable, Equatable {
        /// Its environment's raw value (Sandbox, Production …); nil when it names none.
        public var environment: AppIdentity.Environment?
        public var appTransactionID: String?
        public var bundleID: String?
        public var applicationVersion: String?
        public var originalApplicationVersion: String?
        public var created: Date?
        /// The transaction ids of its in-app purchase receipts, in the order they are written.
        public var transactionIDs: [String] = []
    }

    /// What checking a receipt found.
    public enum Check: Sendable, Equatable {
        /// Not a PKCS #7 SignedData holding a receipt (verifyReceipt's 21002).
        case malformed
        /// Well formed, but not signed by the store's chain (21003).
        case unauthenticated
        case valid(Contents)
    }

    /// Checks `der` against `root` (the store's root certificate, DER) at `time`.
    public static func check(_ der: Data, root: Data, at time: Date) async -> Check {
        guard let content = try? encapsulatedContent(Array(der)), let contents = try? Self.contents(of: content) else {
            return .malformed
        }
        guard let root = try? Certificate(derEncoded: Array(root)) else { return .unauthenticated }
        let result = await CMS.isValidAttachedSignature(
            signatureBytes: Array(der), trustRoots: CertificateStore([root])
        ) {
            RFC5280Policy(validationTime: time)
        }
        switch result {
        case .success: return .valid(contents)
        case .failure(.invalidCMSBlock): return .malformed
        case .failure: return .unauthenticated
        }
    }

    /// `check`, for a caller that cannot wait with `await` (a scenario's step): the check runs on a
    /// queue of its own, never on Swift's cooperative threads, which the caller may be holding.
    public static func checkWaiting(_ der: Data, root: Data, at time: Date) -> Check {
        let found = Locked<Check>(.malformed)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: ReceiptCheckExecutor.shared) {
            let result = await check(der, root: root, at: time)
            found.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return found.withLock { $0 }
    }

    /// The content a PKCS #7 SignedData carries: ContentInfo { OID, [0] SignedData { version,
    /// digest algorithms, EncapsulatedContentInfo { OID, [0] OCTET STRING }, … } }.
    static func encapsulatedContent(_ der: [UInt8]) throws -> [UInt8] {
        let info = try DER.parse(der)
        guard let signedData = try children(of: info).dropFirst().first.flatMap({ try children(of: $0).first }),
            let encapsulated = try children(of: signedData).dropFirst(2).first,
            let wrapped = try children(of: encapsulated).dropFirst().first, let octets = try children(of: wrapped).first
        else { throw ASN1Error.invalidASN1Object(reason: "not a PKCS #7 SignedData with content") }
        return Array(try ASN1OctetString(derEncoded: octets).bytes)
    }

    /// The receipt's attributes, read.
    static func contents(of content: [UInt8]) throws -> Contents {
        var contents = Contents()
        for (type, value) in try attributes(DER.parse(content)) {
            switch type {
            case 0: contents.environment = AppIdentity.Environment(rawValue: try text(value))
            case 2: contents.bundleID = try text(value)
            case 3: contents.applicationVersion = try text(value)
            case 12: contents.created = try Date(text(value), strategy: .iso8601)
            case 19: contents.originalApplicationVersion = try text(value)
            case customerAttribute: contents.appTransactionID = try text(value)
            case 17:
                for (inner, field) in try attributes(DER.parse(value)) where inner == 1703 {
                    contents.transactionIDs.append(try text(field))
                }
            default: break
            }
        }
        return contents
    }

    /// A SET of receipt attributes, as (type, the value's own DER).
    static func attributes(_ set: ASN1Node) throws -> [(Int, [UInt8])] {
        guard set.identifier == .set else { throw ASN1Error.unexpectedFieldType(set.identifier) }
        return try children(of: set).map { node in
            try DER.sequence(node, identifier: .sequence) { nodes in
                let type = try Int(derEncoded: &nodes)
                _ = try Int(derEncoded: &nodes)
                return (type, Array(try ASN1OctetString(derEncoded: &nodes).bytes))
            }
        }
    }

    /// A value written as a UTF8String or an IA5String.
    static func text(_ der: [UInt8]) throws -> String {
        let node = try DER.parse(der)
        if node.identifier == .ia5String { return String(try ASN1IA5String(derEncoded: node)) }
        return String(try ASN1UTF8String(derEncoded: node))
    }

    static func children(of node: ASN1Node) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw ASN1Error.unexpectedFieldType(node.identifier) }
        return Array(nodes)
    }
}

/// A serial queue of its own as a task executor: where `checkWaiting` runs the CMS verifier.
private final class ReceiptCheckExecutor: TaskExecutor {
    static let shared = ReceiptCheckExecutor()
    private let queue = DispatchQueue(label: "storefront.receipt-check")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

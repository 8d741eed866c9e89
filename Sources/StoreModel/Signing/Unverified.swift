// The ways signed data is made to fail verification on purpose (S5).
import Foundation

/// The ways signed data is made to fail verification (S5), by the simulated Verification error
/// (Q7) that asks for them.
public enum Unverified: String, Sendable, CaseIterable {
    case signature
    case bundleID = "bundle-id"
    case environment, chain, expired, oid

    /// VerificationResult.VerificationError cases, as Storefront breaks the data for each.
    public init?(verificationError: String) {
        switch verificationError.split(separator: ".").last.map(String.init) ?? verificationError {
        case "invalidSignature": self = .signature
        case "invalidCertificateChain": self = .chain
        case "revokedCertificate": self = .expired
        case "invalidEncoding": self = .oid
        case "invalidDeviceVerification": self = .bundleID
        case "missingRequiredProperties": self = .environment
        default: return nil
        }
    }

    /// The VerificationError case that asks for this way.
    public var verificationError: String {
        switch self {
        case .signature: "invalidSignature"
        case .chain: "invalidCertificateChain"
        case .expired: "revokedCertificate"
        case .oid: "invalidEncoding"
        case .bundleID: "invalidDeviceVerification"
        case .environment: "missingRequiredProperties"
        }
    }

    /// What a person reads beside the transaction.
    public var reason: String {
        switch self {
        case .signature: "the signature does not match"
        case .bundleID: "signed for another app's bundle id"
        case .environment: "signed for the other environment"
        case .chain: "the certificate chain lacks its root"
        case .expired: "the signing certificate had expired"
        case .oid: "the signing certificate is not a StoreKit one"
        }
    }
}

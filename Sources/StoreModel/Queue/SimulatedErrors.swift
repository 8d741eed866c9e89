// StoreKit's simulated errors (Q7): Xcode's `_storeKitErrors` and `SKTestSession`'s
// `setSimulatedError(_:forAPI:)` fail one API at a time with an error named as Apple names it.
// Each API fails its Storefront counterpart; see `StoreKitAPI.counterpart`.
import Foundation

/// The StoreKit APIs a test session can fail, by the names Xcode's editor and files use.
public enum StoreKitAPI: String, Sendable, Codable, CaseIterable, Comparable {
    case loadProducts = "Load Products"
    case purchase = "Purchase"
    case verification = "Verification"
    case appStoreSync = "App Store Sync"
    case subscriptionStatus = "Subscription Status"
    case appTransaction = "App Transaction"
    case manageSubscriptionsSheet = "Manage Subscriptions Sheet"
    case refundRequestSheet = "Refund Request Sheet"
    case offerCodeRedeemSheet = "Offer Code Redeem Sheet"
    /// Not StoreKit's: the legacy receipt validation service a backend calls (V10), which Apple's
    /// service fails with a status of its own.
    case verifyReceipt = "Verify Receipt"

    /// The command line's spelling: load-products, app-store-sync, refund-request-sheet.
    public var argument: String { rawValue.lowercased().replacingOccurrences(of: " ", with: "-") }

    public init?(argument: String) {
        let wanted = argument.lowercased().replacingOccurrences(of: "_", with: "-").replacingOccurrences(
            of: " ", with: "-")
        guard
            let api = Self.allCases.first(where: {
                $0.argument == wanted || $0.rawValue.lowercased() == argument.lowercased()
            })
        else {
            return nil
        }
        self = api
    }

    /// What fails in Storefront while the API has an error.
    public var counterpart: String {
        switch self {
        case .loadProducts: "the product list (products, the screen's list)"
        case .purchase: "buying (buy, the screen's b)"
        case .verification: "new transactions arrive unverified"
        case .appStoreSync: "restore"
        case .subscriptionStatus: "reading plans (subscriptions)"
        case .appTransaction: "nothing yet (the app transaction comes with signed data)"
        case .manageSubscriptionsSheet: "managing a plan (subscription cancel, renew-on, expire …)"
        case .refundRequestSheet: "refunds"
        case .offerCodeRedeemSheet: "nothing yet (offer codes come with the offers issue)"
        case .verifyReceipt:
            "POST /verifyReceipt on storefront serve answers this status (21005: unavailable, 21009: data access)"
        }
    }

    /// The errors this API can be given, as Apple's `SKTestFailures` allows: StoreKitError for
    /// every API but Verification, Product.PurchaseError too for Purchase, VerificationError for
    /// Verification.
    public var allowedErrors: [SimulatedError] {
        switch self {
        case .verification: SimulatedError.verificationErrors
        case .purchase: SimulatedError.storeKitErrors + SimulatedError.purchaseErrors
        case .verifyReceipt: SimulatedError.receiptStatuses
        default: SimulatedError.storeKitErrors
        }
    }

    /// What an enabled error that names none fails with.
    public var plainestError: SimulatedError {
        switch self {
        case .verification: SimulatedError(type: "VerificationResult.VerificationError", name: "invalidSignature")
        case .verifyReceipt: SimulatedError.receiptStatuses[1]
        default: SimulatedError(type: "StoreKitError", name: "unknown")
        }
    }

    public static func < (a: StoreKitAPI, b: StoreKitAPI) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One error case, as Apple names it: `StoreKitError.networkError`,
/// `Product.PurchaseError.productUnavailable`, `VerificationResult.VerificationError.invalidSignature`.
public struct SimulatedError: Sendable, Hashable, Codable, CustomStringConvertible {
    public let type: String
    public let name: String

    public var description: String { "\(type).\(name)" }

    static let storeKitErrors = [
        "unknown", "userCancelled", "networkError", "systemError", "notAvailableInStorefront", "notEntitled",
        "unsupported",
    ]
    .map { SimulatedError(type: "StoreKitError", name: $0) }
    static let purchaseErrors = [
        "invalidQuantity", "productUnavailable", "purchaseNotAllowed", "ineligibleForOffer", "invalidOfferIdentifier",
        "invalidOfferPrice", "invalidOfferSignature", "missingOfferParameters",
    ].map { SimulatedError(type: "Product.PurchaseError", name: $0) }
    /// verifyReceipt's statuses for a service that cannot answer now: the receipt server is
    /// unavailable (21005), an internal data access error (21009).
    static let receiptStatuses = ["21005", "21009"].map { SimulatedError(type: "VerifyReceipt.Status", name: $0) }
    static let verificationErrors = [
        "revokedCertificate", "invalidCertificateChain", "invalidDeviceVerification", "invalidEncoding",
        "invalidSignature",
        "missingRequiredProperties",
    ].map { SimulatedError(type: "VerificationResult.VerificationError", name: $0) }

    /// The error `text` names for `api`: the full name, or the case alone where it is one of
    /// the API's ("networkError"); nil when the API cannot have it.
    public init?(parsing text: String, for api: StoreKitAPI) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        // Verification also takes the ways Storefront breaks signed data (S5): signature, chain …
        if api == .verification, let way = Unverified(rawValue: trimmed.lowercased()) {
            trimmed = way.verificationError
        }
        let lower = trimmed.lowercased()
        guard
            let found = api.allowedErrors.first(where: {
                $0.description.lowercased() == lower || $0.name.lowercased() == lower
                    || lower.hasSuffix("." + $0.name.lowercased())
                        && lower.hasPrefix($0.type.split(separator: ".").last!.lowercased())
            })
        else { return nil }
        self = found
    }

    init(type: String, name: String) {
        self.type = type
        self.name = name
    }

    /// What a purchase that fails this way records as its reason (Q4's words).
    public var failureReason: FailureReason {
        switch name {
        case "userCancelled": .cancelled
        case "networkError": .network
        case "purchaseNotAllowed": .notAllowed
        case "productUnavailable", "notAvailableInStorefront": .productUnavailable
        case "invalidQuantity", "invalidOfferIdentifier", "invalidOfferPrice", "invalidOfferSignature",
            "missingOfferParameters",
            "ineligibleForOffer":
            .paymentInvalid
        default: .unknown
        }
    }
}

/// The errors set now, one at most per API.
public struct SimulatedErrors: Sendable, Equatable, Codable {
    public var errors: [StoreKitAPI: SimulatedError]

    public init(_ errors: [StoreKitAPI: SimulatedError] = [:]) { self.errors = errors }

    /// Stored as `{"Purchase": "Product.PurchaseError.productUnavailable"}`; a name that is not
    /// an API or not one of its errors is a corrupt value, never ignored.
    public init(from decoder: Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String: String].self)
        var errors: [StoreKitAPI: SimulatedError] = [:]
        for (apiName, errorName) in names {
            guard let api = StoreKitAPI(rawValue: apiName), let error = SimulatedError(parsing: errorName, for: api)
            else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "\(apiName): \(errorName) is not a simulated error"))
            }
            errors[api] = error
        }
        self.errors = errors
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(uniqueKeysWithValues: errors.map { ($0.key.rawValue, $0.value.description) }))
    }

    public subscript(api: StoreKitAPI) -> SimulatedError? {
        get { errors[api] }
        set { errors[api] = newValue }
    }

    public var isEmpty: Bool { errors.isEmpty }

    /// Throws the error set for `api`, if any: the API fails as StoreKit's would.
    package func failIfSet(_ api: StoreKitAPI) throws(StoreError) {
        if let error = errors[api] { throw StoreError.simulated(api: api, error: error) }
    }

    /// "Purchase: Product.PurchaseError.productUnavailable", in Apple's order of the APIs.
    public var lines: [String] { errors.keys.sorted().map { "\($0.rawValue): \(errors[$0]!)" } }

    /// Ready-made errors the transaction manager's `e` steps through: none, then one API at a time.
    public static let presets: [SimulatedErrors] = [
        SimulatedErrors(),
        SimulatedErrors([.loadProducts: SimulatedError(type: "StoreKitError", name: "networkError")]),
        SimulatedErrors([.purchase: SimulatedError(type: "Product.PurchaseError", name: "productUnavailable")]),
        SimulatedErrors([.purchase: SimulatedError(type: "StoreKitError", name: "networkError")]),
        SimulatedErrors([
            .verification: SimulatedError(type: "VerificationResult.VerificationError", name: "invalidSignature")
        ]),
        SimulatedErrors([.appStoreSync: SimulatedError(type: "StoreKitError", name: "networkError")]),
        SimulatedErrors([.subscriptionStatus: SimulatedError(type: "StoreKitError", name: "systemError")]),
        SimulatedErrors([.manageSubscriptionsSheet: SimulatedError(type: "StoreKitError", name: "systemError")]),
        SimulatedErrors([.refundRequestSheet: SimulatedError(type: "StoreKitError", name: "systemError")]),
    ]

    /// The preset after this one (wrapping); the first when this is not a preset.
    public var nextPreset: SimulatedErrors {
        guard let index = Self.presets.firstIndex(of: self) else { return Self.presets[0] }
        return Self.presets[(index + 1) % Self.presets.count]
    }
}

// The app whose purchases the store signs (S4): its bundle id, its App Apple ID and the environment
// signed data names. A setting of the state folder, defaulting to the catalog's bundle id.
import Foundation

public struct AppIdentity: Sendable, Equatable, Codable {
    /// Apple's environments, as signed data spells them.
    public enum Environment: String, Sendable, Codable, CaseIterable {
        case sandbox = "Sandbox"
        case production = "Production"
        case xcode = "Xcode"
        case localTesting = "LocalTesting"

        public init?(argument: String) {
            guard let found = Self.allCases.first(where: { $0.rawValue.lowercased() == argument.lowercased() }) else {
                return nil
            }
            self = found
        }
    }

    public var bundleID: String
    /// Apple's numeric id of the app; Production data carries it, Sandbox may.
    public var appAppleID: Int64?
    public var environment: Environment

    public static let defaultBundleID = "com.example.storefront"

    public init(bundleID: String, appAppleID: Int64? = nil, environment: Environment = .sandbox) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
    }

    /// A bundle id as Apple allows them: letters, digits, hyphens and dots, not empty.
    public static func isValid(bundleID: String) -> Bool {
        !bundleID.isEmpty && bundleID.count <= 155
            && bundleID.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
            && !bundleID.hasPrefix(".") && !bundleID.hasSuffix(".")
    }
}

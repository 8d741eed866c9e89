// Where a team server's PostgreSQL is and how to reach it (W5): a libpq-style URL,
// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&sslrootcert=…], read into
// PostgresNIO's client configuration. The TLS modes are libpq's, so that the URL a hosted
// database's console shows works as it is.
import Foundation
import NIOSSL
import PostgresNIO
import StoreCore
import StoreModel

struct PostgresAddress: Sendable {
    /// libpq's `sslmode` values that Storefront takes, with libpq's meaning.
    enum TLSMode: String, CaseIterable, Sendable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, unverified; plain TCP when it does not (libpq's default).
        case prefer
        /// TLS or nothing; the certificate is checked against `sslrootcert` when one is named, as
        /// libpq does, else not at all.
        case require
        /// TLS, the certificate signed by the CA, the name not checked.
        case verifyCA = "verify-ca"
        /// TLS, the certificate signed by the CA and made out to the host.
        case verifyFull = "verify-full"
    }

    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String
    let mode: TLSMode
    /// The CA the server's certificate must be signed by: `sslrootcert`, else $STOREFRONT_CA_FILE;
    /// nil trusts the system's roots.
    let rootCertificate: String?
    /// The URL without its password, as every message names the database.
    let location: String

    static let usage =
        "--database takes postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require|verify-ca|verify-full&sslrootcert=ca.pem]"

    init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreError) {
        guard let url = URLComponents(string: text),
            ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? ""),
            let host = url.host, !host.isEmpty, let user = url.user, !url.path.dropFirst().isEmpty
        else {
            throw StoreError.storage(path: Self.withoutPassword(text), reason: Self.usage)
        }
        var mode = TLSMode.prefer
        var rootCertificate: String?
        for item in url.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let given = TLSMode(rawValue: value) else {
                    throw StoreError.storage(
                        path: Self.withoutPassword(text),
                        reason:
                            "sslmode takes \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")), not \(item.value ?? "nothing")"
                    )
                }
                mode = given
            case "sslrootcert":
                rootCertificate = item.value
            default:
                throw StoreError.storage(
                    path: Self.withoutPassword(text), reason: "no parameter \(item.name): \(Self.usage)")
            }
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = url.port ?? 5432
        self.user = user.removingPercentEncoding ?? user
        self.password = url.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = String(url.path.dropFirst())
        self.mode = mode
        let variable = environment[HTTPCall.caFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        self.rootCertificate = rootCertificate ?? (mode == .verifyCA || mode == .verifyFull ? variable : nil)
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        location = "postgres://\(self.user)@\(shownHost):\(port)/\(database)"
    }

    /// `text` with the password, if any, written as asterisks: for a URL that could not be read.
    static func withoutPassword(_ text: String) -> String {
        guard var url = URLComponents(string: text), let password = url.password, !password.isEmpty else { return text }
        url.password = String(repeating: "*", count: password.count)
        return url.string ?? text
    }

    /// TLS as the mode asks, trusting `rootCertificate` when one is named; nil for `disable`.
    func tlsConfiguration() throws(StoreError) -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable: return nil
        case .prefer: configuration.certificateVerification = .none
        case .require: configuration.certificateVerification = rootCertificate == nil ? .none : .noHostnameVerification
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let rootCertificate, mode != .prefer {
            let roots = (try? NIOSSLCertificate.fromPEMFile(rootCertificate)) ?? []
            guard !roots.isEmpty else {
                let reason =
                    FileManager.default.fileExists(atPath: rootCertificate)
                    ? "holds no PEM certificate" : "does not exist"
                throw StoreError.storage(
                    path: location,
                    reason: "the CA file \(rootCertificate) \(reason) (sslrootcert, or $\(HTTPCall.caFileVariable))")
            }
            configuration.trustRoots = .certificates(roots)
        }
        return configuration
    }

    /// One connection's configuration, for the check made before the pool starts.
    func connection() throws(StoreError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        if let configuration = try tlsConfiguration() {
            let context: NIOSSLContext
            do { context = try NIOSSLContext(configuration: configuration) } catch {
                throw StoreError.storage(path: location, reason: "TLS cannot be set up (\(error))")
            }
            tls = mode == .prefer ? .prefer(context) : .require(context)
        } else {
            tls = .disable
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// The pool's: at most `maximumConnections` open, an idle one checked with `SELECT 1` every
    /// 30 s and closed after a minute unused.
    func client(maximumConnections: Int) throws(StoreError) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch try tlsConfiguration() {
            case nil: .disable
            case let configuration? where mode == .prefer: .prefer(configuration)
            case let configuration?: .require(configuration)
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(30))
        configuration.options.connectionIdleTimeout = .seconds(60)
        return configuration
    }
}

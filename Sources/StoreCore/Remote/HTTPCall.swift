// One POST and its answer, over http:// or https://, for the store's outgoing calls: a device's
// call to its account server (`--server`), a webhook's notification, and the realtime retention
// URL. AsyncHTTPClient does the work: it tries every address a name resolves to (IPv6 and IPv4,
// happy eyeballs), brackets IPv6 hosts, reads chunked answers, and speaks TLS with the system's
// roots plus the PEM file in $STOREFRONT_CA_FILE. The client and its event loops are made at the
// first call, so a program that never calls out never starts them.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import StoreModel

public enum HTTPCall {
    /// The CA file's path, as the environment gives it when the first call is made.
    public static let caFileVariable = HTTPProblem.caFileVariable

    /// Whether `url`'s scheme is one a call can use.
    public static func supports(_ url: URL) -> Bool {
        ["http", "https"].contains(url.scheme?.lowercased() ?? "") && !(url.host ?? "").isEmpty
    }

    /// The one client, made at the first call with the trust it keeps.
    private static let client: Result<HTTPClient, HTTPProblem> = {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let path = ProcessInfo.processInfo.environment[caFileVariable], !path.isEmpty {
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(path)
                guard !certificates.isEmpty else {
                    return .failure(.caFile(path: path, reason: "holds no PEM certificate"))
                }
                tls.additionalTrustRoots = [.certificates(certificates)]
            } catch {
                let reason =
                    FileManager.default.isReadableFile(atPath: path)
                    ? "is not a PEM certificate file" : "cannot be read"
                return .failure(.caFile(path: path, reason: reason))
            }
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.httpVersion = .http1Only
        // A refused connection or an untrusted certificate is the answer at once, not retried
        // until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return .success(HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
    }()

    /// POSTs `body` as JSON to `url` and reads the whole answer within `timeout` seconds. Called
    /// from a thread that may wait (a device's, or the server's blocking pool), never from an event
    /// loop.
    public static func post(_ url: URL, headers: [String: String], body: Data, timeout: TimeInterval) -> Result<
        (status: Int, body: Data), HTTPProblem
    > {
        guard supports(url) else { return .failure(.unsupported("only http:// and https:// URLs are supported")) }
        let client: HTTPClient
        switch Self.client {
        case .success(let made): client = made
        case .failure(let problem): return .failure(problem)
        }
        do {
            var request = try HTTPClient.Request(url: url, method: .POST, body: .bytes(body))
            request.headers.add(name: "Content-Type", value: "application/json")
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) where name.lowercased() != "content-type" {
                request.headers.add(name: name, value: value)
            }
            let nanoseconds = Int64(max(0.001, timeout) * 1_000_000_000)
            let response = try client.execute(request: request, deadline: .now() + .nanoseconds(nanoseconds)).wait()
            return .success((Int(response.status.code), response.body.map { Data($0.readableBytesView) } ?? Data()))
        } catch {
            return .failure(problem(error, host: url.host ?? "", timeout: timeout))
        }
    }

    /// The kind of failure an error of the client, SwiftNIO or TLS stands for.
    static func problem(_ error: any Error, host: String, timeout: Double) -> HTTPProblem {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return .timedOut(seconds: timeout, connecting: true)
            case .deadlineExceeded, .readTimeout, .writeTimeout, .tlsHandshakeTimeout:
                return .timedOut(seconds: timeout, connecting: false)
            case .remoteConnectionClosed: return .closed
            default: return .failed("\(error)")
            }
        case let error as NIOConnectionError:
            let failures = error.connectionErrors.map(\.error)
            if failures.isEmpty { return .unresolved(host: host) }
            if failures.allSatisfy({ ($0 as? IOError)?.errnoCode == ECONNREFUSED }) { return .refused }
            return problem(failures[0], host: host, timeout: timeout)
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return .refused
        case is SocketAddressError:
            return .unresolved(host: host)
        case ChannelError.connectTimeout:
            return .timedOut(seconds: timeout, connecting: true)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return .wrongHost(host: host)
        case let error as NIOSSLError:
            if case .handshakeFailed(.sslError(let stack)) = error {
                let reasons = stack.compactMap(BoringSSLReason.init)
                if reasons.contains(.certificateVerifyFailed) { return .untrusted }
                if reasons.contains(.wrongVersionNumber) { return .notTLS }
            }
            return .tls("\(error)")
        default:
            return .failed("\(error)")
        }
    }
}

/// BoringSSL's reason for a TLS failure, by its number. NIOSSL gives a BoringSSL error only as its
/// description, "Error: CODE …", where CODE is BoringSSL's packed error code (library in the top
/// byte, reason in the low twelve bits): the number is read, never the words.
package enum BoringSSLReason: Equatable {
    case certificateVerifyFailed
    case wrongVersionNumber

    /// SSL_R_CERTIFICATE_VERIFY_FAILED and SSL_R_WRONG_VERSION_NUMBER of BoringSSL's ssl.h, in
    /// its library ERR_LIB_SSL.
    private static let sslLibrary: UInt32 = 16
    private static let reasons: [UInt32: Self] = [125: .certificateVerifyFailed, 247: .wrongVersionNumber]

    package init?(_ error: BoringSSLInternalError) {
        let words = error.description.split(separator: " ")
        guard words.count >= 2, words[0] == "Error:", let code = UInt32(words[1]), code >> 24 == Self.sslLibrary,
            let reason = Self.reasons[code & 0xFFF]
        else { return nil }
        self = reason
    }
}

/// Delivers notifications to the webhook through HTTPCall.
public struct WebhookPoster: WebhookPosting {
    public init() {}

    public func post(_ body: Data, to url: URL, timeout: TimeInterval) -> Result<Int, HTTPProblem> {
        HTTPCall.post(
            url, headers: ["User-Agent": "Storefront (App Store Server Notifications V2, local)"], body: body,
            timeout: timeout
        )
        .map(\.status)
    }
}

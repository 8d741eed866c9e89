// HTTPS for the store's calls (W13): a device's `--server https://…` and https:// webhooks, through
// AsyncHTTPClient and SwiftNIO's TLS (BoringSSL), trusting the system's roots plus the PEM file in
// $STOREFRONT_CA_FILE (a team's own CA, or the one `serve --tls-cert` was made with). A program
// installs it at start (`HTTPSClient.install()`); the client, its event loops and its TLS context are
// made at the first https:// call, so that a program that never meets one never starts them.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import StoreCore

public final class HTTPSClient: SecureTransport {
    /// The CA file's path, as the environment gives it when the first call is made.
    public static let caFileVariable = "STOREFRONT_CA_FILE"

    /// Installs HTTPS for this program's calls.
    public static func install() { HTTPCall.install(HTTPSClient()) }

    /// The certificates in a PEM file, or why it holds none, in one line.
    public static func certificates(in path: String) -> Result<[NIOSSLCertificate], HTTPProblem> {
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(path)
            guard !certificates.isEmpty else { return .failure(HTTPProblem("\(path) holds no PEM certificate")) }
            return .success(certificates)
        } catch {
            let reason = FileManager.default.isReadableFile(atPath: path) ? "is not a PEM certificate file" : "cannot be read"
            return .failure(HTTPProblem("the CA file \(path) \(reason)"))
        }
    }

    private let client = Locked<Result<HTTPClient, HTTPProblem>?>(nil)

    /// The one client, made at the first call with the trust it will keep.
    private func shared() -> Result<HTTPClient, HTTPProblem> {
        client.withLock { made in
            if let made { return made }
            var tls = TLSConfiguration.makeClientConfiguration()
            if let path = ProcessInfo.processInfo.environment[Self.caFileVariable], !path.isEmpty {
                switch Self.certificates(in: path) {
                case .success(let certificates): tls.additionalTrustRoots = [.certificates(certificates)]
                case .failure(let problem):
                    made = .failure(problem)
                    return .failure(problem)
                }
            }
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
            configuration.httpVersion = .http1Only
            // A refused connection or an untrusted certificate is the answer at once, as over
            // http://, not retried until the deadline.
            configuration.connectionPool.retryConnectionEstablishment = false
            let result = Result<HTTPClient, HTTPProblem>.success(HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
            made = result
            return result
        }
    }

    public func post(_ url: URL, headers: [String: String], body: Data, timeout: TimeInterval) -> Result<(status: Int, body: Data), HTTPProblem> {
        let client: HTTPClient
        switch shared() {
        case .success(let made): client = made
        case .failure(let problem): return .failure(problem)
        }
        do {
            var request = try HTTPClient.Request(url: url.absoluteString, method: .POST, body: .bytes(body))
            request.headers.add(name: "Content-Type", value: "application/json")
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.add(name: name, value: value) }
            let nanoseconds = Int64(max(0.001, timeout) * 1_000_000_000)
            // Called from a thread of the program's own (the device's, or the server's blocking
            // pool), never from an event loop: waiting here parks no loop.
            let response = try client.execute(request: request, deadline: .now() + .nanoseconds(nanoseconds)).wait()
            let answer = response.body.map { Data($0.readableBytesView) } ?? Data()
            return .success((Int(response.status.code), answer))
        } catch {
            return .failure(Self.problem(error, timeout: timeout))
        }
    }

    /// An error of the client or of TLS, in words for one line.
    static func problem(_ error: any Error, timeout: TimeInterval) -> HTTPProblem {
        let seconds = String(format: "%g", timeout)
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout:
                return HTTPProblem("timed out after \(seconds) s waiting for an answer")
            case .remoteConnectionClosed: return HTTPProblem("the server closed the connection")
            default: return HTTPProblem("\(error)")
            }
        }
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return HTTPProblem("its certificate is not trusted: give its CA in \(caFileVariable) or --ca-file")
        }
        if error is NIOSSLExtraError {
            return HTTPProblem("its certificate is not for this host (\(text))")
        }
        if let error = error as? NIOSSLError {
            return HTTPProblem("TLS failed: \(error)")
        }
        if text.contains("connectTimeout") { return HTTPProblem("timed out connecting after \(seconds) s") }
        if text.contains("Connection refused") || text.contains("ECONNREFUSED") { return HTTPProblem("Connection refused") }
        return HTTPProblem(text)
    }
}

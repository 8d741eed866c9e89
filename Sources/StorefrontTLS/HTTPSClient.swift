// HTTPS for the store's calls (W13): a device's `--server https://…` and https:// webhooks, through
// AsyncHTTPClient and SwiftNIO's TLS (BoringSSL), trusting the system's roots plus the PEM file in
// $STOREFRONT_CA_FILE (a team's own CA, or the one `serve --tls-cert` was made with).
// `storefront-server` links it; the screen's program `storefront` loads it as libStorefrontTLS.so,
// beside itself, at its first https:// call (`storefront_tls_post` below, a C function), so that the
// screen's start and memory never carry a TLS stack (DECISIONS.md, "HTTPS both ways"). The client,
// its event loops and its TLS context are made at the first call. Knows nothing of the store.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

public final class HTTPSClient: @unchecked Sendable {
    /// The CA file's path, as the environment gives it when the first call is made.
    public static let caFileVariable = "STOREFRONT_CA_FILE"

    public static let shared = HTTPSClient()

    private let lock = NSLock()
    private var client: Result<HTTPClient, Failure>?

    /// Why a call failed, in words for one line.
    public struct Failure: Error, Sendable {
        public var reason: String
    }

    /// The one client, made at the first call with the trust it will keep.
    private func made() -> Result<HTTPClient, Failure> {
        lock.lock()
        defer { lock.unlock() }
        if let client { return client }
        let result = Self.make()
        client = result
        return result
    }

    private static func make() -> Result<HTTPClient, Failure> {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let path = ProcessInfo.processInfo.environment[caFileVariable], !path.isEmpty {
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(path)
                guard !certificates.isEmpty else { return .failure(Failure(reason: "the CA file \(path) holds no PEM certificate")) }
                tls.additionalTrustRoots = [.certificates(certificates)]
            } catch {
                let reason = FileManager.default.isReadableFile(atPath: path) ? "is not a PEM certificate file" : "cannot be read"
                return .failure(Failure(reason: "the CA file \(path) \(reason)"))
            }
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.httpVersion = .http1Only
        // A refused connection or an untrusted certificate is the answer at once, as over http://,
        // not retried until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return .success(HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
    }

    /// POSTs `body` as JSON to `url` and reads the whole answer within `timeout` seconds. Called
    /// from a thread of the program's own (the device's, or the server's blocking pool), never from
    /// an event loop: waiting here parks no loop.
    public func post(_ url: String, headers: [(String, String)], body: [UInt8], timeout: Double) -> Result<(status: Int, body: [UInt8]), Failure> {
        let client: HTTPClient
        switch made() {
        case .success(let made): client = made
        case .failure(let failure): return .failure(failure)
        }
        do {
            var request = try HTTPClient.Request(url: url, method: .POST, body: .bytes(body))
            request.headers.add(name: "Content-Type", value: "application/json")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let nanoseconds = Int64(max(0.001, timeout) * 1_000_000_000)
            let response = try client.execute(request: request, deadline: .now() + .nanoseconds(nanoseconds)).wait()
            return .success((Int(response.status.code), response.body.map { Array($0.readableBytesView) } ?? []))
        } catch {
            return .failure(Failure(reason: Self.words(error, timeout: timeout)))
        }
    }

    /// An error of the client or of TLS, in words for one line.
    static func words(_ error: any Error, timeout: Double) -> String {
        let seconds = String(format: "%g", timeout)
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout:
                return "timed out after \(seconds) s waiting for an answer"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return "its certificate is not trusted: give its CA in \(caFileVariable) or --ca-file"
        }
        if error is NIOSSLExtraError { return "its certificate is not for this host (\(text))" }
        if text.contains("WRONG_VERSION_NUMBER") { return "it does not speak TLS there: is it http://, not https://?" }
        if let error = error as? NIOSSLError { return "TLS failed: \(error)" }
        if text.contains("connectTimeout") { return "timed out connecting after \(seconds) s" }
        if text.contains("Connection refused") || text.contains("ECONNREFUSED") { return "Connection refused" }
        return text
    }
}

/// The library's one function, for a program that loads it (`dlsym`): POSTs to `url` with
/// `headers` ("Name: value" lines) and `body`. Returns the HTTP status with the answer's body in
/// `*answer`, or 0 with the reason in words there; `*answer` is the caller's to `free`.
@_cdecl("storefront_tls_post")
public func storefrontTLSPost(
    _ url: UnsafePointer<CChar>, _ headers: UnsafePointer<CChar>, _ body: UnsafePointer<UInt8>?, _ bodyCount: Int, _ timeout: Double,
    _ answer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, _ answerCount: UnsafeMutablePointer<Int>
) -> Int32 {
    let fields = String(cString: headers).split(separator: "\n").compactMap { line -> (String, String)? in
        let parts = line.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
    }
    let bytes = body.map { Array(UnsafeBufferPointer(start: $0, count: bodyCount)) } ?? []
    let status: Int32, out: [UInt8]
    switch HTTPSClient.shared.post(String(cString: url), headers: fields, body: bytes, timeout: timeout) {
    case .success(let result): (status, out) = (Int32(result.status), result.body)
    case .failure(let failure): (status, out) = (0, Array(failure.reason.utf8))
    }
    let buffer = malloc(max(1, out.count))!.assumingMemoryBound(to: UInt8.self)
    out.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.update(from: base, count: out.count) } }
    answer.pointee = buffer
    answerCount.pointee = out.count
    return status
}

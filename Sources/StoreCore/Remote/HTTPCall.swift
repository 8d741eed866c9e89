// One POST and its answer, over http:// or https://, for the store's two kinds of call: a device's
// call to its account server (`--server`) and a webhook's notification. http:// goes over a plain
// socket (SocketHTTP); https:// goes through the TLS client a program installs at its start
// (StorefrontTLS, on AsyncHTTPClient), so that StoreCore carries no TLS stack of its own and a
// program that never meets an https:// URL never starts one (DECISIONS.md, "HTTPS both ways").
import Foundation

/// What went wrong with a call, in words for one line.
public struct HTTPProblem: Error, Sendable, Equatable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    /// The server did not answer within the deadline (as opposed to refusing at once).
    public var timedOut: Bool { reason.hasPrefix("timed out") }
}

/// An HTTPS client: POSTs JSON and reads the whole answer within `timeout` seconds.
public protocol SecureTransport: Sendable {
    func post(_ url: URL, headers: [String: String], body: Data, timeout: TimeInterval) -> Result<(status: Int, body: Data), HTTPProblem>
}

public enum HTTPCall {
    private static let secure = Locked<(any SecureTransport)?>(nil)

    /// Called once by a program that links a TLS client (storefront, storefront-server).
    public static func install(_ transport: any SecureTransport) { secure.withLock { $0 = transport } }

    /// Whether `url`'s scheme is one a call can use here.
    public static func supports(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "http": return url.host != nil
        case "https": return url.host != nil && secure.withLock { $0 } != nil
        default: return false
        }
    }

    /// POSTs `body` as JSON to `url`; reads the status line, or (`whole`) the answer to its end.
    public static func post(
        _ url: URL, headers: [String: String], body: Data, timeout: TimeInterval, whole: Bool
    ) -> Result<(status: Int, body: Data), HTTPProblem> {
        guard let host = url.host else { return .failure(HTTPProblem("\(url.absoluteString) names no host")) }
        switch url.scheme?.lowercased() {
        case "http":
            var path = url.path.isEmpty ? "/" : url.path
            if let query = url.query { path += "?" + query }
            return SocketHTTP(host: host, port: url.port ?? 80).send(path: path, headers: headers, body: body, timeout: timeout, whole: whole)
        case "https":
            guard let transport = secure.withLock({ $0 }) else { return .failure(HTTPProblem("this program has no HTTPS client")) }
            return transport.post(url, headers: headers, body: body, timeout: timeout)
        default:
            return .failure(HTTPProblem("only http:// and https:// URLs are supported"))
        }
    }
}

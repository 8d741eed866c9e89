// Why an outgoing call got no usable answer, as a value every layer can name (W4).
import Foundation

/// Why a call got no usable answer. Each case is a kind of failure the caller may act on; none is
/// recognised by its words.
public enum HTTPProblem: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Every address the name resolves to refused the connection.
    case refused
    /// No answer within the deadline (`connecting`: not even a connection).
    case timedOut(seconds: Double, connecting: Bool)
    /// The server closed the connection before it answered.
    case closed
    /// The host's name resolves to no address.
    case unresolved(host: String)
    /// The server's certificate is not signed by a trusted CA.
    case untrusted
    /// The server's certificate is for another host.
    case wrongHost(host: String)
    /// The server does not speak TLS where https:// was asked of it.
    case notTLS
    /// TLS failed otherwise.
    case tls(String)
    /// The CA file in $STOREFRONT_CA_FILE cannot be used.
    case caFile(path: String, reason: String)
    /// The URL is not one a call can use.
    case unsupported(String)
    /// The server answered, but not with what was asked of it.
    case answered(String)
    /// Anything else the client reported, in its words.
    case failed(String)

    /// The CA file's path, as the environment gives it when the first call is made.
    public static let caFileVariable = "STOREFRONT_CA_FILE"

    public var timedOut: Bool {
        if case .timedOut = self { return true }
        return false
    }

    /// Whether the failure leaves open that the server is there at all (refused, timed out, closed,
    /// unresolved), as opposed to one where it answered or where TLS names the fix.
    public var leavesServerInDoubt: Bool {
        switch self {
        case .refused, .timedOut, .closed, .unresolved, .failed: true
        case .untrusted, .wrongHost, .notTLS, .tls, .caFile, .unsupported, .answered: false
        }
    }

    public var description: String {
        switch self {
        case .refused: "Connection refused"
        case .timedOut(let seconds, let connecting):
            connecting
                ? "timed out connecting after \(String(format: "%g", seconds)) s"
                : "timed out after \(String(format: "%g", seconds)) s waiting for an answer"
        case .closed: "the server closed the connection"
        case .unresolved(let host): "cannot resolve \(host)"
        case .untrusted: "its certificate is not trusted: give its CA in \(Self.caFileVariable) or --ca-file"
        case .wrongHost(let host): "its certificate is not for \(host)"
        case .notTLS: "it does not speak TLS there: is it http://, not https://?"
        case .tls(let words): "TLS failed: \(words)"
        case .caFile(let path, let reason): "the CA file \(path) \(reason)"
        case .unsupported(let words): words
        case .answered(let words): words
        case .failed(let words): words
        }
    }
}

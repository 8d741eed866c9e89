// `storefront serve` on Hummingbird: every request goes to the App Store Server API (V1–V5) as
// method, path, query, token and body, is logged in one line (V7) and listed for the screen.
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import StoreCore

public enum ServerApplication {
    /// The listening address is taken (another server on the port): said in words, not as
    /// SwiftNIO's bind error.
    public static func isAddressInUse(_ error: any Error) -> Bool { (error as? IOError)?.errnoCode == EADDRINUSE }

    /// A certificate chain and its private key, PEM files, for HTTPS (W6).
    public struct TLSFiles: Sendable {
        public var certificate: String
        public var key: String

        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }

        func configuration() throws(StoreError) -> TLSConfiguration {
            for file in [certificate, key] where !FileManager.default.isReadableFile(atPath: file) {
                throw StoreError.storage(path: file, reason: FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file")
            }
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificate)
                let key = try NIOSSLPrivateKey(file: key, format: .pem)
                return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            } catch {
                throw StoreError.storage(path: "\(certificate), \(key)", reason: "not a PEM certificate chain and private key (\(error))")
            }
        }
    }

    /// W11: what a client can hold. `idleTimeout`: a connection with no request in progress (or
    /// a request head that never completes) is closed after it; `cap`: connections open at once.
    public struct Limits: Sendable {
        public var idleTimeout: Duration
        public var cap: ConnectionCap

        public init(idleTimeout: Duration = .seconds(30), cap: ConnectionCap = .forThisProcess()) {
            self.idleTimeout = idleTimeout
            self.cap = cap
        }
    }

    /// The server for `served` on `host:port` (0 picks a free port), over HTTPS when `tls` is
    /// given, within `limits`; `onRunning` gets the port bound.
    public static func make(
        served: ServedStore, host: String, port: Int, logger: Logger, tls: TLSFiles? = nil, limits: Limits = Limits(),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws(StoreError) -> some ApplicationProtocol {
        let cap = limits.cap
        let (seconds, attoseconds) = limits.idleTimeout.components
        let http1 = HTTPServerBuilder.http1(configuration: .init(
            additionalChannelHandlers: [cap.handler()], idleTimeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        ))
        let server: HTTPServerBuilder
        if let tls {
            let configuration = try tls.configuration()
            do { server = try .tls(http1, tlsConfiguration: configuration) } catch {
                throw StoreError.storage(path: tls.certificate, reason: "\(error)")
            }
        } else {
            server = http1
        }
        return Application(
            responder: responder(served: served, logger: logger), server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "Storefront", backlog: 4_096),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// Where the store's work runs: SQLite through GRDB, PostgreSQL's waits and scrypt are
    /// synchronous, and on Swift's cooperative pool (two threads here) one slow sign-in would stall
    /// every other request. Threads of their own, many more than cores, since most of their time
    /// is spent waiting on the disk or the database.
    public static let blockingWork: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(16, 4 * System.coreCount))
        pool.start()
        return pool
    }()

    /// Watches this process's blocking calls (BlockingWatch) while it serves: one made on a Swift
    /// task's thread is a defect, logged once per kind; with `strict` (STOREFRONT_STRICT_THREADS=1,
    /// as the tests run the server) the process ends at once with status 70, naming it.
    public static func watchBlockingCalls(logger: Logger, strict: Bool) {
        let seen = Locked<Set<String>>([])
        BlockingWatch.report { what in
            if strict {
                FileHandle.standardError.write(Data("storefront serve: \(what) ran on a Swift task's thread, not the blocking pool\n".utf8))
                _exit(70)
            }
            if seen.withLock({ $0.insert(what).inserted }) { logger.error("\(what) ran on a Swift task's thread, not the blocking pool") }
        }
    }

    /// A request's context: Hummingbird's, and the address it came from (W11's limits per client).
    struct CallerContext: RequestContext, RemoteAddressRequestContext {
        var coreContext: CoreRequestContextStorage
        let remoteAddress: SocketAddress?

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            remoteAddress = source.channel.remoteAddress
        }

        /// The client's IP address, without its port.
        var client: String { remoteAddress?.ipAddress ?? "" }
    }

    static func responder(served: ServedStore, logger: Logger) -> CallbackResponder<CallerContext> {
        CallbackResponder { request, context in
            if request.uri.path == "/storefront/fixed" { return fixed(request) }
            let started = Date()
            var query: [(String, String)] = []
            for (key, value) in request.uri.queryParameters {
                query.append((String(key).removingPercentEncoding ?? String(key), String(value).removingPercentEncoding ?? String(value)))
            }
            let answer: APIResponse
            if let body = try? await request.body.collect(upTo: ServerAPI.maximumBody) {
                let authorization = request.headers[.authorization]
                do {
                    if request.uri.path == AccountService.path, request.method == .post {
                        // W1: a device's call to its account server.
                        let developer = request.headers[HTTPField.Name(AccountWire.developerHeader)!]
                        let called = try await blockingWork.runIfActive {
                            served.accounts.handle(body: Data(buffer: body), authorization: authorization, developer: developer, client: context.client)
                        }
                        if called.delay > 0 { try? await Task.sleep(nanoseconds: UInt64(called.delay * 1_000_000_000)) }
                        answer = APIResponse(status: called.status, body: called.body)
                    } else {
                        let apiRequest = APIRequest(
                            method: request.method.rawValue, path: request.uri.path, query: query, authorization: authorization, body: Data(buffer: body)
                        )
                        answer = try await blockingWork.runIfActive { served.api.handle(apiRequest) }
                    }
                } catch {
                    // The pool is stopped only when the process ends.
                    answer = APIResponse.error(APIErrorCode.generalInternal, "the server is stopping")
                }
            } else {
                answer = ServerAPI.bodyTooLong
            }
            let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
            // V7: one line per request, and the list the screen's transaction manager shows (of the
            // App Store Server API's requests; devices' calls are only logged).
            logger.info("\(request.method.rawValue) \(request.uri.path) \(answer.status) \(milliseconds) ms")
            if request.uri.path != AccountService.path {
                served.requests.withLock { $0.append(ServedRequest(
                    at: started, method: request.method.rawValue, path: request.uri.path, status: answer.status, milliseconds: milliseconds
                )) }
            }
            return Response(
                status: .init(code: answer.status), headers: [.contentType: "application/json"],
                body: .init(byteBuffer: answer.bytes)
            )
        }
    }

    /// The benchmark's floor (storefront-bench serve): the same server, a fixed body of `bytes`
    /// bytes (a small one by default), no store; each size made once.
    private static let fixedBodies = Locked<[Int: ByteBuffer]>([:])

    static func fixed(_ request: Request) -> Response {
        let bytes = request.uri.queryParameters["bytes"].flatMap { Int(String($0)) }.map { min(max($0, 13), ServerAPI.maximumBody) } ?? 13
        let body = fixedBodies.withLock { bodies in
            if let body = bodies[bytes] { return body }
            let filler = #"{"fixed":""# + String(repeating: "x", count: bytes - 13) + #""}"#
            let body = ByteBuffer(bytes: Data(filler.utf8))
            bodies[bytes] = body
            return body
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }
}

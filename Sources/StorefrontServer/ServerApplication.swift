// `storefront serve` on Hummingbird: the HTTP/1.1 server (TLS, the idle timeout, the connection
// cap), the blocking pool the store's work runs on, and the request context. Its routes are
// ServerRouter.swift's.
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import StoreCore
import StoreModel

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

        /// How long a closing connection waits for the client's answer to its close_notify. A
        /// client that never answers (stopped, or gone without a FIN) would otherwise hold the
        /// connection, and with it the server's stop, for SwiftNIO SSL's default of 5 seconds:
        /// longer than `storefront serve` gives the graceful shutdown and the cancellation after
        /// it together (2 s + 2.5 s), so ServiceLifecycle ended the process with its fatal error.
        /// Under the graceful limit, the connection closes uncleanly in time instead.
        public static let closeNotifyLimit: TimeAmount = .seconds(1)

        func configuration() throws(StoreError) -> TLSConfiguration {
            for file in [certificate, key] where !FileManager.default.isReadableFile(atPath: file) {
                throw StoreError.storage(
                    path: file, reason: FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file"
                )
            }
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificate)
                let key = try NIOSSLPrivateKey(file: key, format: .pem)
                var configuration = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
                configuration.shutdownTimeout = Self.closeNotifyLimit
                return configuration
            } catch {
                throw StoreError.storage(
                    path: "\(certificate), \(key)", reason: "not a PEM certificate chain and private key (\(error))")
            }
        }
    }

    /// W11: what a client can hold. `idleTimeout`: a connection with no request in progress (or
    /// a request head that never completes) is closed after it; `cap`: connections open at once.
    public struct Limits: Sendable {
        public var idleTimeout: Duration
        public var cap: ConnectionCap
        /// How long a request's body may take to arrive, however steadily its bytes trickle in
        /// (the idle timeout restarts with each one).
        public var bodyTimeout: Duration
        public static let defaultBodyTimeout: Duration = .seconds(10)

        public init(
            idleTimeout: Duration = .seconds(30), cap: ConnectionCap = .forThisProcess(),
            bodyTimeout: Duration = defaultBodyTimeout
        ) {
            self.idleTimeout = idleTimeout
            self.cap = cap
            self.bodyTimeout = bodyTimeout
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
        let http1 = HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [cap.handler()],
                idleTimeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
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
            router: router(served: served, logger: logger, bodyTimeout: limits.bodyTimeout), server: server,
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

    /// Threads of their own for a server that shares its process with other work (tests and
    /// benchmarks that serve in process): its connections' tasks run there when started under this
    /// preference (`withTaskExecutorPreference`), so that work holding Swift's cooperative threads
    /// (two on two cores) cannot keep a request from being read or answered. `storefront serve`
    /// has its process to itself and does not need it.
    public static func ownThreads(_ count: Int) -> any TaskExecutor {
        let pool = NIOThreadPool(numberOfThreads: count)
        pool.start()
        return ThreadPoolTaskExecutor(pool: pool)
    }

    /// Watches this process's blocking calls (BlockingWatch) while it serves: one made on a Swift
    /// task's thread is a defect, logged once per kind; with `strict` (STOREFRONT_STRICT_THREADS=1,
    /// as the tests run the server) the process ends at once with status 70, naming it.
    public static func watchBlockingCalls(logger: Logger, strict: Bool) {
        let seen = Locked<Set<String>>([])
        BlockingWatch.report { what in
            if strict {
                FileHandle.standardError.write(
                    Data("storefront serve: \(what) ran on a Swift task's thread, not the blocking pool\n".utf8))
                _exit(70)
            }
            if seen.withLock({ $0.insert(what).inserted }) {
                logger.error("\(what) ran on a Swift task's thread, not the blocking pool")
            }
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

        /// A request answered in this process, from no address (`ServerAPI.respond`).
        init(inProcess logger: Logger) {
            coreContext = .init(source: InProcess(logger: logger))
            remoteAddress = nil
        }

        private struct InProcess: RequestContextSource {
            let logger: Logger
        }

        /// The client's IP address, without its port.
        var client: String { remoteAddress?.ipAddress ?? "" }
    }
}

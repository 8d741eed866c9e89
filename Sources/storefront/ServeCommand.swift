// `storefront serve` (V1, W5, W6, W11): the App Store Server API and the team's account server over
// this state folder, on Hummingbird, with its background work in one ServiceGroup.
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StoreCore
import StoreModel
import StorefrontServer

/// swift-log's levels, by their names, as `--log-level` takes them.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical
    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

/// Where and how `serve` listens, declared once: the parser checks them before anything opens.
struct ServeOptions: ParsableArguments {
    @Option(
        help:
            "The address or name to listen on; a name listens on every address it resolves to (localhost: ::1 and 127.0.0.1)."
    )
    var host = "localhost"
    @Option(help: "The port (0: a free one, printed).")
    var port = 8080
    @Option(
        help: ArgumentHelp(
            "Keep the account server's state in PostgreSQL (default: $STOREFRONT_DATABASE_URL, else SQLite in the state folder). A URL with a password is best given in $STOREFRONT_DATABASE_URL: options show in the process list.",
            valueName: "postgres://user@host/db"
        )
    )
    var database: String?
    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "chain.pem"))
    var tlsCertificate: String?
    @Option(
        name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "key.pem"))
    var tlsKey: String?
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Close a connection idle this many seconds (or whose request head never completes).", valueName: "seconds")
    )
    var idleTimeout: Double = 30
    @Option(
        name: .customLong("body-timeout"),
        help: ArgumentHelp(
            "Answer 408 and close a connection whose request body takes longer than this many seconds to arrive.",
            valueName: "seconds"))
    var bodyTimeout = Double(ServerApplication.Limits.defaultBodyTimeout.components.seconds)
    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections open at once, at most (default: below the file limit); beyond it the longest-idle one is closed.",
            valueName: "n")
    )
    var maxConnections: Int?
    @Option(
        name: .customLong("session-days"),
        help: ArgumentHelp(
            "How long a device's session stands for its account before it must sign in again (real time).",
            valueName: "days"))
    var sessionDays: Double = DeviceSessionInfo.defaultLifetime / 86_400
    @Option(
        name: .customLong("sign-in-lock-after"),
        help: ArgumentHelp(
            "Failed sign-ins in a row, from devices an account does not know, before it takes none from them for \(Int(SignInLimits.lockFor / 60)) minutes (or until `storefront account unlock NAME`); 1 to 100.",
            valueName: "n"))
    var signInLockAfter = SignInLimits.defaultLockAfter
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "How much standard error tells: info logs each request; debug and trace add ServiceLifecycle's and Hummingbird's steps (a stop that hangs names its service).",
            valueName: "level"))
    var logLevel = LogLevel.info

    func validate() throws {
        guard SignInLimits.lockAfterRange.contains(signInLockAfter) else {
            throw ValidationError("--sign-in-lock-after takes a number from 1 to 100 (NIST SP 800-63B's ceiling)")
        }
        guard SignInLimits.lockAfterRange.contains(signInLockAfter) else {
            throw ValidationError("--sign-in-lock-after takes a number from 1 to 100 (NIST SP 800-63B's ceiling)")
        }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout takes a number of seconds above 0") }
        guard bodyTimeout > 0 else { throw ValidationError("--body-timeout takes a number of seconds above 0") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections takes a number above 0") }
        guard sessionDays > 0 else { throw ValidationError("--session-days takes a number of days above 0") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        guard !host.isEmpty else { throw ValidationError("--host takes an address or a name") }
    }

    var tls: ServerApplication.TLSFiles? {
        guard let tlsCertificate, let tlsKey else { return nil }
        return ServerApplication.TLSFiles(certificate: tlsCertificate, key: tlsKey)
    }

    var limits: ServerApplication.Limits {
        var limits = ServerApplication.Limits()
        limits.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        limits.bodyTimeout = .milliseconds(Int64(bodyTimeout * 1000))
        if let maxConnections { limits.cap = ConnectionCap(limit: min(maxConnections, limits.cap.limit)) }
        return limits
    }
}

/// `storefront serve`'s work in its group: opens the store and serves it (`work`) until the group
/// stops.
struct ServingService: Service {
    let logger: Logger
    let work: @Sendable () async throws -> Void

    func run() async throws { try await work() }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the App Store Server API over this state folder (V1): Apple's paths, tokens, JSON and errors.",
        discussion:
            "Prints the address it listens on (--port 0 picks a free one); stops cleanly on SIGINT and SIGTERM; delivers notifications while it runs."
    )
    @OptionGroup var serve: ServeOptions
    @OptionGroup var common: CommonOptions

    func run() async throws {
        do {
            try await serveUntilStopped()
        } catch let failure as CommandFailure {
            printError("storefront serve: \(failure.message)")
            throw ExitCode(failure.status)
        }
    }

    func serveUntilStopped() async throws {
        ProcessList.hidePasswords()
        let logger: Logger = {
            var logger = Logger(label: "storefront-serve")
            logger.logLevel = serve.logLevel.level
            return logger
        }()
        // The request log's timestamps are local time. With TZ unset, glibc's localtime stats
        // /etc/localtime on every call, a filesystem call on a Swift task's thread per request;
        // named once here, the zone is read once. A TZ that is set is left as it is.
        setenv("TZ", ":/etc/localtime", 0)
        let database: PostgresAccountServer?
        do {
            database = try DatabaseURL.given(serve.database).map { url throws(StoreError) in
                try PostgresAccountServer(url: url)
            }
        } catch {
            throw CommandFailure(message: error.description, status: error.exitStatus == 1 ? 2 : error.exitStatus)
        }
        // One group: PostgreSQL's pool (when the state is there), then the server with the work
        // beside it. SIGTERM or SIGINT stops them in the reverse order, so the pool is the last
        // to go. Within five seconds of SIGTERM the process is gone (W11): ServiceLifecycle's own
        // escalation cancels what has not stopped after 2 s, and ends the process with a fatal
        // error (its `fatalError`, a SIGILL on x86_64) if cancelling takes over 2.5 s more. That
        // fatal error was the trap once seen at a stop with 20,000 connections, under 3 s and 1 s
        // limits; every round of the background services now stops at its next step, and the
        // connections close well within the cancellation limit (docs/decisions/0002).
        let serving = ServingService(logger: logger) { [self] in
            try await serveOpened(database: database, logger: logger)
        }
        var configuration = ServiceGroupConfiguration(
            services: (database.map { [.init(service: $0.client)] } ?? []) + [
                .init(service: serving)
            ],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(2)
        configuration.maximumCancellationDuration = .milliseconds(2_500)
        let group = ServiceGroup(configuration: configuration)
        ServerApplication.watchBlockingCalls(
            logger: logger, strict: ProcessInfo.processInfo.environment["STOREFRONT_STRICT_THREADS"] == "1")
        do {
            try await group.run()
        } catch let failure as CommandFailure {
            throw failure
        } catch  where ServerApplication.isAddressInUse(error) {
            throw CommandFailure(
                message:
                    "\(serve.host):\(serve.port) is in use (another storefront serve?): --port names another, --port 0 picks a free one",
                status: 3
            )
        } catch {
            throw CommandFailure(message: "\(error)", status: 3)
        }
        BlockingWatch.report(to: nil)
        print("storefront serve: stopped")
    }

    /// Opens the store (the database checked and migrated first), then serves it until the group
    /// stops, and lists the requests answered since the last round while the database is still
    /// there.
    func serveOpened(database: PostgresAccountServer?, logger: Logger) async throws {
        let served = try await ServerApplication.blockingWork.runIfActive {
            try opened(database: database, logger: logger)
        }
        let listener: any Service
        do {
            listener = try ServerApplication.listener(
                served: served, host: serve.host, port: serve.port, logger: logger, tls: serve.tls, limits: serve.limits
            ) { url in
                FileHandle.standardOutput.write(Data("storefront serve: listening on \(url)\n".utf8))
            }
        } catch {
            throw CommandFailure(message: error.description, status: 2)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: ([listener] + served.services(logger: logger)).map {
                    ServiceGroupConfiguration.ServiceConfiguration(service: $0)
                },
                logger: logger
            )
        )
        try await group.run()
        do { try await ServerApplication.blockingWork.runIfActive { try served.listRequests() } } catch {
            logger.error("request list failed: \(error)")
        }
    }

    /// The store the server serves: a corrupt or missing state, a bad catalog or an unreachable
    /// database is said before anything listens.
    func opened(database: PostgresAccountServer?, logger: Logger) throws -> ServedStore {
        do {
            try database?.prepare()
            let catalog = try Context.loadCatalog(common).catalog
            let state = try Context.resolveStateDirectory(common)
            // https:// webhooks trust the same CA file.
            try Context.applyCAFile(common)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone.current
            // W5: the account server's state in PostgreSQL when a database is named, else in the
            // state folder's SQLite file. The state folder keeps the certificate authority either way.
            return try ServedStore(
                factory: StoreFactory(
                    stateDirectory: StateDirectory(state), catalog: catalog, calendar: calendar,
                    time: .shared(override: nil), server: database
                ),
                logger: logger, sessionLifetime: serve.sessionDays * 86_400, lockAfter: serve.signInLockAfter
            )
        } catch let error as StoreError {
            throw CommandFailure(message: error.description, status: error.exitStatus == 1 ? 2 : error.exitStatus)
        } catch let error as CatalogError {
            throw CommandFailure(message: error.description, status: 2)
        }
    }
}

/// W12: a PostgreSQL password given with `--database` never stays in the process list. The bytes
/// of this process's arguments, which /proc/PID/cmdline shows, are written over in place (as
/// PostgreSQL's own programs retitle themselves): the password of a `postgres://user:password@…`
/// argument becomes asterisks of the same length. $STOREFRONT_DATABASE_URL keeps it out from the
/// start.
enum ProcessList {
    static func hidePasswords() {
        for index in 0..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let length = strlen(argument)
            let bytes = UnsafeMutableBufferPointer(
                start: UnsafeMutableRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: length)
            guard let range = passwordRange(in: Array(bytes)) else { continue }
            for offset in range { bytes[offset] = UInt8(ascii: "*") }
        }
    }

    /// Where the password of a URL with one stands in `text`: between `user:` after `://` and the
    /// last `@` before the host.
    static func passwordRange(in text: [UInt8]) -> Range<Int>? {
        let string = String(decoding: text, as: UTF8.self)
        guard let scheme = string.range(of: "://"), string.lowercased().contains("postgres") else { return nil }
        let afterScheme = string[scheme.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return nil
        }
        let start = string.utf8.distance(from: string.startIndex, to: string.index(after: colon))
        let end = string.utf8.distance(from: string.startIndex, to: at)
        return start < end ? start..<end : nil
    }
}

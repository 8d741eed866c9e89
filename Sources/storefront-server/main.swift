// storefront-server: the App Store Server API over a state folder (V1–V7), on Hummingbird.
// `storefront serve` starts it with the folder and catalog it resolved; it is a program of its own
// so that the screen's program does not carry SwiftNIO (DECISIONS.md).
//   storefront-server --state-dir DIR --catalog FILE [--host 127.0.0.1] [--port 8080] [--database postgres://…]
//                     [--tls-cert CHAIN.pem --tls-key KEY.pem]
// The database URL may come from $STOREFRONT_DATABASE_URL instead, so that its password is not in
// the process list (`storefront serve` passes it that way).
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StoreCore
import StorefrontServer
import StorefrontTLS

func fail(_ message: String, _ status: Int32) -> Never {
    FileHandle.standardError.write(Data("storefront serve: \(message)\n".utf8))
    exit(status)
}

/// https:// webhooks go through the TLS client, trusting $STOREFRONT_CA_FILE too (W13).
struct LinkedTLS: SecureTransport {
    func post(_ url: URL, headers: [String: String], body: Data, timeout: TimeInterval) -> Result<(status: Int, body: Data), HTTPProblem> {
        switch HTTPSClient.shared.post(url.absoluteString, headers: headers.sorted { $0.key < $1.key }, body: Array(body), timeout: timeout) {
        case .success(let answer): .success((answer.status, Data(answer.body)))
        case .failure(let failure): .failure(HTTPProblem(failure.reason))
        }
    }
}
HTTPCall.install(LinkedTLS())

// The request log's timestamps are local time. With TZ unset, glibc's localtime stats
// /etc/localtime on every call, so every request made a filesystem call on a Swift task's thread
// (perf, issue 23). That cost a fifth of Get Transaction History's rate under wrk. Named once
// here, the zone is read once; a TZ that is set is left as it is.
setenv("TZ", ":/etc/localtime", 0)
var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard name.hasPrefix("--"), let value = arguments.popFirst() else { fail("usage: storefront-server --state-dir DIR --catalog FILE [--host H] [--port P]", 2) }
    options[String(name.dropFirst(2))] = value
}
guard let stateDirectory = options["state-dir"], let catalogPath = options["catalog"] else { fail("--state-dir and --catalog are required", 2) }
let host = options["host"] ?? "127.0.0.1"
guard let port = Int(options["port"] ?? "8080"), (0...65_535).contains(port) else { fail("--port takes 0 to 65535", 2) }

let catalog: Catalog
do {
    catalog = try CatalogLoader.load(contentsOf: URL(fileURLWithPath: catalogPath)).catalog
} catch {
    fail(error.description, 2)
}
let logger: Logger = {
    var logger = Logger(label: "storefront-serve")
    logger.logLevel = .info
    return logger
}()

let served: ServedStore
do {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone.current
    // W5: the account server's state in PostgreSQL when --database names one, else in the state
    // folder's SQLite file. The state folder keeps the certificate authority either way.
    let database: (any AccountServer)? = try DatabaseURL.given(options["database"]).map { url throws(StoreError) in try PostgresAccountServer(url: url) }
    served = try ServedStore(factory: StoreFactory(
        stateDirectory: StateDirectory(URL(fileURLWithPath: stateDirectory)), catalog: catalog, calendar: calendar, time: .shared(override: nil),
        server: database
    ), logger: logger)
} catch {
    // As the command line's statuses: storage trouble 3, anything else about what was given 2.
    switch error {
    case .corruptDatabase, .storage, .stopped, .serverUnreachable: fail(error.description, 3)
    default: fail(error.description, 2)
    }
}

if (options["tls-cert"] == nil) != (options["tls-key"] == nil) { fail("--tls-cert and --tls-key go together", 2) }
let tls = options["tls-cert"].flatMap { certificate in options["tls-key"].map { ServerApplication.TLSFiles(certificate: certificate, key: $0) } }
let scheme = tls == nil ? "http" : "https"
// W11: idle connections close after --idle-timeout seconds (30); at most --max-connections are open
// (below the file limit, which is raised to its hard limit), the longest-idle closed to admit more.
let limits: ServerApplication.Limits = {
    var limits = ServerApplication.Limits()
    if let text = options["idle-timeout"] {
        guard let seconds = Double(text), seconds > 0 else { fail("--idle-timeout takes a number of seconds", 2) }
        limits.idleTimeout = .milliseconds(Int64(seconds * 1000))
    }
    if let text = options["max-connections"] {
        guard let count = Int(text), count > 0 else { fail("--max-connections takes a number", 2) }
        limits.cap = ConnectionCap(limit: min(count, limits.cap.limit))
    }
    return limits
}()
func makeApplication() -> some ApplicationProtocol {
    do {
        return try ServerApplication.make(served: served, host: host, port: port, logger: logger, tls: tls, limits: limits) { bound in
            FileHandle.standardOutput.write(Data("storefront serve: listening on \(scheme)://\(host):\(bound)\n".utf8))
        }
    } catch {
        fail("\(error)", 2)
    }
}
let app = makeApplication()

// The HTTP server and the work beside it (N3 delivery, O5 family shares, V7's request list), one
// group: SIGTERM or SIGINT stops them all, the services after the server.
// W11: within five seconds of SIGTERM the process is gone: the server and the services finish what
// they are doing, and StopDeadline's thread ends the process at 4.5 s if they have not. The group
// never escalates to cancelling: a trap in library code on a concurrency thread was seen once when
// a stop with 20,000 connections ran past ServiceLifecycle's cancellation point, and ending the
// process from a thread of its own loses nothing (every write is one transaction).
var configuration = ServiceGroupConfiguration(
    services: [.init(service: app)] + served.services(logger: logger).map { .init(service: $0) } + [.init(service: StopDeadline(logger: logger), successTerminationBehavior: .ignore)],
    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
)
configuration.maximumGracefulShutdownDuration = nil
configuration.maximumCancellationDuration = nil
let group = ServiceGroup(configuration: configuration)
// From here on the store's blocking work belongs on the blocking pool (issue 23); the stop's last
// request list below runs on the main task, once, after the server has stopped answering.
ServerApplication.watchBlockingCalls(logger: logger, strict: ProcessInfo.processInfo.environment["STOREFRONT_STRICT_THREADS"] == "1")
do {
    try await group.run()
} catch where ServerApplication.isAddressInUse(error) {
    fail("\(host):\(port) is in use (another storefront serve?): --port names another, --port 0 picks a free one", 3)
} catch {
    fail("\(error)", 3)
}
BlockingWatch.report(to: nil)
do { try served.listRequests() } catch { logger.error("request list failed: \(error)") }
print("storefront serve: stopped")

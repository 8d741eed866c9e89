// storefront-server: the App Store Server API over a state folder (V1–V7), on Hummingbird.
// `storefront serve` starts it with the folder and catalog it resolved; it is a program of its own
// so that the screen's program does not carry SwiftNIO (DECISIONS.md).
//   storefront-server --state-dir DIR --catalog FILE [--host 127.0.0.1] [--port 8080]
import Foundation
import Hummingbird
import Logging
import StoreCore

func fail(_ message: String, _ status: Int32) -> Never {
    FileHandle.standardError.write(Data("storefront serve: \(message)\n".utf8))
    exit(status)
}

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
var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = TimeZone.current

/// The store the server reads and settles through, one request at a time (a Store is not shared
/// between threads); the embedded account server itself serialises its own reads and writes.
final class Served: @unchecked Sendable {
    let store: Store
    let api: ServerAPI
    let courier: NotificationCourier
    /// Requests answered and not yet listed in the account server: written together once a
    /// second, so that listing them (V7) costs a request almost nothing.
    let requests = Locked<[ServedRequest]>([])

    init(stateDirectory: String, catalog: Catalog, calendar: Calendar) throws(StoreError) {
        let factory = try StoreFactory(stateDirectory: StateDirectory(URL(fileURLWithPath: stateDirectory)), catalog: catalog, calendar: calendar, time: .shared(override: nil))
        store = try factory.open(device: "app-store-server")
        courier = try store.notifications.courier()
        let settler = Settler(store: store)
        let courier = courier
        api = ServerAPI(
            server: store.server, catalog: catalog, authority: try store.signed.authority(), clock: store.clock,
            deliver: { _ = try? courier.deliverDue() },
            settle: { account in settler.settle(account) }
        )
    }
}

/// Settles one account at a time through the one store (a Store is not shared between threads).
final class Settler: @unchecked Sendable {
    private let store: Store
    private let lock = NSLock()
    init(store: Store) { self.store = store }
    func settle(_ account: String) { lock.withLock { _ = try? store.plans.settle(account: account) } }
}

let served: Served
do {
    served = try Served(stateDirectory: stateDirectory, catalog: catalog, calendar: calendar)
} catch {
    fail(error.description, error.exitStatus)
}

let logger: Logger = {
    var logger = Logger(label: "storefront-serve")
    logger.logLevel = .info
    return logger
}()

/// The benchmark's floor (storefront-bench serve): the same server, a fixed body of `bytes` bytes
/// (a small one by default), no store; each size made once.
let fixedBodies = Locked<[Int: ByteBuffer]>([:])
@Sendable func fixedBody(bytes: Int) -> ByteBuffer {
    fixedBodies.withLock { bodies in
        if let body = bodies[bytes] { return body }
        let filler = #"{"fixed":""# + String(repeating: "x", count: max(0, bytes - 13)) + #""}"#
        let body = ByteBuffer(bytes: Data(filler.utf8))
        bodies[bytes] = body
        return body
    }
}

let responder = CallbackResponder<BasicRequestContext> { request, _ in
    if request.uri.path == "/storefront/fixed" {
        let bytes = request.uri.queryParameters["bytes"].flatMap { Int(String($0)) }.map { min(max($0, 13), ServerAPI.maximumBody) } ?? 13
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: fixedBody(bytes: bytes)))
    }
    let started = Date()
    var query: [(String, String)] = []
    for (key, value) in request.uri.queryParameters {
        query.append((String(key).removingPercentEncoding ?? String(key), String(value).removingPercentEncoding ?? String(value)))
    }
    let body: ByteBuffer
    do {
        body = try await request.body.collect(upTo: ServerAPI.maximumBody)
    } catch {
        let payload = Data(#"{"errorCode":4000163,"errorMessage":"the body is over 1 MB"}"#.utf8)
        logger.info("\(request.method.rawValue) \(request.uri.path) 413")
        return Response(status: .contentTooLarge, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: payload)))
    }
    let answer = served.api.handle(APIRequest(
        method: request.method.rawValue, path: request.uri.path, query: query,
        authorization: request.headers[.authorization], body: Data(buffer: body)
    ))
    let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
    // V7: one line per request, and the list the screen's transaction manager shows.
    logger.info("\(request.method.rawValue) \(request.uri.path) \(answer.status) \(milliseconds) ms")
    served.requests.withLock { $0.append(ServedRequest(
        at: started, method: request.method.rawValue, path: request.uri.path, status: answer.status, milliseconds: milliseconds
    )) }
    return Response(
        status: .init(code: answer.status), headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(bytes: answer.body))
    )
}

let app = Application(
    responder: responder,
    configuration: .init(address: .hostname(host, port: port), serverName: "Storefront"),
    onServerRunning: { channel in
        let bound = channel.localAddress?.port ?? port
        FileHandle.standardOutput.write(Data("storefront serve: listening on http://\(host):\(bound)\n".utf8))
    },
    logger: logger
)

// N3 while serving: what is due goes out every second; the requests answered are listed (V7)
// every second (a write ends every kept answer, which are kept a second at most anyway).
let delivery = Task.detached {
    while !Task.isCancelled {
        _ = try? served.courier.deliverDue()
        try? await Task.sleep(nanoseconds: 1_000_000_000)
    }
}
@Sendable func listRequests() {
    let answered = served.requests.withLock { requests in
        defer { requests.removeAll() }
        return requests
    }
    try? served.store.server.recordRequests(answered)
}
let listing = Task.detached {
    while !Task.isCancelled {
        listRequests()
        try? await Task.sleep(nanoseconds: 1_000_000_000)
    }
}

do {
    try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
} catch {
    fail("\(error)", 3)
}
delivery.cancel()
listing.cancel()
listRequests()
print("storefront serve: stopped")

// The floor Get Transaction History is measured against: a Hummingbird server of the benchmark's
// own, with the HTTP/1.1 settings `storefront serve` has, answering a fixed body of any size and
// doing nothing else. The served application holds no route of the benchmark's.
import Foundation
import Hummingbird
import StoreCore
import StoreModel

/// Starts the fixed-body server on a free loopback port: its base URL. `GET /fixed?bytes=N` answers
/// N bytes of JSON (13 at the least, 14 by default), each size made once. It runs until the
/// benchmark ends.
func startFixedBodies() throws -> String {
    let bodies = Locked<[Int: ByteBuffer]>([:])
    let router = Router()
    router.get("fixed") { request, _ -> Response in
        let bytes =
            request.uri.queryParameters["bytes"].flatMap { Int(String($0)) }.map { min(max($0, 13), 1 << 20) } ?? 14
        let body = bodies.withLock { made in
            if let body = made[bytes] { return body }
            let body = ByteBuffer(string: #"{"fixed":""# + String(repeating: "x", count: bytes - 13) + #""}"#)
            made[bytes] = body
            return body
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }
    let port = Locked<Int?>(nil)
    let running = DispatchSemaphore(value: 0)
    let app = Application(
        router: router, server: .http1(configuration: .init(idleTimeout: .seconds(30))),
        configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "Storefront", backlog: 4_096),
        onServerRunning: { channel in
            port.withLock { $0 = channel.localAddress?.port }
            running.signal()
        }
    )
    Task.detached { try await app.runService(gracefulShutdownSignals: []) }
    guard running.wait(timeout: .now() + 60) == .success, let bound = port.withLock({ $0 }) else {
        throw StoreError.storage(path: "fixed-body server", reason: "did not start")
    }
    return "http://127.0.0.1:\(bound)"
}

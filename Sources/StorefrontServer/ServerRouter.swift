// `storefront serve`'s routes in Hummingbird's router: each area of Apple's API a group, the account
// server's one path, and five middlewares around them: the request log (V7), Apple's error bodies,
// the body limit, a kept answer told without a hop, and the blocking pool the store's work runs on.
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import StoreCore
import StoreModel

extension ServerApplication {
    /// The router of `served`: what `make` serves, and what the route tests enumerate.
    static func router(served: ServedStore, logger: Logger, bodyTimeout: Duration = Limits.defaultBodyTimeout)
        -> Router<CallerContext>
    {
        let router = Router(context: CallerContext.self)
        router.add(middleware: RequestLogMiddleware(served: served, logger: logger))
        addAPI(served.api, to: router, bodyTimeout: bodyTimeout)
        // W1: a device's call to its account server.
        router.post(RouterPath(AccountService.path)) { request, context -> Response in
            let developer = request.headers[HTTPField.Name(AccountWire.developerHeader)!]
            let body = try await request.body.collect(upTo: ServerAPI.maximumBody)
            let called = served.accounts.handle(
                body: Data(buffer: body), authorization: request.headers[.authorization], developer: developer,
                client: context.client
            )
            if called.delay > 0 { try? await Task.sleep(nanoseconds: UInt64(called.delay * 1_000_000_000)) }
            return APIResponse(status: called.status, body: called.body).response
        }
        return router
    }

    /// Apple's error bodies, the body limit and the blocking pool for every route of `router`, and
    /// each area of Apple's API answered by `api`, a group of its own.
    static func addAPI(
        _ api: ServerAPI, to router: Router<CallerContext>, bodyTimeout: Duration = Limits.defaultBodyTimeout
    ) {
        router.add(middleware: AppleErrorMiddleware(api: api))
        router.add(middleware: BodyLimitMiddleware(timeout: bodyTimeout))
        router.add(middleware: KeptAnswerMiddleware(api: api))
        router.add(middleware: BlockingPoolMiddleware())
        for area in ServerAPI.areas {
            let group = router.group(RouterPath(area.group))
            for route in area.routes {
                group.on(RouterPath(route.path), method: route.method) { request, context -> Response in
                    let body = try await request.body.collect(upTo: ServerAPI.maximumBody)
                    let call = APIRequest(
                        method: request.method.rawValue, path: request.uri.path, query: Self.query(request),
                        authorization: request.headers[.authorization],
                        body: Data(buffer: body)
                    )
                    return api.answer(route, call, parameters: context.parameters).response
                }
            }
        }
        addReceiptValidation(api, to: router)
    }

    /// The query's names and values, percent-decoded, in order.
    static func query(_ request: Request) -> [(String, String)] {
        request.uri.queryParameters.map { key, value in
            (String(key).removingPercentEncoding ?? String(key), String(value).removingPercentEncoding ?? String(value))
        }
    }

    /// Where the routes run: the blocking pool's threads, as a Swift task executor, so that a
    /// route's synchronous store work (SQLite, PostgreSQL's waits, scrypt) never holds one of
    /// Swift's cooperative threads.
    static let blockingExecutor = ThreadPoolTaskExecutor(pool: blockingWork)
}

extension ServerAPI {
    /// Answers `call` through Hummingbird's router without a socket (tests and benchmarks that
    /// check or time the routes in process): the same routes and middlewares `storefront serve`
    /// runs, but the request log and the account server's path.
    public func respond(to call: APIRequest) async throws -> APIResponse {
        let responder = responder.withLock { kept in
            if let kept { return kept }
            let router = Router(context: ServerApplication.CallerContext.self)
            ServerApplication.addAPI(self, to: router)
            let made = router.buildResponder()
            kept = made
            return made
        }
        var head = HTTPRequest(
            method: HTTPRequest.Method(call.method) ?? .get, scheme: "http", authority: "localhost", path: call.target)
        if let authorization = call.authorization { head.headerFields[.authorization] = authorization }
        let response = try await responder.respond(
            to: Request(head: head, body: .init(buffer: ByteBuffer(bytes: call.body))),
            context: ServerApplication.CallerContext(inProcess: Logger(label: "storefront-serve"))
        )
        let collected = Collected()
        try await response.body.write(collected)
        return APIResponse(status: Int(response.status.code), body: collected.data)
    }

    /// A response body as it is written, kept.
    private final class Collected: ResponseBodyWriter, @unchecked Sendable {
        var data = Data()

        func write(_ buffer: ByteBuffer) async throws { data.append(contentsOf: buffer.readableBytesView) }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

extension APIRequest {
    /// The path with its query, percent-encoded as a client sends it.
    var target: String {
        guard !query.isEmpty else { return path }
        var components = URLComponents()
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        return path + "?" + (components.percentEncodedQuery ?? "")
    }
}

extension APIResponse {
    /// The answer as Hummingbird sends it: `Content-Type: application/json` exactly.
    var response: Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: bytes))
    }
}

/// A task executor on a NIOThreadPool: each job runs on one of the pool's threads.
final class ThreadPoolTaskExecutor: TaskExecutor {
    let pool: NIOThreadPool

    init(pool: NIOThreadPool) { self.pool = pool }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Run whatever the pool's state: a job left unrun would hang its task.
        pool.submit { _ in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Runs the rest of the chain (the route and its handler) on the blocking pool, where BlockingWatch
/// lets a synchronous store call wait.
struct BlockingPoolMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        try await withTaskExecutorPreference(ServerApplication.blockingExecutor) {
            try await BlockingWatch.$onBlockingPool.withValue(true) { try await next(request, context) }
        }
    }
}

/// A kept answer told on this thread (`ServerAPI.keptAnswer`), with no hop to the blocking pool:
/// what keeps Get Transaction History under load near a fixed body's rate.
struct KeptAnswerMiddleware<Context: RequestContext>: RouterMiddleware {
    let api: ServerAPI

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if request.method == .get, request.uri.path != AccountService.path,
            let kept = api.keptAnswer(
                APIRequest(
                    method: "GET", path: request.uri.path, query: ServerApplication.query(request),
                    authorization: request.headers[.authorization]
                ))
        {
            return kept.response
        }
        return try await next(request, context)
    }
}

/// A body over `ServerAPI.maximumBody` gets Apple's 413 before any route reads it; a body within
/// it is collected once, for the route to read. A body that takes longer than `timeout` to arrive
/// gets 408 and its connection closed: a client sending a byte at a time holds no connection for
/// long, whatever the idle timeout.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let timeout: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // Most of Apple's calls are GETs with no body: nothing to wait for.
        if request.method == .get, request.headers[.contentLength] ?? "0" == "0",
            request.headers[.transferEncoding] == nil
        {
            return try await next(request, context)
        }
        let collected: Request?
        do {
            collected = try await withThrowingTaskGroup(of: Request?.self) { group in
                group.addTask {
                    var request = request
                    _ = try await request.collectBody(upTo: ServerAPI.maximumBody)
                    return request
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        } catch is NIOTooManyBytesError {
            return ServerAPI.bodyTooLong.response
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return ServerAPI.bodyTooLong.response
        }
        guard let collected else {
            // Apple's API has no code for it: Storefront's own, with no errorCode.
            return Response(
                status: .requestTimeout, headers: [.contentType: "application/json", .connection: "close"],
                body: ResponseBody(
                    byteBuffer: ByteBuffer(string: #"{"errorMessage":"the body did not arrive in time"}"#)))
        }
        return try await next(collected, context)
    }
}

/// Every failure as Apple's error body: no route is Apple's 404 with its code once the token
/// verifies (a request without a good one learns nothing of the paths: 401), anything else a 500
/// with its words (the pool stopped only as the process ends).
struct AppleErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let api: ServerAPI

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            let call = APIRequest(
                method: request.method.rawValue, path: request.uri.path, authorization: request.headers[.authorization])
            return try await ServerApplication.blockingWork.runIfActive { api.unrouted(call) }.response
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return ServerAPI.bodyTooLong.response
        } catch is CancellationError {
            return APIResponse.error(APIErrorCode.generalInternal, "the server is stopping").response
        } catch {
            return APIResponse.error(APIErrorCode.generalInternal, "\(error)").response
        }
    }
}

/// V7: one line per request, and the list the screen's transaction manager shows (of the App
/// Store Server API's requests; devices' calls are only logged).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let served: ServedStore
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = Date()
        let response = try await next(request, context)
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        let status = Int(response.status.code)
        logger.info("\(request.method.rawValue) \(request.uri.path) \(status) \(milliseconds) ms")
        if request.uri.path != AccountService.path {
            served.requests.withLock { requests in
                requests.append(
                    ServedRequest(
                        at: started, method: request.method.rawValue, path: request.uri.path, status: status,
                        milliseconds: milliseconds))
            }
        }
        return response
    }
}

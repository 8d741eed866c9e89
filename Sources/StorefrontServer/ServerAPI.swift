// The App Store Server API over the store's own records (V1–V5): Apple's paths, query parameters,
// JSON shapes, status codes and error codes, everything returned signed (S2). Each area of the API
// declares its routes (`APIArea`), which Hummingbird's router registers and matches; a matched
// request goes in as method, path, query, token, body and the router's parameters, and comes out
// as a status and a JSON body.
import Foundation
import Hummingbird
import Logging
import NIOCore
import StoreCore
import StoreModel

public struct APIRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [(String, String)]
    public var authorization: String?
    public var body: Data

    public init(
        method: String, path: String, query: [(String, String)] = [], authorization: String? = nil, body: Data = Data()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
    }

    func values(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }
    func value(_ name: String) -> String? { values(name).last }
}

public struct APIResponse: Sendable, Equatable, Error {
    public var status: Int
    /// JSON; `Content-Type: application/json` exactly (Apple's Python client reads error codes only then).
    public var body: Data
    /// The body as the server sends it, made once for an answer that is kept (a history page is
    /// 73 KB, and copying it into a new buffer for every request was 6% of the server's time).
    var wire: ByteBuffer?

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    public static func == (left: APIResponse, right: APIResponse) -> Bool {
        left.status == right.status && left.body == right.body
    }

    /// The body to send: the one made before, or a copy of `body`.
    var bytes: ByteBuffer { wire ?? ByteBuffer(bytes: body) }

    /// The same answer, its body made once to be sent many times.
    func keepingBytes() -> APIResponse {
        var kept = self
        kept.wire = ByteBuffer(bytes: body)
        return kept
    }

    /// A refusal with Apple's code, at the HTTP status the code comes with (`APIErrorCode.status`).
    static func error(_ code: APIErrorCode, _ message: String) -> APIResponse {
        json(ErrorPayload(errorCode: code.rawValue, errorMessage: message), status: code.status)
    }
}

/// One route of Apple's API: a method, a path within its area's group whose `:name` segments are
/// parameters (Hummingbird's router matches them), and what answers it on the blocking pool.
/// `kept`: its 200 answer may be kept while nothing changes (a read about the transaction `:id`).
struct APIRoute: Sendable {
    typealias Answer = @Sendable (ServerAPI, APIRequest, Parameters, AppIdentity) throws -> APIResponse
    let method: HTTPRequest.Method
    let path: String
    let kept: Bool
    let answer: Answer

    init(_ method: HTTPRequest.Method, _ path: String, kept: Bool = false, _ answer: @escaping Answer) {
        self.method = method
        self.path = path
        self.kept = kept
        self.answer = answer
    }
}

/// One area of Apple's API: its routes, registered in a group of the router under `group`.
struct APIArea: Sendable {
    let group: String
    let routes: [APIRoute]
}

public final class ServerAPI: Sendable {
    let server: any RecordKeeping
    let catalog: Catalog
    let authority: CertificateAuthority
    let clock: any StoreClock
    /// Tells the delivery service that the outbox holds something due (a TEST notification,
    /// RENEWAL_EXTENDED): it is sent after the answer, never before it.
    let deliver: @Sendable () -> Void
    /// Real time for token expiry (tokens are the client's, not the store's).
    let realNow: @Sendable () -> Date
    /// Writes the renewals the clock has passed for an account before it is read.
    let settle: @Sendable (String) -> Void
    /// Whether a `password` sent to verifyReceipt is one of the app's shared secrets (V10).
    let passwordAccepted: @Sendable (String) -> Bool
    /// Failures of work that does not change an answer (a performance test's result, written after).
    let logger: Logger
    /// Answers, identity, keyring and tokens kept while nothing changed.
    let cache = AnswerCache()
    /// The router `respond(to:)` answers through, built on first use.
    let responder = Locked<RouterResponder<ServerApplication.CallerContext>?>(nil)
    public static let pageSize = 20
    public static let maximumBody = 1 << 20
    /// The answer to a body over `maximumBody`.
    public static let bodyTooLong = APIResponse.error(APIErrorCode.bodyTooLong, "the body is over 1 MB")

    public init(
        server: any RecordKeeping, catalog: Catalog, authority: CertificateAuthority, clock: any StoreClock,
        deliver: @escaping @Sendable () -> Void = {}, realNow: @escaping @Sendable () -> Date = Date.init,
        settle: @escaping @Sendable (String) -> Void = { _ in },
        passwordAccepted: @escaping @Sendable (String) -> Bool = { _ in false },
        logger: Logger = Logger(label: "storefront-serve")
    ) {
        self.settle = settle
        self.passwordAccepted = passwordAccepted
        self.logger = logger
        self.server = server
        self.catalog = catalog
        self.authority = authority
        self.clock = clock
        self.deliver = deliver
        self.realNow = realNow
    }

    func identity() throws(StoreError) -> AppIdentity {
        try AppIdentity.current(server: server, catalog: catalog)
    }

    /// Every area of Apple's API this server answers, each a group of the router.
    static let areas: [APIArea] = [
        transactionRoutes, customerRoutes, subscriptionRoutes, extensionRoutes, consumptionRoutes, notificationRoutes,
        retentionRoutes,
    ]

    /// Answers `request` by `route`, whose parameters the router bound: the token checked, then
    /// the route's answer, kept for the next time when it may be. Never throws: a storage failure
    /// is a 500 with its words. Runs on the blocking pool.
    func answer(_ route: APIRoute, _ request: APIRequest, parameters: Parameters) -> APIResponse {
        do {
            return try authorized(request) { identity, shared in
                guard route.kept, let id = parameters.get("id"), Self.isTransactionID(id),
                    let line = try server.receiptEntry(transactionID: id)
                else {
                    return try route.answer(self, request, parameters, identity)
                }
                // Read before the answer is made: a write while it is made moves the stamp, and
                // the next request makes it again.
                let accounts = try accountsTold(about: line.account)
                let stamp = try server.changeStamp(accounts: accounts)
                let key = Self.keptKey(request)
                return try cache.answer(key, accounts: accounts, stamp: stamp, now: clock.now()) {
                    () throws -> APIResponse in
                    let response = try route.answer(self, request, parameters, identity)
                    if response.status == 200,
                        let until = AnswerCache.until(
                            now: clock.now(), plans: Array(try server.plans(account: line.account).values)),
                        try server.changeStamp(accounts: []) == shared
                    {
                        cache.keep(response, key: key, accounts: accounts, stamp: stamp, shared: shared, until: until)
                    }
                    return response
                }
            }
        } catch let error as APIResponse {
            return error
        } catch {
            return .error(APIErrorCode.generalInternal, "\(error)")
        }
    }

    /// The accounts whose records an answer about `account` reads: its own, and its family's
    /// (a member's statuses and shares come from the organizer's plans and purchases).
    func accountsTold(about account: String) throws(StoreError) -> [String] {
        guard let family = try server.families().first(where: { $0.includes(account) }) else { return [account] }
        return [family.organizer] + family.members
    }

    /// What a kept answer is kept by: its path and query.
    static func keptKey(_ request: APIRequest) -> String {
        var key = request.path
        for (name, value) in request.query { key += "&\(name)=\(value)" }
        return key
    }

    /// The answer kept for `request`, when all that tells it can be read without waiting: an
    /// answer kept under the request's path and query (only a route that may keep its answer keeps
    /// one) whose accounts' stamp (`changeStampWithoutWaiting`) is the same as when it was made, a
    /// token verified before against the identity and keyring of then, and the store's time, at
    /// which it is still good. Nil
    /// when any is missing; the route then answers on the blocking pool, the same way. Safe on a
    /// Swift task's thread.
    func keptAnswer(_ request: APIRequest) -> APIResponse? {
        guard request.method == "GET", let token = request.authorization, let now = clock.nowWithoutWaiting() else {
            return nil
        }
        return cache.answer(Self.keptKey(request), now: now, token: token, realNow: realNow()) { accounts in
            server.changeStampWithoutWaiting(accounts: accounts)
        }
    }

    /// The answer to a request no route matches: Apple's 404 once its token verifies, else 401.
    func unrouted(_ request: APIRequest) -> APIResponse {
        do {
            return try authorized(request) { _, _ in
                .error(APIErrorCode.notFound, "no route \(request.method) \(request.path)")
            }
        } catch {
            return .error(APIErrorCode.generalInternal, "\(error)")
        }
    }

    /// `body` with the app's identity and the shared part's stamp it was read at, once the
    /// request's token verifies; Apple's 401 when it does not. The identity, the keyring and the
    /// tokens verified against them are kept while the shared part's stamp is the same.
    private func authorized(_ request: APIRequest, _ body: (AppIdentity, ChangeStamp) throws -> APIResponse) throws
        -> APIResponse
    {
        if request.body.count > Self.maximumBody { return Self.bodyTooLong }
        let stamp = try server.changeStamp(accounts: [])
        let known = try cache.context(at: stamp) { () throws(StoreError) -> (AppIdentity, APIKeyring) in
            (try self.identity(), try server.apiKeyring() ?? APIKeyring())
        }
        let identity = known.identity
        let now = realNow()
        if let authorization = request.authorization, let expires = known.tokens[authorization],
            expires > now.timeIntervalSince1970
        {
            // Verified before, against the same identity and keyring.
        } else {
            do throws(TokenRefusal) {
                let expires = try APIToken.verify(
                    request.authorization, keyring: known.keyring, bundleID: identity.bundleID, now: now)
                if let authorization = request.authorization {
                    cache.remember(token: authorization, expires: expires, at: stamp)
                }
            } catch {
                return .error(APIErrorCode.unauthorized, "unauthorized: \(error.description)")
            }
        }
        return try body(identity, stamp)
    }
}

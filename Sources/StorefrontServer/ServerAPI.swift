// The App Store Server API over the store's own records (V1–V5): Apple's paths, query parameters,
// JSON shapes, status codes and error codes, everything returned signed (S2). A request goes in as
// method, path, query, headers and body and comes out as a status and a JSON body, so that the
// HTTP server (`storefront serve`) is a thin adapter and the routes can be tested without a socket.
import Foundation
import StoreCore

public struct APIRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [(String, String)]
    public var authorization: String?
    public var body: Data

    public init(method: String, path: String, query: [(String, String)] = [], authorization: String? = nil, body: Data = Data()) {
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

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    static func json(_ object: [String: Any], status: Int = 200) -> APIResponse {
        APIResponse(status: status, body: Data(CompactJSON.encode(object)))
    }

    static func error(_ status: Int, _ code: Int, _ message: String) -> APIResponse {
        json(["errorCode": code, "errorMessage": message], status: status)
    }
}

/// Apple's error codes that these routes give (`APIError` in app-store-server-library).
enum APIErrorCode {
    static let generalBadRequest = 4_000_000
    static let invalidRevision = 4_000_005
    static let invalidTransactionID = 4_000_006
    static let invalidOriginalTransactionID = 4_000_008
    static let invalidExtendByDays = 4_000_009
    static let invalidExtendReasonCode = 4_000_010
    static let invalidRequestIdentifier = 4_000_011
    static let startDateAfterEndDate = 4_000_013
    static let invalidPaginationToken = 4_000_014
    static let invalidStartDate = 4_000_015
    static let invalidEndDate = 4_000_016
    static let invalidNotificationType = 4_000_018
    static let invalidTestNotificationToken = 4_000_020
    static let invalidSort = 4_000_021
    static let invalidProductType = 4_000_022
    static let invalidInAppOwnershipType = 4_000_026
    static let invalidRevoked = 4_000_030
    static let invalidStatus = 4_000_031
    static let bodyTooLong = 4_000_163
    static let invalidAccountTenure = 4_000_032
    static let invalidAppAccountToken = 4_000_033
    static let invalidConsumptionStatus = 4_000_034
    static let invalidCustomerConsented = 4_000_035
    static let invalidDeliveryStatus = 4_000_036
    static let invalidLifetimeDollarsPurchased = 4_000_037
    static let invalidLifetimeDollarsRefunded = 4_000_038
    static let invalidPlatform = 4_000_039
    static let invalidPlayTime = 4_000_040
    static let invalidSampleContentProvided = 4_000_041
    static let invalidUserStatus = 4_000_042
    static let invalidTransactionNotConsumable = 4_000_043
    static let subscriptionExtensionIneligible = 4_030_004
    static let subscriptionMaxExtension = 4_030_005
    static let originalTransactionIDNotFound = 4_040_005
    static let testNotificationNotFound = 4_040_008
    static let transactionIDNotFound = 4_040_010
    static let unauthorized = 4_010_000
    static let notFound = 4_040_000
}

/// One route: a method and a path whose `{name}` segments bind, and what answers it.
struct APIRoute: Sendable {
    let method: String
    let pattern: [String]
    let answer: @Sendable (ServerAPI, APIRequest, [String: String], AppIdentity) throws(StoreError) -> APIResponse

    init(_ method: String, _ pattern: String, _ answer: @escaping @Sendable (ServerAPI, APIRequest, [String: String], AppIdentity) throws(StoreError) -> APIResponse) {
        self.method = method
        self.pattern = pattern.split(separator: "/").map(String.init)
        self.answer = answer
    }

    /// The bound segments when `method` and `parts` are this route's.
    func match(_ method: String, _ parts: [String]) -> [String: String]? {
        guard method == self.method, parts.count == pattern.count else { return nil }
        var bound: [String: String] = [:]
        for (segment, part) in zip(pattern, parts) {
            if segment.hasPrefix("{") { bound[String(segment.dropFirst().dropLast())] = part } else if segment != part { return nil }
        }
        return bound
    }
}

public final class ServerAPI: Sendable {
    let server: any AccountServer
    let catalog: Catalog
    let authority: CertificateAuthority
    let clock: any StoreClock
    /// Sends what is due (a TEST notification, RENEWAL_EXTENDED) right after the request.
    let deliver: @Sendable () -> Void
    /// Real time for token expiry (tokens are the client's, not the store's).
    let realNow: @Sendable () -> Date
    /// Writes the renewals the clock has passed for an account before it is read.
    let settle: @Sendable (String) -> Void
    /// Answers, identity, keyring and tokens kept while nothing changed.
    let cache = AnswerCache()
    public static let pageSize = 20
    public static let maximumBody = 1 << 20
    /// The answer to a body over `maximumBody`.
    public static let bodyTooLong = APIResponse.error(413, APIErrorCode.bodyTooLong, "the body is over 1 MB")

    public init(
        server: any AccountServer, catalog: Catalog, authority: CertificateAuthority, clock: any StoreClock,
        deliver: @escaping @Sendable () -> Void = {}, realNow: @escaping @Sendable () -> Date = Date.init,
        settle: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.settle = settle
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

    /// Answers one request; never throws (a storage failure is a 500 with its words).
    public func handle(_ request: APIRequest) -> APIResponse {
        do {
            return try route(request)
        } catch {
            return .error(500, APIErrorCode.generalBadRequest, "\(error)")
        }
    }

    private func route(_ request: APIRequest) throws(StoreError) -> APIResponse {
        if request.body.count > Self.maximumBody { return Self.bodyTooLong }
        let stamp = try server.changeStamp()
        let known = try cache.context(at: stamp) { () throws(StoreError) -> (AppIdentity, APIKeyring) in
            (try self.identity(), try server.apiKeyring() ?? APIKeyring())
        }
        let identity = known.identity
        let now = realNow()
        if let authorization = request.authorization, let expires = known.tokens[authorization], expires > now.timeIntervalSince1970 {
            // Verified before, against the same identity and keyring.
        } else {
            do throws(TokenRefusal) {
                let expires = try APIToken.verify(request.authorization, keyring: known.keyring, bundleID: identity.bundleID, now: now)
                if let authorization = request.authorization { cache.remember(token: authorization, expires: expires, at: stamp) }
            } catch {
                return .error(401, APIErrorCode.unauthorized, "unauthorized: \(error.description)")
            }
        }
        guard let (key, id) = Self.cacheKey(request) else { return try dispatch(request, identity: identity) }
        if let kept = cache.answer(key, stamp: stamp, now: clock.now()) { return kept }
        let response = try dispatch(request, identity: identity)
        if response.status == 200, let line = try server.receiptEntry(transactionID: id),
           let until = AnswerCache.until(now: clock.now(), plans: Array(try server.plans(account: line.account).values)) {
            cache.keep(response, key: key, stamp: stamp, until: until)
        }
        return response
    }

    /// The key an answer is kept by, with the transaction id it is about: the reads of a customer's
    /// transactions, history, statuses and refunds, which nothing but a change or time alters.
    static func cacheKey(_ request: APIRequest) -> (key: String, id: String)? {
        guard request.method == "GET" else { return nil }
        let parts = request.path.split(separator: "/")
        let id: Substring
        switch parts.count {
        case 4 where parts[0] == "inApps" && ["v1/transactions", "v2/history", "v1/subscriptions"].contains("\(parts[1])/\(parts[2])"): id = parts[3]
        case 5 where parts[0] == "inApps" && parts[1] == "v2" && parts[2] == "refund" && parts[3] == "lookup": id = parts[4]
        default: return nil
        }
        guard isTransactionID(String(id)) else { return nil }
        var key = request.path
        for (name, value) in request.query { key += "&\(name)=\(value)" }
        return (key, String(id))
    }

    /// Every route, by area of Apple's API; the first that matches answers.
    static let routes = transactionRoutes + subscriptionRoutes + extensionRoutes + consumptionRoutes + notificationRoutes

    private func dispatch(_ request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        for route in Self.routes {
            if let bound = route.match(request.method, parts) { return try route.answer(self, request, bound, identity) }
        }
        return .error(404, APIErrorCode.notFound, "no route \(request.method) \(request.path)")
    }

}

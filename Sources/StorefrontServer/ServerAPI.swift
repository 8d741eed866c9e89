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

    static func json(_ object: [String: Any], status: Int = 200) -> APIResponse {
        APIResponse(status: status, body: Data(CompactJSON.encode(object)))
    }

    /// A refusal with Apple's code, at the HTTP status the code comes with (`APIErrorCode.status`).
    static func error(_ code: APIErrorCode, _ message: String) -> APIResponse {
        json(["errorCode": code.rawValue, "errorMessage": message], status: code.status)
    }
}

/// Apple's error codes for every refusal these routes give (`APIError` in app-store-server-library):
/// the one table of them, with the HTTP status each comes with and when. docs/server-api.md lists
/// the same rows (DocsTests checks that it does).
package enum APIErrorCode: Int, CaseIterable {
    case generalBadRequest = 4_000_000
    case invalidRevision = 4_000_005
    case invalidTransactionID = 4_000_006
    case invalidOriginalTransactionID = 4_000_008
    case invalidExtendByDays = 4_000_009
    case invalidExtendReasonCode = 4_000_010
    case invalidRequestIdentifier = 4_000_011
    case startDateAfterEndDate = 4_000_013
    case invalidPaginationToken = 4_000_014
    case invalidStartDate = 4_000_015
    case invalidEndDate = 4_000_016
    case invalidNotificationType = 4_000_018
    case invalidSort = 4_000_021
    case invalidProductType = 4_000_022
    case invalidInAppOwnershipType = 4_000_026
    case invalidRevoked = 4_000_030
    case invalidStatus = 4_000_031
    case invalidAccountTenure = 4_000_032
    case invalidAppAccountToken = 4_000_033
    case invalidConsumptionStatus = 4_000_034
    case invalidCustomerConsented = 4_000_035
    case invalidDeliveryStatus = 4_000_036
    case invalidLifetimeDollarsPurchased = 4_000_037
    case invalidLifetimeDollarsRefunded = 4_000_038
    case invalidPlatform = 4_000_039
    case invalidPlayTime = 4_000_040
    case invalidSampleContentProvided = 4_000_041
    case invalidUserStatus = 4_000_042
    case invalidTransactionNotConsumable = 4_000_043
    case invalidImage = 4_000_161
    case headerTooLong = 4_000_162
    case bodyTooLong = 4_000_163
    case invalidLocale = 4_000_164
    case altTextTooLong = 4_000_175
    case invalidAppAccountTokenUUID = 4_000_183
    case familyTransactionNotSupported = 4_000_185
    case transactionIDIsNotOriginalTransactionID = 4_000_187
    case invalidPerformanceTestRequest = 4_000_211
    case invalidPerformanceTestRequestID = 4_000_212
    case existingPerformanceTestRun = 4_000_213
    case invalidRealtimeURL = 4_000_215
    case invalidImageSize = 4_000_216
    case tooManyBulletPoints = 4_000_218
    case bulletPointTextTooLong = 4_000_219
    case aboveImageRequiresAnImage = 4_000_224
    case unauthorized = 4_010_000
    case subscriptionExtensionIneligible = 4_030_004
    case subscriptionMaxExtension = 4_030_005
    case maximumNumberOfImagesReached = 4_030_014
    case messageNotApproved = 4_030_017
    case imageNotApproved = 4_030_018
    case imageInUse = 4_030_019
    case notFound = 4_040_000
    case originalTransactionIDNotFound = 4_040_005
    case testNotificationNotFound = 4_040_008
    case statusRequestNotFound = 4_040_009
    case transactionIDNotFound = 4_040_010
    case imageNotFound = 4_040_014
    case messageNotFound = 4_040_015
    case performanceTestRunNotFound = 4_040_018
    case appTransactionDoesNotExist = 4_040_019
    case defaultMessageNotFound = 4_040_020
    case realtimeURLNotFound = 4_040_021
    case imageAlreadyExists = 4_090_000
    case messageAlreadyExists = 4_090_001
    case generalInternal = 5_000_000

    /// The HTTP status the code comes with.
    package var status: Int {
        switch self {
        case .bodyTooLong: 413
        case .unauthorized: 401
        case .subscriptionExtensionIneligible: 403
        case .subscriptionMaxExtension: 403
        case .maximumNumberOfImagesReached, .messageNotApproved, .imageNotApproved, .imageInUse: 403
        case .imageNotFound, .messageNotFound, .performanceTestRunNotFound, .defaultMessageNotFound,
            .realtimeURLNotFound:
            404
        case .imageAlreadyExists, .messageAlreadyExists: 409
        case .notFound: 404
        case .originalTransactionIDNotFound: 404
        case .testNotificationNotFound: 404
        case .statusRequestNotFound: 404
        case .transactionIDNotFound: 404
        case .appTransactionDoesNotExist: 404
        case .generalInternal: 500
        default: 400
        }
    }

    /// When the server answers it, in words.
    package var meaning: String {
        switch self {
        case .generalBadRequest: "a malformed body or a value out of range (no more precise code applies)"
        case .invalidRevision: "a `revision` this server did not give"
        case .invalidTransactionID: "a transaction id that is not 1–20 digits"
        case .invalidOriginalTransactionID: "an original transaction id that is not 1–20 digits"
        case .invalidExtendByDays: "`extendByDays` not 1–90"
        case .invalidExtendReasonCode: "`extendReasonCode` not 0–3"
        case .invalidRequestIdentifier: "`requestIdentifier` not 1–128 characters"
        case .startDateAfterEndDate: "`startDate` after `endDate`"
        case .invalidPaginationToken: "a notification history `paginationToken` this server did not give"
        case .invalidStartDate: "`startDate` missing (notification history) or not milliseconds"
        case .invalidEndDate: "`endDate` not milliseconds"
        case .invalidNotificationType: "a `notificationType` that is not one"
        case .invalidSort: "`sort` not ASCENDING or DESCENDING"
        case .invalidProductType: "`productType` not AUTO_RENEWABLE, NON_RENEWABLE, CONSUMABLE or NON_CONSUMABLE"
        case .invalidInAppOwnershipType: "`inAppOwnershipType` not PURCHASED or FAMILY_SHARED"
        case .invalidRevoked: "`revoked` not true or false"
        case .invalidStatus: "`status` not 1–5"
        case .invalidAccountTenure: "consumption `accountTenure` out of range"
        case .invalidAppAccountToken: "consumption `appAccountToken` not a UUID or empty"
        case .invalidConsumptionStatus: "consumption `consumptionStatus` out of range"
        case .invalidCustomerConsented: "consumption `customerConsented` not true"
        case .invalidDeliveryStatus: "consumption `deliveryStatus` out of range"
        case .invalidLifetimeDollarsPurchased: "consumption `lifetimeDollarsPurchased` out of range"
        case .invalidLifetimeDollarsRefunded: "consumption `lifetimeDollarsRefunded` out of range"
        case .invalidPlatform: "consumption `platform` out of range"
        case .invalidPlayTime: "consumption `playTime` out of range"
        case .invalidSampleContentProvided: "consumption `sampleContentProvided` not a boolean"
        case .invalidUserStatus: "consumption `userStatus` out of range"
        case .invalidTransactionNotConsumable: "consumption information for a transaction that is not a consumable (v1)"
        case .invalidImage:
            "Upload Image: not a PNG, a PNG that can be transparent, or a FULL_SIZE image not 3840 wide and 160–2160 high"
        case .headerTooLong: "Upload Message: `header` over 66 characters"
        case .bodyTooLong:
            "a request body over 1 MB (Storefront's own limit, status 413); Upload Message: `body` over 144 characters (status 400)"
        case .invalidLocale: "Configure Default Message: a locale that is not a language and region, as en-US"
        case .altTextTooLong: "Upload Message: an image's or a bullet point's `altText` over 150 characters"
        case .invalidPerformanceTestRequest:
            "Initiate Performance Test: `originalTransactionId` not an auto-renewable plan's original transaction"
        case .invalidPerformanceTestRequestID: "Get Performance Test Results: a `requestId` that is not a UUID"
        case .existingPerformanceTestRun: "Initiate Performance Test: a test is still running"
        case .invalidRealtimeURL: "Configure Realtime URL: `realtimeURL` not an http(s) URL of at most 256 characters"
        case .invalidImageSize:
            "Upload Image: `imageSize` not FULL_SIZE or BULLET_POINT; Upload Message: an image of the other size"
        case .tooManyBulletPoints: "Upload Message: more than 5 bullet points"
        case .bulletPointTextTooLong: "Upload Message: a bullet point's `text` over 66 characters"
        case .aboveImageRequiresAnImage: "Upload Message: `headerPosition` ABOVE_IMAGE without an image"
        case .maximumNumberOfImagesReached: "Upload Image: 2,000 images are uploaded already"
        case .messageNotApproved: "Configure Default Message: the message is not APPROVED"
        case .imageNotApproved: "Configure Default Message: the message's image is not APPROVED"
        case .imageInUse: "Delete Image: a message shows the image"
        case .imageNotFound: "no uploaded image with that identifier"
        case .messageNotFound: "no uploaded message with that identifier"
        case .performanceTestRunNotFound: "no performance test with that `requestId`"
        case .defaultMessageNotFound: "no default message for that product and locale"
        case .realtimeURLNotFound:
            "no realtime URL is configured (Get or Delete Realtime URL, Initiate Performance Test)"
        case .imageAlreadyExists: "Upload Image: an image with that identifier is uploaded already"
        case .messageAlreadyExists: "Upload Message: a message with that identifier is uploaded already"
        case .invalidAppAccountTokenUUID: "Set App Account Token: `appAccountToken` not a UUID"
        case .familyTransactionNotSupported: "Set App Account Token: a family member's (FAMILY_SHARED) transaction"
        case .transactionIDIsNotOriginalTransactionID:
            "Set App Account Token: a transaction that is not an original transaction"
        case .unauthorized:
            "no token, a forged or expired one, one living over 60 minutes, an unknown or revoked key, another bundle"
        case .subscriptionExtensionIneligible: "the plan cannot be extended now (no access, in billing retry)"
        case .subscriptionMaxExtension: "the plan was extended twice in the last 365 days"
        case .notFound: "no such route"
        case .originalTransactionIDNotFound: "no plan started by that original transaction id"
        case .testNotificationNotFound: "no test notification with that token"
        case .statusRequestNotFound: "no mass extension with that request identifier and product"
        case .transactionIDNotFound: "no transaction with that id"
        case .appTransactionDoesNotExist: "Get App Transaction Info: no customer with that transaction"
        case .generalInternal: "the store could not be read or written, or the server is stopping"
        }
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
    let server: any AccountServer
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
        server: any AccountServer, catalog: Catalog, authority: CertificateAuthority, clock: any StoreClock,
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

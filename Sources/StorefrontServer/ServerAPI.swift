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

    private func dispatch(_ request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        switch (request.method, parts.count >= 3 ? Array(parts.prefix(3)) : parts) {
        case ("GET", ["inApps", "v1", "transactions"]) where parts.count == 4:
            return try transactionInfo(parts[3], identity: identity)
        case ("GET", ["inApps", "v2", "history"]) where parts.count == 4:
            return try history(parts[3], request: request, identity: identity)
        case ("GET", ["inApps", "v1", "subscriptions"]) where parts.count == 4:
            return try statuses(parts[3], request: request, identity: identity)
        case ("GET", ["inApps", "v2", "refund"]) where parts.count == 5 && parts[3] == "lookup":
            return try refunds(parts[4], request: request, identity: identity)
        case ("POST", ["inApps", "v1", "notifications"]) where parts.count == 4 && parts[3] == "test":
            return try requestTest()
        case ("GET", ["inApps", "v1", "notifications"]) where parts.count == 5 && parts[3] == "test":
            return try testStatus(parts[4])
        case ("POST", ["inApps", "v1", "notifications"]) where parts.count == 4 && parts[3] == "history":
            return try notificationHistory(request)
        case ("PUT", ["inApps", "v1", "transactions"]) where parts.count == 5 && parts[3] == "consumption":
            return try consumption(parts[4], request, version: 1)
        case ("PUT", ["inApps", "v2", "transactions"]) where parts.count == 5 && parts[3] == "consumption":
            return try consumption(parts[4], request, version: 2)
        case ("PUT", ["inApps", "v1", "subscriptions"]) where parts.count == 5 && parts[3] == "extend":
            return try extend(parts[4], request)
        case ("POST", ["inApps", "v1", "subscriptions"]) where parts.count == 5 && parts[3] == "extend" && parts[4] == "mass":
            return try massExtend(request, identity: identity)
        case ("GET", ["inApps", "v1", "subscriptions"]) where parts.count == 7 && parts[3] == "extend" && parts[4] == "mass":
            return try massStatus(productID: parts[5], requestIdentifier: parts[6])
        default:
            return .error(404, APIErrorCode.notFound, "no route \(request.method) \(request.path)")
        }
    }

    // MARK: Transactions

    /// A receipt line that is a transaction: a purchase (of any effect) or a renewal.
    static func isTransaction(_ line: ReceiptEntry) -> Bool { line.isTransaction }

    /// The account a transaction id (or original transaction id) belongs to, with its receipt.
    private func customer(_ id: String) throws(StoreError) -> (line: ReceiptEntry, receipt: [ReceiptEntry])? {
        guard let line = try server.receiptEntry(transactionID: id), Self.isTransaction(line) else { return nil }
        settle(line.account)
        return (line, try server.receipt(account: line.account))
    }

    private func builder(_ identity: AppIdentity, account: String) -> PayloadBuilder {
        PayloadBuilder(catalog: catalog, identity: identity, now: clock.now(), account: account)
    }

    private func signedTransaction(_ line: ReceiptEntry, receipt: [ReceiptEntry], identity: AppIdentity) throws(StoreError) -> String {
        try authority.sign(builder(identity, account: line.account).transaction(line: line, receipt: receipt))
    }

    static func isTransactionID(_ text: String) -> Bool { !text.isEmpty && text.count <= 20 && text.allSatisfy(\.isNumber) }

    private func transactionInfo(_ id: String, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else { return .error(400, APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id") }
        guard let (line, receipt) = try customer(id) else { return .error(404, APIErrorCode.transactionIDNotFound, "no transaction \(id)") }
        return .json(["signedTransactionInfo": try signedTransaction(line, receipt: receipt, identity: identity)])
    }

    /// Get Transaction History v2: the customer's transactions, filtered, 20 a page, `revision`
    /// the next page's token.
    private func history(_ id: String, request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else { return .error(400, APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id") }
        guard let (_, receipt) = try customer(id) else { return .error(404, APIErrorCode.transactionIDNotFound, "no transaction \(id)") }
        var lines = receipt.filter(Self.isTransaction)
        let refunded = Set(receipt.filter { $0.event == .refund }.compactMap(\.reference))
        let start = request.value("startDate"), end = request.value("endDate")
        let startMs = start.flatMap { Int64($0) }, endMs = end.flatMap { Int64($0) }
        if start != nil, startMs == nil { return .error(400, APIErrorCode.invalidStartDate, "startDate is not milliseconds") }
        if end != nil, endMs == nil { return .error(400, APIErrorCode.invalidEndDate, "endDate is not milliseconds") }
        if let startMs, let endMs, startMs > endMs { return .error(400, APIErrorCode.startDateAfterEndDate, "startDate is after endDate") }
        if let startMs { lines = lines.filter { SignedData.milliseconds($0.purchaseDate) >= startMs } }
        if let endMs { lines = lines.filter { SignedData.milliseconds($0.purchaseDate) < endMs } }
        let products = request.values("productId")
        if !products.isEmpty { lines = lines.filter { products.contains($0.productID) } }
        let types = request.values("productType")
        let kinds: [String: ProductKind] = [
            "AUTO_RENEWABLE": .autoRenewableSubscription, "NON_RENEWABLE": .nonRenewingSubscription, "CONSUMABLE": .consumable,
            "NON_CONSUMABLE": .nonConsumable,
        ]
        if let bad = types.first(where: { kinds[$0] == nil }) { return .error(400, APIErrorCode.invalidProductType, "\"\(bad)\" is not a product type") }
        if !types.isEmpty { lines = lines.filter { line in types.contains { kinds[$0] == line.kind } } }
        let groups = request.values("subscriptionGroupIdentifier")
        if !groups.isEmpty { lines = lines.filter { groups.contains($0.group ?? "") } }
        if let ownership = request.value("inAppOwnershipType") {
            guard ownership == "PURCHASED" || ownership == "FAMILY_SHARED" else {
                return .error(400, APIErrorCode.invalidInAppOwnershipType, "\"\(ownership)\" is not an ownership type")
            }
            if ownership == "FAMILY_SHARED" { lines = [] }
        }
        if let revoked = request.value("revoked")?.lowercased() {
            // Apple's Python client sends "True" and "False".
            guard revoked == "true" || revoked == "false" else { return .error(400, APIErrorCode.invalidRevoked, "revoked must be true or false") }
            lines = lines.filter { refunded.contains($0.transactionID) == (revoked == "true") }
        }
        switch request.value("sort") ?? "ASCENDING" {
        case "ASCENDING": break
        case "DESCENDING": lines.reverse()
        case let other: return .error(400, APIErrorCode.invalidSort, "\"\(other)\" is not ASCENDING or DESCENDING")
        }
        guard let (page, next, hasMore) = Self.page(lines, token: request.value("revision")) else {
            return .error(400, APIErrorCode.invalidRevision, "the revision is not one this server gave")
        }
        var body = common(identity)
        body["signedTransactions"] = try page.map { line throws(StoreError) in try signedTransaction(line, receipt: receipt, identity: identity) }
        body["revision"] = next
        body["hasMore"] = hasMore
        return .json(body)
    }

    /// A page of `items` after `token` (an opaque offset), the next token and whether more follow.
    static func page<T>(_ items: [T], token: String?) -> (page: [T], next: String, hasMore: Bool)? {
        var offset = 0
        if let token {
            guard let data = JWS.data(base64URL: token), let text = String(data: data, encoding: .utf8), text.hasPrefix("o:"),
                  let value = Int(text.dropFirst(2)), value >= 0, value <= items.count
            else { return nil }
            offset = value
        }
        let end = min(items.count, offset + pageSize)
        let next = JWS.base64URL(Data("o:\(end)".utf8))
        return (Array(items[offset..<end]), next, end < items.count)
    }

    private func common(_ identity: AppIdentity) -> [String: Any] {
        var body: [String: Any] = ["bundleId": identity.bundleID, "environment": identity.environment.rawValue]
        if let appleID = identity.appAppleID { body["appAppleId"] = appleID }
        return body
    }

    // MARK: Subscriptions

    private func statuses(_ id: String, request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else { return .error(400, APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id") }
        guard let (line, receipt) = try customer(id) else { return .error(404, APIErrorCode.transactionIDNotFound, "no transaction \(id)") }
        let wanted = request.values("status")
        guard wanted.allSatisfy({ Int($0).map { (1...5).contains($0) } ?? false }) else {
            return .error(400, APIErrorCode.invalidStatus, "status must be 1 to 5")
        }
        let now = clock.now()
        // Renewal info says the price a plan renews at: the one the developer set (O6).
        let builder = PayloadBuilder(catalog: try catalog.priced(by: server), identity: identity, now: now, account: line.account)
        var data: [[String: Any]] = []
        for (group, state) in try server.plans(account: line.account).sorted(by: { $0.key < $1.key }) {
            let plan = PlanStatus(state, catalog: catalog, now: now)
            let status = PayloadBuilder.status(plan)
            guard wanted.isEmpty || wanted.contains(String(status)) else { continue }
            var item: [String: Any] = [
                "status": status, "originalTransactionId": plan.originalTransactionID,
                "signedRenewalInfo": try authority.sign(builder.renewalInfo(plan, planLines: receipt.filter { $0.kind == .autoRenewableSubscription })),
            ]
            if let current = receipt.first(where: { $0.transactionID == plan.transactionID }) {
                item["signedTransactionInfo"] = try authority.sign(builder.transaction(line: current, receipt: receipt))
            }
            data.append(["subscriptionGroupIdentifier": group, "lastTransactions": [item]])
        }
        var body = common(identity)
        body["data"] = data
        return .json(body)
    }

    private func refunds(_ id: String, request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else { return .error(400, APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id") }
        guard let (_, receipt) = try customer(id) else { return .error(404, APIErrorCode.transactionIDNotFound, "no transaction \(id)") }
        let refunded = receipt.filter { $0.event == .refund }.compactMap { refund in receipt.first { $0.transactionID == refund.reference } }
        guard let (page, next, hasMore) = Self.page(refunded, token: request.value("revision")) else {
            return .error(400, APIErrorCode.invalidRevision, "the revision is not one this server gave")
        }
        return .json([
            "signedTransactions": try page.map { line throws(StoreError) in try signedTransaction(line, receipt: receipt, identity: identity) },
            "revision": next, "hasMore": hasMore,
        ])
    }

    // MARK: Extensions

    /// The fields both extension requests share, or the error that refuses them.
    struct ExtensionTerms {
        var days: Int
        var reason: Int
        var requestIdentifier: String
    }

    /// The body of an extension request and its terms, or the refusal.
    static func extensionRequest(_ body: Data) -> Result<([String: Any], ExtensionTerms), APIResponse> {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return .failure(.error(400, APIErrorCode.generalBadRequest, "the body is not a JSON object"))
        }
        return extensionTerms(object).map { (object, $0) }
    }

    static func extensionTerms(_ object: [String: Any]) -> Result<ExtensionTerms, APIResponse> {
        guard let days = (object["extendByDays"] as? NSNumber)?.intValue, (1...90).contains(days) else {
            return .failure(.error(400, APIErrorCode.invalidExtendByDays, "extendByDays must be 1 to 90"))
        }
        guard let reason = (object["extendReasonCode"] as? NSNumber)?.intValue, (0...3).contains(reason) else {
            return .failure(.error(400, APIErrorCode.invalidExtendReasonCode, "extendReasonCode must be 0 to 3"))
        }
        guard let request = object["requestIdentifier"] as? String, !request.isEmpty, request.count <= 128 else {
            return .failure(.error(400, APIErrorCode.invalidRequestIdentifier, "requestIdentifier must be 1 to 128 characters"))
        }
        return .success(ExtensionTerms(days: days, reason: reason, requestIdentifier: request))
    }

    /// How an extension went.
    enum Extension {
        case extended(PlanState, Date)
        /// Not active, or in billing retry.
        case ineligible
        /// Two extensions in the last 365 days already, as Apple allows at most.
        case maximumReached
    }

    /// Apple's limit: two extensions of a subscription within 365 days.
    static let extensionsPerYear = 2

    /// Moves the renewal date of `account`'s plan started by `original`. A repeat of the same
    /// request identifier adds nothing (its line's id comes from it) and answers as the first did.
    private func extendPlan(account: String, original: String, terms: ExtensionTerms) throws(StoreError) -> Extension {
        settle(account)
        let now = clock.now()
        let id = "9" + String(TransactionID.make(SignedData.hash("\(terms.requestIdentifier)/\(original)")).dropFirst())
        if let done = try server.receiptEntry(transactionID: id), let state = try server.plans(account: account)[done.group ?? ""] {
            return .extended(state, done.expiresDate ?? state.expiresDate)
        }
        var result = Extension.ineligible
        do {
            try server.updatePlans(account: account) { plans, receipt in
                result = .ineligible
                guard let state = plans.values.first(where: { $0.originalTransactionID == original }), state.hasAccess(at: now),
                      state.billingFailedAt == nil
                else { return [] }
                let yearAgo = now.addingTimeInterval(-365 * 86_400)
                let recent = try receipt().filter { $0.event == .extend && $0.reference == original && $0.purchaseDate > yearAgo }
                guard recent.count < Self.extensionsPerYear else {
                    result = .maximumReached
                    return []
                }
                let date = state.expiresDate.addingTimeInterval(TimeInterval(terms.days * 86_400))
                var line = ReceiptEntry(
                    transactionID: id, account: account, productID: state.productID, kind: .autoRenewableSubscription,
                    purchaseDate: now, device: "app-store-server", event: .extend, group: state.group, expiresDate: date,
                    reference: state.originalTransactionID
                )
                line.note = "extended \(terms.days) days (reason \(terms.reason), request \(terms.requestIdentifier))"
                result = .extended(state, date)
                return [line]
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(path: server.location, reason: "\(error)")
        }
        return result
    }

    /// Extend a Subscription Renewal Date (RENEWAL_EXTENDED follows).
    private func extend(_ original: String, _ request: APIRequest) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(original) else { return .error(400, APIErrorCode.invalidOriginalTransactionID, "\"\(original)\" is not a transaction id") }
        let terms: ExtensionTerms
        switch Self.extensionRequest(request.body) {
        case .success(let value): terms = value.1
        case .failure(let refusal): return refusal
        }
        guard let line = try server.receiptEntry(transactionID: original), line.kind == .autoRenewableSubscription,
              try server.plans(account: line.account).values.contains(where: { $0.originalTransactionID == original })
        else { return .error(404, APIErrorCode.originalTransactionIDNotFound, "no plan started by \(original)") }
        let state: PlanState, date: Date
        switch try extendPlan(account: line.account, original: original, terms: terms) {
        case .extended(let extended, let until): (state, date) = (extended, until)
        case .ineligible:
            return .error(403, APIErrorCode.subscriptionExtensionIneligible, "the subscription is not active, or is in billing retry")
        case .maximumReached:
            return .error(403, APIErrorCode.subscriptionMaxExtension, "the subscription was extended twice in the last 365 days already")
        }
        deliver()
        return .json([
            "originalTransactionId": original, "webOrderLineItemId": SignedData.webOrderLineItemID(state.transactionID),
            "success": true, "effectiveDate": SignedData.milliseconds(date),
        ])
    }

    // MARK: Send Consumption Information (O7)

    /// The developer's answer to a CONSUMPTION_REQUEST: checked field by field with Apple's codes,
    /// kept on the receipt beside the refund request (202, no body). Version 1 takes consumables
    /// only, with numbered fields; version 2 any purchase, with named ones.
    private func consumption(_ id: String, _ request: APIRequest, version: Int) throws(StoreError) -> APIResponse {
        guard Self.isTransactionID(id) else { return .error(400, APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id") }
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
            return .error(400, APIErrorCode.generalBadRequest, "the body is not a JSON object")
        }
        if let refusal = Self.checkConsumption(object, version: version) { return refusal }
        guard let purchase = try server.receiptEntry(transactionID: id), purchase.isTransaction else {
            return .error(404, APIErrorCode.transactionIDNotFound, "no transaction \(id)")
        }
        if version == 1, purchase.kind != .consumable {
            return .error(400, APIErrorCode.invalidTransactionNotConsumable, "\(id) is not a consumable (use version 2)")
        }
        let receipt = try server.receipt(account: purchase.account)
        guard let request = RefundRequest.current(of: id, in: RefundRequest.all(in: receipt)), request.state == .pending else {
            return .error(400, APIErrorCode.generalBadRequest, "no refund request of \(id) is waiting for consumption information")
        }
        // The line names the request it answers (its `reference`); the JSON as sent is its note.
        let line = ReceiptEntry(
            transactionID: TransactionID.make(UInt64.random(in: 0...UInt64.max)), account: purchase.account, productID: purchase.productID,
            kind: purchase.kind, purchaseDate: clock.now(), device: "app-store-server", event: .consumptionInfo,
            group: purchase.group, reference: request.requestID, note: String(decoding: CompactJSON.encode(object), as: UTF8.self)
        )
        try server.add(line)
        deliver()
        return APIResponse(status: 202, body: Data())
    }

    /// Apple's checks of a consumption request body; nil when it passes.
    static func checkConsumption(_ object: [String: Any], version: Int) -> APIResponse? {
        func isBool(_ key: String) -> Bool { object[key].map { $0 is Bool || String(describing: type(of: $0)).contains("Boolean") } ?? false }
        func integer(_ key: String, in range: ClosedRange<Int>) -> Bool {
            guard let number = object[key] as? NSNumber, !String(describing: type(of: object[key]!)).contains("Boolean") else { return false }
            return range.contains(number.intValue) && Double(number.intValue) == number.doubleValue
        }
        guard isBool("customerConsented"), object["customerConsented"] as? Bool == true else {
            return .error(400, APIErrorCode.invalidCustomerConsented, "customerConsented must be true")
        }
        guard isBool("sampleContentProvided") else { return .error(400, APIErrorCode.invalidSampleContentProvided, "sampleContentProvided must be true or false") }
        if version == 2 {
            let delivery = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
            guard let status = object["deliveryStatus"] as? String, delivery.contains(status) else {
                return .error(400, APIErrorCode.invalidDeliveryStatus, "deliveryStatus must be one of \(delivery.joined(separator: ", "))")
            }
            if let percentage = object["consumptionPercentage"], !integer("consumptionPercentage", in: 0...100_000) {
                return .error(400, APIErrorCode.generalBadRequest, "consumptionPercentage \(percentage) must be 0 to 100000 (milliunits)")
            }
            if let preference = object["refundPreference"] as? String, !["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(preference) {
                return .error(400, APIErrorCode.generalBadRequest, "refundPreference must be DECLINE, GRANT_FULL or GRANT_PRORATED")
            }
            return nil
        }
        let numbered: [(String, ClosedRange<Int>, Int)] = [
            ("consumptionStatus", 0...3, APIErrorCode.invalidConsumptionStatus), ("platform", 0...2, APIErrorCode.invalidPlatform),
            ("deliveryStatus", 0...5, APIErrorCode.invalidDeliveryStatus), ("accountTenure", 0...7, APIErrorCode.invalidAccountTenure),
            ("playTime", 0...7, APIErrorCode.invalidPlayTime), ("lifetimeDollarsRefunded", 0...7, APIErrorCode.invalidLifetimeDollarsRefunded),
            ("lifetimeDollarsPurchased", 0...7, APIErrorCode.invalidLifetimeDollarsPurchased), ("userStatus", 0...4, APIErrorCode.invalidUserStatus),
        ]
        for (key, range, code) in numbered where !integer(key, in: range) {
            return .error(400, code, "\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        if let token = object["appAccountToken"] as? String, !token.isEmpty, UUID(uuidString: token) == nil {
            return .error(400, APIErrorCode.invalidAppAccountToken, "appAccountToken must be a UUID or empty")
        }
        return nil
    }

    /// Extend Renewal Dates for All Active Subscribers of a product; a RENEWAL_EXTENSION SUMMARY
    /// notification says how it went.
    private func massExtend(_ request: APIRequest, identity: AppIdentity) throws(StoreError) -> APIResponse {
        let object: [String: Any], terms: ExtensionTerms
        switch Self.extensionRequest(request.body) {
        case .success(let value): (object, terms) = value
        case .failure(let refusal): return refusal
        }
        guard let productID = object["productId"] as? String, catalog.product(productID)?.autoRenew != nil else {
            return .error(400, APIErrorCode.generalBadRequest, "productId must be an auto-renewable product of the catalog")
        }
        var succeeded = 0, failed = 0
        for account in try server.accountsWithPlans() {
            settle(account)
            for state in try server.plans(account: account).values where state.productID == productID && state.endedAt == nil {
                if case .extended = try extendPlan(account: account, original: state.originalTransactionID, terms: terms) { succeeded += 1 } else { failed += 1 }
            }
        }
        let summary: [String: Any] = [
            "requestIdentifier": terms.requestIdentifier, "productId": productID, "succeededCount": succeeded, "failedCount": failed,
            "completeDate": SignedData.milliseconds(clock.now()),
        ]
        var notification = ServerNotification(
            key: "mass:\(terms.requestIdentifier)", account: "", type: "RENEWAL_EXTENSION", subtype: "SUMMARY", createdAt: clock.now()
        )
        notification.summary = String(decoding: CompactJSON.encode(summary), as: UTF8.self)
        try server.enqueue([notification])
        deliver()
        return .json(["requestIdentifier": terms.requestIdentifier])
    }

    /// Get Status of Subscription Renewal Date Extensions: read back from the SUMMARY notification.
    private func massStatus(productID: String, requestIdentifier: String) throws(StoreError) -> APIResponse {
        guard let notification = try server.notifications(account: nil).first(where: { $0.key == "mass:\(requestIdentifier)" }),
              let text = notification.summary, let summary = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              summary["productId"] as? String == productID
        else { return .error(404, APIErrorCode.notFound, "no mass extension \(requestIdentifier) for \(productID)") }
        return .json([
            "requestIdentifier": requestIdentifier, "complete": true, "completeDate": summary["completeDate"] ?? 0,
            "succeededCount": summary["succeededCount"] ?? 0, "failedCount": summary["failedCount"] ?? 0,
        ])
    }

    // MARK: Notifications

    private func requestTest() throws(StoreError) -> APIResponse {
        let uuid = UUID().uuidString.lowercased()
        try server.enqueue([ServerNotification(key: "test:\(uuid)", account: "", type: "TEST", createdAt: clock.now(), uuid: uuid)])
        deliver()
        return .json(["testNotificationToken": "\(uuid)_\(SignedData.milliseconds(realNow()))"])
    }

    private func testStatus(_ token: String) throws(StoreError) -> APIResponse {
        let uuid = String(token.prefix { $0 != "_" })
        guard !uuid.isEmpty, let notification = try server.notifications(account: nil).first(where: { $0.uuid == uuid && $0.type == "TEST" }) else {
            return .error(404, APIErrorCode.testNotificationNotFound, "no test notification \(token)")
        }
        return .json(try historyItem(notification))
    }

    /// One notification as Notification History and Get Test Notification Status give it.
    private func historyItem(_ notification: ServerNotification) throws(StoreError) -> [String: Any] {
        var notification = notification
        if notification.signedPayload == nil {
            notification.signedPayload = try NotificationCourier.sign(
                notification, server: server, catalog: catalog, authority: authority, identity: try identity(), now: clock.now()
            )
            try server.updateNotification(notification)
        }
        return [
            "signedPayload": notification.signedPayload ?? "",
            "sendAttempts": notification.attempts.map { attempt -> [String: Any] in
                ["attemptDate": SignedData.milliseconds(attempt.at), "sendAttemptResult": Self.result(attempt)]
            },
        ]
    }

    /// Apple's `sendAttemptResult` for an attempt.
    static func result(_ attempt: DeliveryAttempt) -> String {
        if attempt.status == 200 { return "SUCCESS" }
        if attempt.status != nil { return "UNSUCCESSFUL_HTTP_RESPONSE_CODE" }
        let error = attempt.error ?? ""
        if error.contains("timed out") { return "TIMED_OUT" }
        if error.contains("refused") || error.contains("resolve") { return "NO_RESPONSE" }
        return "OTHER"
    }

    /// Get Notification History: a body with startDate and endDate (ms), and optionally a type,
    /// subtype, transactionId or onlyFailures; 20 a page, `paginationToken` the next.
    private func notificationHistory(_ request: APIRequest) throws(StoreError) -> APIResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
            return .error(400, APIErrorCode.generalBadRequest, "the body is not a JSON object")
        }
        guard let start = (object["startDate"] as? NSNumber)?.int64Value else { return .error(400, APIErrorCode.invalidStartDate, "startDate is required") }
        guard let end = (object["endDate"] as? NSNumber)?.int64Value else { return .error(400, APIErrorCode.invalidEndDate, "endDate is required") }
        if start > end { return .error(400, APIErrorCode.startDateAfterEndDate, "startDate is after endDate") }
        var notifications = try server.notifications(account: nil).filter {
            let at = SignedData.milliseconds($0.createdAt)
            return at >= start && at < end
        }
        if let type = object["notificationType"] as? String {
            guard type.allSatisfy({ $0.isUppercase || $0 == "_" }) else { return .error(400, APIErrorCode.invalidNotificationType, "\"\(type)\" is not a notification type") }
            notifications = notifications.filter { $0.type == type }
        }
        if let subtype = object["notificationSubtype"] as? String { notifications = notifications.filter { $0.subtype == subtype } }
        if let id = object["transactionId"] as? String {
            guard Self.isTransactionID(id) else { return .error(400, APIErrorCode.invalidTransactionID, "\"\(id)\" is not a transaction id") }
            notifications = notifications.filter { $0.transactionID == id }
        }
        if object["onlyFailures"] as? Bool == true { notifications = notifications.filter { $0.state != .delivered } }
        guard let (page, next, hasMore) = Self.page(notifications, token: request.value("paginationToken")) else {
            return .error(400, APIErrorCode.invalidPaginationToken, "the pagination token is not one this server gave")
        }
        var body: [String: Any] = ["notificationHistory": try page.map { notification throws(StoreError) in try historyItem(notification) }, "hasMore": hasMore]
        if hasMore { body["paginationToken"] = next }
        return .json(body)
    }
}

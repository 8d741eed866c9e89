// Retention messaging (M1): what the developer uploads and configures through Apple's Retention
// Messaging API (images, messages, default messages, the realtime URL, performance tests), kept
// by the account server as one document changed by compare-and-set, with each image's PNG beside it.
import Foundation

/// An image's or a message's review: uploads start PENDING; `storefront messages approve` (or a
/// server that approves at once) makes them APPROVED; only approved ones are shown to customers.
public enum ReviewState: String, Codable, Sendable, CaseIterable {
    case pending = "PENDING"
    case approved = "APPROVED"
    case rejected = "REJECTED"
}

public struct RetentionImage: Codable, Sendable, Equatable {
    /// Apple's `imageIdentifier`, a UUID in lower case.
    public var id: String
    /// FULL_SIZE or BULLET_POINT.
    public var size: String
    public var state: ReviewState
    public var width: Int
    public var height: Int

    public static let sizes = ["FULL_SIZE", "BULLET_POINT"]

    public init(id: String, size: String, state: ReviewState, width: Int, height: Int) {
        (self.id, self.size, self.state, self.width, self.height) = (id, size, state, width, height)
    }
}

public struct RetentionBulletPoint: Codable, Sendable, Equatable {
    public var text: String
    public var imageIdentifier: String
    public var altText: String

    public init(text: String, imageIdentifier: String, altText: String) {
        (self.text, self.imageIdentifier, self.altText) = (text, imageIdentifier, altText)
    }
}

public struct RetentionMessage: Codable, Sendable, Equatable {
    /// Apple's `messageIdentifier`, a UUID in lower case.
    public var id: String
    public var header: String
    public var body: String
    /// The full-size image shown with it, and the image's words for those who cannot see it.
    public var imageID: String?
    public var altText: String?
    /// ABOVE_BODY or ABOVE_IMAGE; nil: Apple's default.
    public var headerPosition: String?
    public var bulletPoints: [RetentionBulletPoint]
    public var state: ReviewState

    public init(
        id: String, header: String, body: String, imageID: String? = nil, altText: String? = nil,
        headerPosition: String? = nil,
        bulletPoints: [RetentionBulletPoint] = [], state: ReviewState
    ) {
        (self.id, self.header, self.body, self.imageID, self.altText) = (id, header, body, imageID, altText)
        (self.headerPosition, self.bulletPoints, self.state) = (headerPosition, bulletPoints, state)
    }

    /// Every image it shows: its own and its bullet points'.
    public var imageIDs: [String] { (imageID.map { [$0] } ?? []) + bulletPoints.map(\.imageIdentifier) }
}

/// One Initiate Performance Test run: the realtime URL called as Apple's test calls it, and what
/// came back (Get Performance Test Results).
public struct PerformanceTestRun: Codable, Sendable, Equatable {
    public var requestID: String
    public var originalTransactionID: String
    public var target: String
    /// Real time, not the store's: a run that a stopped server never finished is given up on
    /// after `abandonedAfter`.
    public var startedAt: Date
    /// Each answered request's time; the failures by Apple's SendAttemptResult name.
    public var responseMilliseconds: [Int] = []
    public var failures: [String: Int] = [:]
    public var isFinished = false

    public init(requestID: String, originalTransactionID: String, target: String, startedAt: Date) {
        (self.requestID, self.originalTransactionID, self.target, self.startedAt) = (
            requestID, originalTransactionID, target, startedAt
        )
    }

    /// Apple's test parameters as Storefront runs them: requests, at most this many at once, each
    /// given `responseTimeThreshold` milliseconds; a pass needs `successRateThreshold` percent.
    public static let totalRequests = 20
    public static let maxConcurrentRequests = 4
    public static let responseTimeThreshold = 700
    public static let successRateThreshold = 90
    public static let abandonedAfter: TimeInterval = 60

    /// Still running at `now`: not finished, and not abandoned by a server that stopped.
    public func isRunning(at now: Date) -> Bool {
        !isFinished && now.timeIntervalSince(startedAt) < Self.abandonedAfter
    }

    /// The percentage of requests answered in time with a usable body.
    public var successRate: Int {
        let total = responseMilliseconds.count + failures.values.reduce(0, +)
        return total == 0 ? 0 : responseMilliseconds.count * 100 / total
    }

    /// PENDING while it runs, then PASS or FAIL.
    public var result: String {
        guard isFinished else { return "PENDING" }
        return successRate >= Self.successRateThreshold ? "PASS" : "FAIL"
    }
}

public struct RetentionSetup: Codable, Sendable, Equatable {
    /// Increases with every change: a change is written only over the version it was made from.
    public var version = 0
    public var images: [RetentionImage] = []
    public var messages: [RetentionMessage] = []
    /// Default messages by "productId locale".
    public var defaults: [String: String] = [:]
    /// The developer's Get Retention Message endpoint, by environment ("Sandbox", "Production"):
    /// Apple keeps one URL per environment, and the app's environment (`storefront app set
    /// --environment`) says which one is asked.
    public var realtimeURLs: [String: String] = [:]
    /// Uploads are APPROVED at once instead of waiting for `storefront messages approve`.
    public var approvesAtOnce = false
    public var performanceTests: [PerformanceTestRun] = []

    public init() {}

    /// Compare-and-set: this setup as the next version of `stored` when it was made from it, else
    /// nil (another change came first). Both backends write what it returns.
    public func replacing(_ stored: RetentionSetup) -> RetentionSetup? {
        guard stored.version == version else { return nil }
        var next = self
        next.version += 1
        return next
    }

    public func realtimeURL(_ environment: AppIdentity.Environment) -> String? { realtimeURLs[environment.rawValue] }

    public func image(_ id: String) -> RetentionImage? { images.first { $0.id == id.lowercased() } }
    public func message(_ id: String) -> RetentionMessage? { messages.first { $0.id == id.lowercased() } }
    public static func defaultKey(product: String, locale: String) -> String { "\(product) \(locale)" }

    /// What a customer's device reads of it (W9): what the moment of cancel may show (approved
    /// messages whose images are approved, those images, the default messages that name them) and
    /// where the device asks. Not the developer's drafts and review, settings, or performance
    /// tests, which name other customers' transactions.
    public var shownToCustomers: RetentionSetup {
        var shown = RetentionSetup()
        shown.version = version
        shown.messages = messages.filter { showable($0.id) != nil }
        let pictured = Set(shown.messages.flatMap(\.imageIDs))
        shown.images = images.filter { pictured.contains($0.id) }
        shown.defaults = defaults.filter { showable($0.value) != nil }
        shown.realtimeURLs = realtimeURLs
        return shown
    }

    /// A message a customer may be shown: approved, and its images approved.
    public func showable(_ id: String) -> RetentionMessage? {
        guard let message = message(id), message.state == .approved else { return nil }
        return message.imageIDs.allSatisfy { image($0)?.state == .approved } ? message : nil
    }
}

/// Where the retention setup lives: the account server (W1), one document and the images' PNGs.
public protocol RetentionStore: AnyObject, Sendable {
    func retentionSetup() throws(StoreError) -> RetentionSetup
    /// Writes `setup` as version `setup.version + 1` if the stored one is still `setup.version`;
    /// false when another change came first.
    func replaceRetentionSetup(_ setup: RetentionSetup) throws(StoreError) -> Bool
    func retentionImage(_ id: String) throws(StoreError) -> Data?
    /// nil removes it.
    func setRetentionImage(_ id: String, png: Data?) throws(StoreError)
}

extension RetentionStore {
    /// Reads, changes and writes the setup until the write lands on what was read (another
    /// writer's change in between is read again); returns what `change` returned.
    public func changeRetention<T>(_ change: (inout RetentionSetup) throws(StoreError) -> T) throws(StoreError) -> T {
        while true {
            var setup = try retentionSetup()
            let read = setup.version
            let result = try change(&setup)
            setup.version = read
            if try replaceRetentionSetup(setup) { return result }
        }
    }
}

/// What the PNG's header says: its size, and whether it can be transparent (an alpha channel or a
/// tRNS chunk), which Apple refuses.
public struct PNGFacts: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var hasTransparency: Bool

    /// nil when `data` is not a PNG.
    public init?(_ data: Data) {
        let bytes = [UInt8](data)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 33, Array(bytes[0..<8]) == signature, bytes[12..<16].elementsEqual("IHDR".utf8) else {
            return nil
        }
        func number(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        width = number(16)
        height = number(20)
        let colorType = bytes[25]
        var transparent = colorType == 4 || colorType == 6
        // Walk the chunks for a tRNS before the image data.
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = number(offset)
            let kind = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if kind == "tRNS" { transparent = true }
            if kind == "IDAT" || kind == "IEND" { break }
            offset += 12 + length
        }
        hasTransparency = transparent
        guard width > 0, height > 0 else { return nil }
    }
}

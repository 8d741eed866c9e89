// A one-time purchase on Google Play, as a value over a clock (G1, G2): Play's license-test
// instruments decide it, a slow card leaves it PENDING first, and one not acknowledged within three
// days is refunded and revoked, as Play does. The states and codes are the Play Developer API's
// (ProductPurchase, VoidedPurchase) and the Play Billing Library's (BillingResponseCode).
import Foundation

/// Play's license-test payment instruments, as a license tester picks them in the purchase flow.
public enum PlayTestInstrument: String, Sendable, Equatable, CaseIterable {
    case approves = "test-card"
    case declines = "test-card-declines"
    case slowApproves = "slow-card"
    case slowDeclines = "slow-card-declines"

    /// Play's own words for it.
    public var words: String {
        switch self {
        case .approves: "Test card, always approves"
        case .declines: "Test card, always declines"
        case .slowApproves: "Slow test card, approves after a few minutes"
        case .slowDeclines: "Slow test card, declines after a few minutes"
        }
    }

    public var approves: Bool { self == .approves || self == .slowApproves }

    /// How long a slow card keeps the purchase PENDING. Google says "a few minutes"; three is the
    /// figure written in docs/google-play.md.
    public var pendingFor: TimeInterval? { self == .slowApproves || self == .slowDeclines ? 3 * 60 : nil }
}

/// The Play Billing Library's BillingResponseCode, with its numbers: what a purchase flow answers.
public enum PlayBillingResponse: Int, Sendable, Equatable, CaseIterable {
    case serviceDisconnected = -1
    case ok = 0
    case userCanceled = 1
    case serviceUnavailable = 2
    case billingUnavailable = 3
    case itemUnavailable = 4
    case developerError = 5
    case error = 6
    case itemAlreadyOwned = 7
    case itemNotOwned = 8
    case networkError = 12

    /// "USER_CANCELED", as the library names it.
    public var name: String {
        switch self {
        case .serviceDisconnected: "SERVICE_DISCONNECTED"
        case .ok: "OK"
        case .userCanceled: "USER_CANCELED"
        case .serviceUnavailable: "SERVICE_UNAVAILABLE"
        case .billingUnavailable: "BILLING_UNAVAILABLE"
        case .itemUnavailable: "ITEM_UNAVAILABLE"
        case .developerError: "DEVELOPER_ERROR"
        case .error: "ERROR"
        case .itemAlreadyOwned: "ITEM_ALREADY_OWNED"
        case .itemNotOwned: "ITEM_NOT_OWNED"
        case .networkError: "NETWORK_ERROR"
        }
    }

    public init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name.uppercased() }) else { return nil }
        self = found
    }
}

/// Why and by whom a purchase was voided (VoidedPurchase.voidedSource and voidedReason).
public struct PlayVoid: Sendable, Equatable {
    public enum Source: Int, Sendable, Equatable {
        case user = 0
        case developer = 1
        case google = 2
    }
    public enum Reason: Int, Sendable, Equatable {
        case other = 0
        case remorse, notReceived, defective, accidentalPurchase, fraud, friendlyFraud, chargeback
        case unacknowledgedPurchase
    }

    public var at: Date
    public var source: Source
    public var reason: Reason
}

/// One one-time purchase: ProductPurchase's states, its token and order, and what became of it.
public struct PlayPurchase: Sendable, Equatable {
    /// ProductPurchase.purchaseState: 0 purchased, 1 canceled, 2 pending.
    public enum State: Int, Sendable, Equatable {
        case purchased = 0
        case canceled = 1
        case pending = 2
    }

    public var purchaseToken: String
    public var orderId: String
    public var productId: String
    public var account: String
    public var purchaseTime: Date
    public var state: State
    public var instrument: PlayTestInstrument
    public var acknowledged = false
    public var consumed = false
    public var voided: PlayVoid?

    /// How long Play waits for an acknowledgement before it refunds and revokes the purchase.
    public static let acknowledgementWindow: TimeInterval = 3 * 86_400

    /// What a change to a purchase tells the developer (RTDN's one-time product notifications, and
    /// the voided purchase notification).
    public enum Event: Sendable, Equatable {
        case purchased, canceled
        case voided(PlayVoid)
    }

    /// A purchase flow paid with `instrument` at `now`: PURCHASED at once, PENDING for a slow card,
    /// or no purchase with the response a declined card gets (ERROR).
    public static func started(
        productId: String, account: String, instrument: PlayTestInstrument, token: String, orderId: String, at now: Date
    ) -> Result<PlayPurchase, PlayBillingResponseError> {
        if instrument == .declines { return .failure(PlayBillingResponseError(.error)) }
        return .success(
            PlayPurchase(
                purchaseToken: token, orderId: orderId, productId: productId, account: account, purchaseTime: now,
                state: instrument.pendingFor == nil ? .purchased : .pending, instrument: instrument))
    }

    /// The purchase as the store's clock finds it at `now`, and what changed on the way: a slow
    /// card's payment settles once its minutes have passed; a purchase left unacknowledged for
    /// three days is refunded and revoked (voided by Google, reason 8).
    public func advanced(to now: Date) -> (PlayPurchase, [Event]) {
        var purchase = self
        var events: [Event] = []
        if purchase.state == .pending, let wait = instrument.pendingFor, now >= purchaseTime.addingTimeInterval(wait) {
            purchase.state = instrument.approves ? .purchased : .canceled
            purchase.purchaseTime = purchaseTime.addingTimeInterval(wait)
            events.append(instrument.approves ? .purchased : .canceled)
        }
        let deadline = purchase.purchaseTime.addingTimeInterval(Self.acknowledgementWindow)
        if purchase.state == .purchased, !purchase.acknowledged, purchase.voided == nil, now >= deadline {
            let void = PlayVoid(at: deadline, source: .google, reason: .unacknowledgedPurchase)
            purchase.voided = void
            purchase.state = .canceled
            events.append(.voided(void))
        }
        return (purchase, events)
    }

    /// The developer acknowledges it (products.acknowledge, or the app's acknowledgePurchase):
    /// only a purchased one, and again changes nothing.
    public func acknowledging() throws(PlayBillingResponseError) -> PlayPurchase {
        guard state == .purchased, voided == nil else { throw PlayBillingResponseError(.itemNotOwned) }
        var purchase = self
        purchase.acknowledged = true
        return purchase
    }

    /// The app consumes it (products.consume, or consumeAsync): a purchased one, once; consuming
    /// acknowledges it too, as Play's consume does.
    public func consuming() throws(PlayBillingResponseError) -> PlayPurchase {
        guard state == .purchased, voided == nil, !consumed else { throw PlayBillingResponseError(.itemNotOwned) }
        var purchase = self
        purchase.consumed = true
        purchase.acknowledged = true
        return purchase
    }

    /// The account owns the product now: purchased, not voided, not consumed.
    public var owns: Bool { state == .purchased && voided == nil && !consumed }
}

/// A purchase flow's or a call's refusal, as the Billing Library's response code.
public struct PlayBillingResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var response: PlayBillingResponse
    public init(_ response: PlayBillingResponse) { self.response = response }
    public var description: String { "\(response.name) (\(response.rawValue))" }
}

/// Play's order ids: "GPA." and four groups of digits (4-4-4-5).
public enum PlayOrderID {
    public static func mint(using generator: inout some RandomNumberGenerator) -> String {
        let groups = [4, 4, 4, 5].map { count in
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
        }
        return "GPA." + groups.joined(separator: "-")
    }

    /// `text` is of that shape.
    public static func isValid(_ text: String) -> Bool {
        guard text.hasPrefix("GPA.") else { return false }
        let groups = text.dropFirst(4).split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [4, 4, 4, 5]
            && groups.allSatisfy { $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }
}

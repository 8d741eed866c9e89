// What a receipt line's `note` means, typed. The note is stored and shown as words (the database
// column, `history --json`'s "note"), and those words do not change; the store reads and writes
// their meaning only through `ReceiptEntry.meaning` and `PlanEnd`, never by comparing strings.
import Foundation

/// Why a plan ended: an expiry line's note, and a plan's `endReason`.
public enum PlanEnd: Equatable, Sendable {
    /// Billing retry ran its days without a charge going through.
    case billingRetryGaveUp(days: Int)
    /// The subscriber cancelled while billing retry ran.
    case cancelledDuringBillingRetry
    /// The sandbox renews a plan this many times at most.
    case sandboxRenewalLimit(renewals: Int)
    /// The product to renew is no longer in the catalog.
    case notForSale(productID: String)
    /// The subscriber did not agree to a price increase that needed consent (O6).
    case priceIncreaseNotAccepted
    /// `storefront subscription expire`, the screen's or a scenario's expiry.
    case byHand
    /// A refund of the current period ended it (O7).
    case refunded
    /// An expiry with no reason given ("expired"), or words an earlier version wrote.
    case other(String)

    public var words: String {
        switch self {
        case .billingRetryGaveUp(let days): "billing retry gave up after \(days) days"
        case .cancelledDuringBillingRetry: "cancelled during billing retry"
        case .sandboxRenewalLimit(let renewals): "the sandbox renews a plan \(renewals) times at most"
        case .notForSale(let productID): "\(productID) is no longer in the catalog"
        case .priceIncreaseNotAccepted: "price increase not accepted"
        case .byHand: "expired by hand"
        case .refunded: "refunded"
        case .other(let words): words
        }
    }

    /// The meaning of stored words: each case's own words read back as that case.
    public init(words: String) {
        func number(between prefix: String, and suffix: String) -> Int? {
            guard words.hasPrefix(prefix), words.hasSuffix(suffix), words.count > prefix.count + suffix.count else {
                return nil
            }
            return Int(words.dropFirst(prefix.count).dropLast(suffix.count))
        }
        let fixed: [PlanEnd] = [.cancelledDuringBillingRetry, .priceIncreaseNotAccepted, .byHand, .refunded]
        if let known = fixed.first(where: { $0.words == words }) {
            self = known
        } else if let days = number(between: "billing retry gave up after ", and: " days") {
            self = .billingRetryGaveUp(days: days)
        } else if let renewals = number(between: "the sandbox renews a plan ", and: " times at most") {
            self = .sandboxRenewalLimit(renewals: renewals)
        } else if let product = words.hasSuffix(" is no longer in the catalog")
            ? words.dropLast(" is no longer in the catalog".count) : nil,
            !product.isEmpty, !product.contains(" ")
        {
            self = .notForSale(productID: String(product))
        } else {
            self = .other(words)
        }
    }

    /// A billing problem ended the plan (Apple's expirationIntent 2).
    public var isBillingError: Bool {
        switch self {
        case .billingRetryGaveUp, .cancelledDuringBillingRetry: true
        default: false
        }
    }

    /// The subtype of the EXPIRED notification it causes.
    public var expiredSubtype: String {
        switch self {
        case .billingRetryGaveUp: "BILLING_RETRY"
        case .notForSale: "PRODUCT_NOT_FOR_SALE"
        case .priceIncreaseNotAccepted: "PRICE_INCREASE"
        default: "VOLUNTARY"
        }
    }
}

/// What a receipt line's note says that the store acts on.
public enum ReceiptNote: Equatable, Sendable {
    /// A plan line a purchase wrote when it changed the plan without starting a period (a
    /// downgrade for the next renewal, auto-renew back on): the purchase's transaction all the same.
    case byPurchase
    /// A price increase that needs the subscriber's consent (O6).
    case consentRequired
    /// A consent line that declines the increase (O6).
    case declined
    /// An expiry: why the plan ended.
    case ended(PlanEnd)
    /// A refund or a decline answering the refund request with this id (O7).
    case answering(request: String)
    /// A reversal taking back the refund line with this id (O7).
    case reversing(refund: String)
    /// A refund request's reason, as the customer gave it (O7; RefundReason's raw value).
    case refundReason(String)
    /// The consumption information the developer sent, as JSON (O7).
    case consumptionInfo(json: String)
    /// A family share: the organizer whose purchase it shares (O5).
    case organizer(account: String)
    /// Words for people only.
    case words(String)

    /// The words stored for it.
    public var words: String {
        switch self {
        case .byPurchase: "by a purchase"
        case .consentRequired: "consent required"
        case .declined: "declined"
        case .ended(let end): end.words
        case .answering(let request): "request " + request
        case .reversing(let refund): "refund " + refund
        case .refundReason(let reason): reason
        case .consumptionInfo(let json): json
        case .organizer(let account): account
        case .words(let words): words
        }
    }

    /// The meaning of a note on a line of `event`.
    init(_ words: String, on event: ReceiptEvent) {
        switch event {
        case _ where words == ReceiptNote.byPurchase.words: self = .byPurchase
        case .priceIncrease where words == ReceiptNote.consentRequired.words: self = .consentRequired
        case .priceConsent where words == ReceiptNote.declined.words: self = .declined
        case .expire: self = .ended(PlanEnd(words: words))
        case .refund where words.hasPrefix("request "), .refundDeclined where words.hasPrefix("request "):
            self = .answering(request: String(words.dropFirst("request ".count)))
        case .refundReversed where words.hasPrefix("refund "):
            self = .reversing(refund: String(words.dropFirst("refund ".count)))
        case .refundRequest: self = .refundReason(words)
        case .consumptionInfo: self = .consumptionInfo(json: words)
        case .familyShare: self = .organizer(account: words)
        default: self = .words(words)
        }
    }
}

extension ReceiptEntry {
    /// What the line's note means; setting it stores its words.
    public var meaning: ReceiptNote? {
        get { note.map { ReceiptNote($0, on: event) } }
        set { note = newValue?.words }
    }

    /// Why the plan ended, on an expiry line ("expired" when it says nothing).
    public var planEnd: PlanEnd? {
        guard event == .expire else { return nil }
        if case .ended(let end) = meaning { return end }
        return .other("expired")
    }
}

extension PlanState {
    /// Why the plan ended, typed (its stored `endReason` read back).
    public var ended: PlanEnd? { endReason.map(PlanEnd.init(words:)) }
}

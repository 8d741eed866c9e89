// One line of an account's receipt (A6) and what it records: the purchase or event, its terms,
// and how a line is found by id.
import Foundation

/// One line of an account's receipt: what was bought, when, and the terms it was bought on (the
/// months and bonus days are kept so that a later catalog change cannot rewrite the past). An
/// auto-renewable subscription adds lines for everything that changes its state (renewals,
/// cancellations, refunds, billing failures), so that its state is a fold over the receipt.
public struct ReceiptEntry: Sendable, Equatable, Codable {
    public var transactionID: String
    public var account: String
    public var productID: String
    public var kind: ProductKind
    public var quantity: Int
    public var months: Int
    /// Days (weeks as seven) a non-renewing subscription adds after its months.
    public var days: Int
    public var bonusDays: Int
    public var purchaseDate: Date
    public var device: String
    /// What the line records; `purchase` for everything but auto-renewable subscriptions.
    public var event: ReceiptEvent
    /// The subscription group of an auto-renewable line.
    public var group: String?
    /// The end of the period a purchase or renewal pays for.
    public var expiresDate: Date?
    /// The mode of the offer this period was sold on, if any.
    public var offer: IntroductoryOffer.Mode?
    /// Which kind of offer (nil with an `offer`: the introductory one, as lines recorded before
    /// offer types say), and a promotional, code or win-back offer's identifier.
    public var offerType: OfferType?
    public var offerID: String?
    /// What was charged (negative for a prorated credit); nil where the line charges nothing.
    public var price: Decimal?
    /// The transaction a line is about: the original purchase of a renewal, the refunded one.
    public var reference: String?
    /// Grace period end of a billing failure.
    public var until: Date?
    /// Why: an expiry's cause, a note for people; its meaning, typed, is `meaning` (ReceiptNote.swift).
    public var note: String?
    /// The UUID the app gave with the purchase (`Product.PurchaseOption.appAccountToken`), M3.
    public var appAccountToken: String?
    /// A period of a monthly plan with a 12-month commitment: which of the twelve, and when the
    /// commitment ends; nil for a period billed up front.
    public var commitment: CommitmentPeriod? = nil
    /// On a change line: the billing plan the plan switches to at its next renewal, or at the end
    /// of its commitment (M4); nil where the change says nothing of billing.
    public var billingPlan: BillingPlan? = nil
    /// F3: the storefront (alpha-3) it was bought in, where that is not its catalog's own; nil in
    /// the catalog's storefront. Its signed form carries this storefront, its currency and price.
    public var storefront: String? = nil

    public init(
        transactionID: String, account: String, productID: String, kind: ProductKind, quantity: Int = 0,
        months: Int = 0, days: Int = 0, bonusDays: Int = 0, purchaseDate: Date, device: String,
        event: ReceiptEvent = .purchase,
        group: String? = nil, expiresDate: Date? = nil, offer: IntroductoryOffer.Mode? = nil,
        offerType: OfferType? = nil,
        offerID: String? = nil, price: Decimal? = nil, reference: String? = nil, until: Date? = nil,
        note: String? = nil,
        appAccountToken: String? = nil
    ) {
        self.appAccountToken = appAccountToken
        self.offerType = offerType
        self.offerID = offerID
        self.transactionID = transactionID
        self.account = account
        self.productID = productID
        self.kind = kind
        self.quantity = quantity
        self.months = months
        self.days = days
        self.bonusDays = bonusDays
        self.purchaseDate = purchaseDate
        self.device = device
        self.event = event
        self.group = group
        self.expiresDate = expiresDate
        self.offer = offer
        self.price = price
        self.reference = reference
        self.until = until
        self.note = note
    }

    /// The kind of offer the line was sold on: nil without one.
    public var soldOn: OfferType? { offer == nil ? nil : offerType ?? .introductory }

    /// A line that is a transaction the App Store would list: a purchase, a renewal, or a purchase
    /// that changed the plan for later.
    public var isTransaction: Bool {
        event == .purchase || event == .renewal || event == .familyShare || meaning == .byPurchase
    }

    /// A line that extends the non-renewing expiry (R5): one with months or days.
    public var extendsExpiry: Bool { months > 0 || days > 0 }
}

/// The kinds of receipt line.
public enum ReceiptEvent: String, Sendable, Codable, CaseIterable {
    /// A purchase; for an auto-renewable subscription, the start of a plan (or an upgrade).
    case purchase
    /// A period renewed.
    case renewal
    /// A prorated refund of what was left of a period when an upgrade replaced it.
    case credit
    /// Auto-renew turned off / back on.
    case cancel
    case renewOn = "renew-on"
    /// A transaction refunded: its access ends at once.
    case refund
    /// The plan ended now (by hand, after billing retry gave up, at the sandbox's renewal limit).
    case expire
    /// A renewal could not be charged: billing retry, with access kept until `until` (grace).
    case billingFailure = "billing-failure"
    /// Billing works again; a renewal follows.
    case billingRecovered = "billing-recovered"
    /// The plan switches to `productID` at the next renewal (a downgrade).
    case change
    /// The developer moved the renewal date (the App Store Server API's extensions, V3): the
    /// period now ends at `expiresDate`, and the next run of periods counts from there.
    case extend
    /// O6: the developer raised the price of the plan's product (`price`; `note` "consent
    /// required" when the subscriber must agree; `until` names the change by its time).
    case priceIncrease = "price-increase"
    /// O6: the subscriber agreed to the price increase (`note` "declined": refused it).
    case priceConsent = "price-consent"
    /// O7: the customer asked for a refund of `reference` (`note`: the reason).
    case refundRequest = "refund-request"
    /// O7: the refund request of `reference` was declined.
    case refundDeclined = "refund-declined"
    /// O7: the refund of `reference` was taken back: the purchase counts again.
    case refundReversed = "refund-reversed"
    /// O7: the developer's consumption information for `reference` (`note`: the JSON sent).
    case consumptionInfo = "consumption-info"
    /// O5: a family member's own transaction for the organizer's purchase `reference` (a comic,
    /// or the purchase that started a plan); `note` names the organizer.
    case familyShare = "family-share"
    /// O5: the family share `reference` taken away (the member left, or sharing was turned off).
    case familyRevoke = "family-revoke"

    /// What the App Store (here: the developer, W9) answers, never a customer: a refund, its
    /// decline or reversal, an extension of a renewal date.
    public var isDevelopersAnswer: Bool {
        switch self {
        case .refund, .refundDeclined, .refundReversed, .extend: true
        default: false
        }
    }
}

extension ReceiptEntry {
    /// The billing plan an offer period is on: a purchase on an offer of the monthly plan says
    /// MONTHLY (its commitment starts when the offer ends); any other period, as its commitment
    /// says.
    public var offerBillingPlan: BillingPlan {
        event == .purchase && commitment == nil && billingPlan == .monthly ? .monthly : .billedUpfront
    }

    /// The purchases `lines` refund and do not take back (O7).
    public static func revoked(in lines: [ReceiptEntry]) -> Set<String> {
        // A reversal names the refund line it takes back, so the answer does not depend on the
        // order lines of one second are read back in.
        let reversed = Set(lines.compactMap { $0.event == .refundReversed ? $0.refundReversed : nil })
        return Set(
            lines.compactMap { $0.event == .refund && !reversed.contains($0.transactionID) ? $0.reference : nil })
    }

    /// When each transaction of `lines` was revoked, for its signed form's `revocationDate`: a
    /// refund not taken back (O7), a family share taken away (O5). One answer for the signed
    /// transaction, the history's `revoked` filter and the command line's history.
    public static func revocationDates(in lines: [ReceiptEntry]) -> [String: Date] {
        let reversed = Set(lines.compactMap { $0.event == .refundReversed ? $0.refundReversed : nil })
        var dates: [String: Date] = [:]
        for line in lines {
            guard let reference = line.reference else { continue }
            if line.event == .familyRevoke || (line.event == .refund && !reversed.contains(line.transactionID)) {
                dates[reference] = line.purchaseDate
            }
        }
        return dates
    }

    /// The request a refund or decline answers, if it names one.
    public var answeredRequest: String? {
        if case .answering(let request) = meaning { return request }
        return nil
    }

    /// The refund line a reversal takes back.
    public var refundReversed: String? {
        if case .reversing(let refund) = meaning { return refund }
        return nil
    }

    /// The line of `lines` named by its id, or by a unique prefix of 4+ characters; nil when none
    /// is, `ambiguousTransaction` when several are.
    public static func named(_ id: String, in lines: [ReceiptEntry]) throws(StoreError) -> ReceiptEntry? {
        let matches = lines.filter { $0.transactionID == id || (id.count >= 4 && $0.transactionID.hasPrefix(id)) }
        if let exact = matches.first(where: { $0.transactionID == id }) { return exact }
        if matches.count > 1 { throw StoreError.ambiguousTransaction(id, matches: matches.map(\.transactionID)) }
        return matches.first
    }

    /// The non-consumables `lines` (an account's, of that kind) leave owned, each with the lowest id
    /// of its purchases (the one restores point at): refunded ones are not (O7).
    public static func owned(_ lines: [ReceiptEntry]) -> [(productID: String, transactionID: String)] {
        let revoked = revoked(in: lines)
        let bought = lines.filter { $0.event == .purchase && !revoked.contains($0.transactionID) }
        var owned: [(productID: String, transactionID: String)] = []
        for line in bought where !owned.contains(where: { $0.productID == line.productID }) {
            owned.append(
                (
                    line.productID,
                    bought.filter { $0.productID == line.productID }.map(\.transactionID).min() ?? line.transactionID
                ))
        }
        return owned
    }

    /// A line a device learns from with the plan lines: a refund or its reversal of any purchase.
    public var isRevocation: Bool {
        event == .refund || event == .refundReversed || event == .familyShare || event == .familyRevoke
    }
}

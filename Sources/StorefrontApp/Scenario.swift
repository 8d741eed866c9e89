// Scenarios: small plain-text files, one step a line, that say what happens in the store and what
// a person should then see. `storefront scenario check` runs them headless.
import Foundation
import StoreCore
import StoreModel

public struct ScenarioStep: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case device(String)
        case signUp(String, password: String)
        case signIn(String, password: String)
        case signOut
        case policy(PurchaseOutcome)
        case buy(String, outcome: PurchaseOutcome?)
        case approve(String?)
        case decline(String?)
        case resolve(String?)
        case restore
        case resetDevice
        case advance(StoreDuration)
        case setClock(Date)
        case random
        /// The next purchase dies between payment and delivery (Q3); `restart` recovers it.
        case crashAfterPayment
        case restart
        /// For `scenario play`: shown to the audience, ignored by `check`.
        case caption(String)
        case pause
        case open(String)
        /// The catalog the scenario runs on: a file relative to the scenario, or a shipped name
        /// (`catalog selfies.json`). Only as the first step.
        case catalog(String)
        case expectHeader(String)
        case expectRow(String, shows: String)
        case expectState(TransactionState)
        case expectReason(FailureReason)
        case expectViews(Int)
        case expectOwned(String, Bool)
        case expectUser(String?)
        case expectError(String)
        /// A command on an auto-renewable plan (cancel, renew-on, expire, force-renew, refund …).
        case plan(PlanCommand, String)
        case billing(failing: Bool)
        case grace(days: Int?)
        /// StoreKit's simulated errors (Q7): `error purchase productUnavailable`, `error purchase off`,
        /// `errors clear`.
        case simulatedError(StoreKitAPI, SimulatedError?)
        case clearSimulatedErrors
        /// Where notifications go (`webhook off` stops sending), and a notification written since
        /// the last one expected: `expect notification DID_RENEW`, `… SUBSCRIBED INITIAL_BUY` (N7).
        case webhook(String?)
        case expectNotification(String, subtype: String?)
        /// Part of the plan's summary: "free trial, renews 07/02/2026", "grace period", "expired".
        case expectPlan(String)
        /// O2: `buy "All Access (Monthly)" offer comeback.3months [expired|forged|reused|unsigned]`,
        /// signed with the state folder's own subscription-offer key (or made bad on purpose).
        case buyOffer(String, offer: String, signature: OfferSignatureStyle)
        /// O4: `buy "All Access (Monthly)" win-back winback.2months`.
        case buyWinBack(String, offer: String)
        /// O1: `buy "All Access (Monthly)" intro allow|withhold`: the developer's signed word on the
        /// introductory offer, signed with the state folder's own key for the signed-in account.
        case buyIntro(String, allow: Bool)
        /// M4: `buy PRODUCT monthly` (a 12-month commitment) or `buy PRODUCT upfront`: on that
        /// billing plan; for the plan one has, a switch at its next renewal or its commitment's end.
        case buyBilled(String, BillingPlan)
        /// O3: `offer code SPRING-PROMO custom FRIENDS limit 2` makes a custom code; `redeem
        /// SPRING-PROMO` makes a one-time code of that offer and redeems it; `redeem FRIENDS` a
        /// code by its text; `redeem last` the last code again.
        case makeCustomCode(offer: String, code: String, limit: Int)
        case redeem(String)
        /// O6: `price set "All Access (Weekly)" 2.49 consent-required`; `price consent|decline PRODUCT`.
        /// `monthly` after the price sets the monthly price of a plan with a 12-month commitment.
        case setPrice(String, Decimal, billingPlan: BillingPlan, consentRequired: Bool)
        /// O7: `refund-request "Night Shift" [not-received]` asks for a refund of the product's latest
        /// purchase; `refund-request approve|decline|reverse` answers the last one asked;
        /// `refund-policy approve|decline|manual` sets how this device's requests are answered.
        case refundRequest(String, reason: RefundReason)
        case refundAnswer(RefundAnswer)
        case refundPolicy(RefundPolicy)
        /// O5: `family create`, `family add NAME` (an invitation), `family accept` (the signed-in
        /// account accepts it), `family leave NAME`, `family share "PRODUCT" on|off`,
        /// `family consent NAME withdraw|give`.
        case family(FamilyStep)
        /// M2: retention messages and the scenario's own realtime endpoint (ScenarioRetention.swift).
        case retention(RetentionStep)
        /// `expect retention message "HEADER"` (or `none`): what the last cancel or accept showed.
        case expectRetention(String)
        /// V10: `upload receipt`: the app sends its receipt to its backend, which the scenario plays
        /// (ScenarioReceiptUpload.swift): SelfieService, validating it at verifyReceipt.
        case uploadReceipt
        /// `expect upload "TEXT"`: what SelfieService answered the last upload.
        case expectUpload(String)
        /// F3: `storefront GBR` moves the signed-in account; `on-storefront-change cancel|continue`
        /// is the app's answer for payments made after it.
        case storefront(String)
        case onStorefrontChange(StorefrontChangeChoice)
        /// `expect storefront GBR`: the account's storefront, and the one the last purchased
        /// transaction is signed with.
        case expectStorefront(String)
    }

    public enum FamilyStep: Equatable, Sendable {
        case create
        case add(String)
        case accept
        case leave(String)
        case share(String, on: Bool)
        case consent(String, withdrawn: Bool)
    }

    public enum RefundAnswer: String, Sendable, CaseIterable {
        case approve, decline, reverse
    }

    /// How a scenario's promotional offer is signed.
    public enum OfferSignatureStyle: String, Sendable, CaseIterable {
        case signed, expired, forged, reused, unsigned
    }

    public var line: Int
    public var text: String
    public var kind: Kind

    public var isExpectation: Bool {
        switch kind {
        case .expectHeader, .expectRow, .expectState, .expectReason, .expectViews, .expectOwned, .expectUser,
            .expectError,
            .expectPlan, .expectNotification, .expectRetention, .expectUpload, .expectStorefront:
            true
        default: false
        }
    }
}

public struct ScenarioError: Error, Equatable, CustomStringConvertible, Sendable {
    public let file: String
    public let line: Int
    public let message: String
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }
}

// The account server over the network (W1), declared once: each remote method is one
// `AccountMethod` — its name on the wire, its request and answer types, and whose call it is. A
// device's `RemoteAccountServer` sends a method's request and reads its answer; `storefront
// serve` performs it (StorefrontServer's AccountPerformers), after its dispatcher (AccountService)
// has checked who may call it, in one place. docs/architecture.md ("The wire") says what a new
// method takes.
import Foundation
import StoreModel

/// The table: every remote method, by role.
public enum AccountWire {
    /// Where `storefront serve` takes calls: `POST` with `{"method": NAME, "request": …}`.
    public static let path = "/storefront/v1/call"
    /// The header that carries the developer's token (W9), apart from customers' sessions.
    public static let developerHeader = "Storefront-Developer"

    package struct Envelope<Request: Codable>: Codable {
        package var method: String
        package var request: Request
    }

    package struct Reply<Value: Codable>: Codable {
        package var value: Value
        package init(value: Value) { self.value = value }
    }

    package typealias R = AccountRequests
    package typealias Method = AccountMethod

    /// Every remote method, declared once each, as the fields of one value (`methods`): a device
    /// forwards a call by its field, the server registers what it does for it, and `all` lists
    /// them by reflection, so that a test holds them against the server's registry without
    /// reading source text.
    package struct Methods: Sendable {
        // MARK: Accounts and sessions (W2): no session needed to sign in; the answer carries one.

        package let signUp = Method<R.Credentials, AccountSession>("signUp")
        package let signIn = Method<R.Credentials, AccountSession>("signIn")
        package let signOut = Method<R.None, Bool>("signOut")
        /// Which account an app transaction id names: the developer's question (the Server API's).
        /// W18: an account's own app transaction id, as the server minted it.
        package let appTransactionID = Method<String, String?>("appTransactionID", reads: true)
        package let accountOfAppTransaction = Method<String, String?>("accountOfAppTransaction", reads: true)
        package let deviceSessions = Method<String, [DeviceSessionInfo]>("deviceSessions", reads: true)
        package let revokeDeviceSession = Method<R.SessionID, Bool>("revokeDeviceSession")
        /// W17: the account's failed sign-ins since its last successful one, for its owner.
        package let failedSignIns = Method<String, FailedSignIns>("failedSignIns", reads: true)
        /// F3: the storefront an account buys in, its own to read and change.
        package let storefront = Method<String, String?>("storefront", reads: true)
        package let setStorefront = Method<R.AccountStorefront, Bool>("setStorefront")
        /// W17: the developer lifts an account's lock on unknown clients; whether it was locked.
        package let unlockAccount = Method<String, Bool>("unlockAccount")

        // MARK: The ledger: an account's receipt, that account's session only (A7, W6).

        /// A line that answers for the App Store (a refund, its decline or reversal, an extension) is
        /// the developer's to write (W9); every other line, its account's.
        package let record = Method<R.Record, Date?>("record")
        /// Another account's line is as good as none to the caller (the developer reads any).
        package let receiptEntry = Method<String, ReceiptEntry?>("receiptEntry", reads: true)
        package let receipt = Method<String, [ReceiptEntry]>("receipt", reads: true)
        package let receiptState = Method<String, ReceiptState>("receiptState", reads: true)
        package let storedExpiry = Method<String, Date?>("storedExpiry", reads: true)
        package let ownedProducts = Method<String, [[String]]>("ownedProducts", reads: true)

        // MARK: Plans

        package let plans = Method<String, [String: PlanState]>("plans", reads: true)
        package let planLines = Method<R.Lines, [ReceiptEntry]>("planLines", reads: true)
        package let addPlanLines = Method<R.AddLines, Bool>("addPlanLines")
        package let accountsWithPlans = Method<R.None, [String]>("accountsWithPlans", reads: true)

        // MARK: Claims and offer codes

        /// W9: the App Store grants the offers a purchase names (checks them, takes their uses), and
        /// settles a purchase whose payment was taken from its own catalog and the grant: a device asks,
        /// for its own account; it never takes a use or writes a purchase itself.
        package let grantOffer = Method<OfferAsk, OfferGrant>("grantOffer")
        package let settlePurchase = Method<PurchaseAsk, Bool>("settlePurchase")
        /// The server decides a payment's outcome from the developer's policy; only the developer may
        /// choose one (`--outcome`). Answering Ask to Buy is the developer's; an interrupted purchase,
        /// its buyer's.
        package let decidePayment = Method<PaymentAsk, PaymentDecision>("decidePayment")
        package let answerPayment = Method<PaymentAnswer, Bool>("answerPayment")
        /// What the server's clock has passed on an account's plans, written by the server; a member
        /// may ask it for the organizer whose plans it reads.
        package let settlePlans = Method<String, [ReceiptEntry]>("settlePlans")
        package let actOnPlan = Method<PlanAsk, PlanState>("actOnPlan")
        /// A customer's refund request, checked and filed by the server.
        package let fileRefundRequest = Method<RefundAsk, String>("fileRefundRequest")
        /// The shares an account's family calls for, written by the server.
        package let settleFamily = Method<String, Bool>("settleFamily")
        /// How many uses a key has: a win-back offer's, its account's to know (W6); a code's or a
        /// nonce's, anyone's who holds it.
        package let claims = Method<String, Int>("claims", reads: true)
        package let addOfferCodes = Method<[OfferCode], Bool>("addOfferCodes")
        package let offerCode = Method<String, OfferCode?>("offerCode", reads: true)
        package let offerCodes = Method<R.None, [OfferCode]>("offerCodes", reads: true)

        // MARK: Keys, prices, families

        /// The keys' public halves and issuer id (O2: devices check offer signatures).
        /// W18: the developer's keys are the developer's alone, to read as to change.
        package let apiKeyring = Method<R.None, APIKeyring?>("apiKeyring", reads: true)
        /// The keys' public halves only: a key's private half stays with whoever made it.
        package let setAPIKeyring = Method<APIKeyring, Bool>("setAPIKeyring")
        package let priceChanges = Method<R.None, [PriceChange]>("priceChanges", reads: true)
        package let setPriceChange = Method<PriceChange, Bool>("setPriceChange")
        /// The families the caller's accounts are in (W6: who is in which family is theirs to know);
        /// the developer's, every one. The server still refuses an account in two families, whatever a
        /// device could see (`FamilyChange.applied`).
        package let families = Method<R.None, [Family]>("families", reads: true)
        package let hasFamilies = Method<R.None, Bool>("hasFamilies", reads: true)
        /// A customer changes only a family they organize, or leaves one they are in (W9); the
        /// developer may change any. One family per call, written only if it is still as expected.
        package let changeFamily = Method<FamilyChange, Bool>("changeFamily")

        // MARK: The outbox: the server writes and delivers notifications.

        /// A device asks for what the clock's passing means for its own accounts (a cancelled plan's
        /// end, a grace period running out), for a withdrawal of consent, and for TEST notifications.
        /// The server derives each one from its own plans, families and clock, and makes the TEST's
        /// UUID: what a device sends only says which to look at, so it can name neither another
        /// account's event key nor a type (W9). A withdrawal of consent may be asked for by the member
        /// or by the organizer who made it (the member's device may not be running).
        package let enqueue = Method<[ServerNotification], [ServerNotification]>("enqueue")
        package let hasNotification = Method<String, Bool>("hasNotification", reads: true)
        /// One account's notifications, or (nil) those of every account the call has a session for.
        package let notifications = Method<String?, [ServerNotification]>("notifications", reads: true)
        /// The developer reads the webhook whole; anyone else only where it goes (its path and query
        /// may hold the developer's secret).
        package let webhook = Method<R.None, Webhook?>("webhook", reads: true)
        package let setWebhook = Method<Webhook?, Bool>("setWebhook")

        // MARK: Settings every device shares (W7): read by anyone, changed by the developer (W9).

        package let changeStamp = Method<R.None, ChangeStamp>("changeStamp", reads: true)
        package let clockSetting = Method<R.None, ClockSetting>("clockSetting", reads: true)
        package let setClockSetting = Method<ClockSetting, Bool>("setClockSetting")
        package let billingSetting = Method<R.None, BillingSetting>("billingSetting", reads: true)
        package let setBillingSetting = Method<BillingSetting, Bool>("setBillingSetting")
        package let appIdentity = Method<R.None, AppIdentity?>("appIdentity", reads: true)
        package let setAppIdentity = Method<AppIdentity, Bool>("setAppIdentity")
        package let simulatedErrors = Method<R.None, SimulatedErrors?>("simulatedErrors", reads: true)
        package let setSimulatedErrors = Method<SimulatedErrors, Bool>("setSimulatedErrors")
        package let paymentPolicy = Method<R.None, PurchaseOutcome?>("paymentPolicy", reads: true)
        package let setPaymentPolicy = Method<PurchaseOutcome, Bool>("setPaymentPolicy")
        /// W18: what the server signs in the developer's name for a customer's session; a customer
        /// reads it as it applies to her (the offer sheet), the developer sets it.
        package let offerPolicy = Method<R.None, OfferSigningPolicy?>("offerPolicy", reads: true)
        package let setOfferPolicy = Method<OfferSigningPolicy, Bool>("setOfferPolicy")
        /// The tokens of the caller's purchases only (the developer's: every one).
        package let appAccountTokens = Method<R.None, [String: String]>("appAccountTokens", reads: true)
        package let setAppAccountToken = Method<R.AppAccountToken, Bool>("setAppAccountToken")

        // MARK: Retention messaging (M1): the developer reads and changes it all; a customer's device
        // reads what it may show when it cancels (approved messages and their images), a caller with
        // no session nothing.

        package let retentionSetup = Method<R.None, RetentionSetup>("retentionSetup", reads: true)
        package let replaceRetentionSetup = Method<RetentionSetup, Bool>("replaceRetentionSetup")
        package let retentionImage = Method<String, Data?>("retentionImage", reads: true)
        package let setRetentionImage = Method<R.RetentionImage, Bool>("setRetentionImage")

        // MARK: Signed data (S1): the server signs an account's data for that account's devices, from
        // its own records, so that one root verifies everything a team shows.

        package let signed = Method<R.Signing, [String?]>("signed")
        /// The root that verifies it all (public: anyone may trust it).
        package let rootCertificate = Method<R.None, Data>("rootCertificate", reads: true)
        // MARK: The request log

        package let recentRequests = Method<Int, [ServedRequest]>("recentRequests", reads: true)
    }

    package static let methods = Methods()

    /// Every method `Methods` declares, read from its fields.
    package static var all: [any DeclaredAccountMethod] {
        Mirror(reflecting: methods).children.compactMap { $0.value as? any DeclaredAccountMethod }
    }

    /// A call's body, as a device sends it: keys in order, so that the same call is the same
    /// bytes (a screen tick keeps a read's answer by them).
    package static func body<Request, Response>(_ method: AccountMethod<Request, Response>, _ request: Request) throws
        -> Data
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(Envelope(method: method.name, request: request))
    }
}

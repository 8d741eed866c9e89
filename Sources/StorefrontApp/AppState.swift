// The screen program's state, the actions that change it and the effects it asks for
// (Elm architecture: reduce is pure; effects are values the runtime performs against the store).
import Foundation
import StoreCore
import StoreModel
import TerminalUI

public enum Route: Hashable, Sendable {
    case signIn
    case products
    case detail(String)
    case random
    case transactions
    /// The offer sheet of a product (O2, O3): its promotional offers, and a field for a code.
    case offers(String)
}

/// The offer sheet: which promotional offer is chosen, and the code typed so far.
public struct OfferForm: Equatable, Sendable {
    public var selection = 0
    public var code = ""

    public init() {}
}

public struct SignInForm: Equatable, Sendable {
    public enum Field: Int, CaseIterable, Sendable { case name, password, signIn, signUp, guest, signOut }
    public var name = ""
    public var password = ""
    public var focus: Field = .name
    public var error: String?

    public init() {}
}

/// What the store says now: everything a frame needs to know of it.
public struct StoreSnapshot: Equatable, Sendable {
    public var status: StoreStatus
    public var rows: [ProductRow]
    /// Deferred, interrupted and delayed transactions.
    public var pending: [StoreTransaction]
    public var policy: PurchaseOutcome
    public var clockDescription: String
    public var catalogName: String
    public var currencyCode: String
    public var localeIdentifier: String
    /// The store calendar's zone: times on screen are shown in it.
    public var timeZone: TimeZone
    /// Prices formatted for the catalog's currency and locale, by product id (formatted once per
    /// snapshot, not once per frame).
    public var displayPrices: [String: String]
    /// How renewals are charged (the transaction manager toggles it).
    public var billing = BillingSetting()
    /// One line per auto-renewable plan of the account (`PlanStatus.summary`).
    public var planSummaries: [String] = []
    /// "1 week free" beside a plan whose introductory offer the account can still use.
    public var offerNotes: [String: String] = [:]
    /// The newest App Store Server Notifications and where they stand (N6), and the webhook.
    public var notifications: [NotificationLine] = []
    public var webhook: String?
    /// The account server a `--server` device is connected to (W8); nil for the state folder's own.
    public var server: String?
    /// The newest requests `storefront serve` answered (V7).
    public var requests: [ServedRequest] = []
    /// StoreKit errors in force (Q7), and why the product list could not load (Load Products).
    public var simulatedErrors = SimulatedErrors()
    public var productsError: String?
    /// The organizer (parent or guardian) who withdrew consent for the signed-in account's use of
    /// the app: the App Store keeps it closed, so no product is listed.
    public var consentWithdrawnBy: String?
    /// W18: on a team, what the server signs for this customer's offers in the developer's name;
    /// nil for the state folder's own store, whose key is the developer's.
    public var offerPolicy: OfferSigningPolicy?
    /// O7: the signed-in account's latest refund requests.
    public var refundRequests: [RefundRequest] = []
    /// The catalog has random comics: without them the random viewer's key is not offered.
    public var hasRandomComics = true
    /// F3: the account's storefront, and the ones the catalog names (the transaction manager steps
    /// through them).
    public var storefront = ""
    public var storefrontChoices: [String] = []
    /// F3: whether the screen names the storefront: the catalog sells in more than one, or the
    /// account has moved away from the catalog's own.
    public var namesStorefront: Bool {
        storefrontChoices.count > 1 || (!storefront.isEmpty && storefront != storefrontChoices.first)
    }

    public init(
        status: StoreStatus, rows: [ProductRow], pending: [StoreTransaction], policy: PurchaseOutcome,
        clockDescription: String, catalogName: String, currencyCode: String = "USD", localeIdentifier: String = "en_US",
        timeZone: TimeZone = TimeZone(identifier: "UTC")!
    ) {
        self.timeZone = timeZone
        // Made only when there is a price to format: a formatter loads ICU.
        lazy var formatter = PriceFormatter(currencyCode: currencyCode, localeIdentifier: localeIdentifier)
        displayPrices = Dictionary(
            rows.map { row in
                let price = formatter.string(for: row.product.price)
                // An auto-renewable price is per period: "$5.99/month", "$4.99/3 months".
                let period = row.product.autoRenew.map { "/" + $0.period.unitPhrase } ?? ""
                return (row.product.id, price + period)
            }
        ) { first, _ in first }
        self.status = status
        self.rows = rows
        self.pending = pending
        self.policy = policy
        self.clockDescription = clockDescription
        self.catalogName = catalogName
        self.currencyCode = currencyCode
        self.localeIdentifier = localeIdentifier
    }

    /// While the store is being opened: the catalog's list, with no account, prices or labels yet.
    public var isOpening = false

    /// The first frame's snapshot: the catalog alone, drawn before any database is opened.
    public static func opening(_ catalog: Catalog) -> StoreSnapshot {
        // No time is shown before the store answers: any zone will do, and the local one costs a
        // look-up in ICU's data.
        let timeZone = TimeZone(secondsFromGMT: 0) ?? .gmt
        let status = StoreStatus(
            user: nil, device: "", now: Date(timeIntervalSince1970: 0), expiry: nil, isSubscribed: false,
            daysRemaining: 0,
            header: "Opening the store…", owned: [], unlocked: [], randomViewsRemaining: 0, lastRandomComic: nil
        )
        var snapshot = StoreSnapshot(
            status: status, rows: [], pending: [], policy: .approve, clockDescription: "", catalogName: catalog.name,
            currencyCode: catalog.currencyCode, localeIdentifier: catalog.localeIdentifier, timeZone: timeZone
        )
        // Rows without prices: formatting them loads ICU, which can wait for the store's answer.
        snapshot.rows = catalog.products.map { ProductRow(product: $0, action: .buy) }
        snapshot.isOpening = true
        return snapshot
    }

    public func product(_ id: String) -> Product? { rows.first { $0.product.id == id }?.product }

    public func displayPrice(_ product: Product) -> String {
        displayPrices[product.id]
            ?? PriceFormatter(currencyCode: currencyCode, localeIdentifier: localeIdentifier).string(for: product.price)
    }
}

/// How many of a played scenario's checks passed and failed.
public struct PlayChecks: Equatable, Sendable {
    public var passed = 0
    public var failed = 0

    public init(passed: Int = 0, failed: Int = 0) {
        self.passed = passed
        self.failed = failed
    }
}

public struct Banner: Equatable, Sendable {
    public enum Kind: Sendable { case info, success, failure }
    public var text: String
    public var kind: Kind
    public init(_ text: String, kind: Kind = .info) {
        self.text = text
        self.kind = kind
    }
}

public struct AppState: Equatable, Sendable {
    public var route: Route
    public var snapshot: StoreSnapshot?
    public var size: Size
    /// The selected row of the product list.
    public var selection = 0
    /// The selected line of the transaction manager's pending list.
    public var pendingSelection = 0
    public var form = SignInForm()
    public var offerForm = OfferForm()
    /// Every transaction state change seen while the screen is up, oldest first (Q2).
    public var log: [TransactionEvent] = []
    public var banner: Banner?
    /// Why the account server cannot be reached, while it cannot (W4, W8): a banner until it answers again.
    public var serverProblem: String?
    /// What the store is doing for a key that has not answered yet ("Buying …"), on the
    /// status line; every key keeps working meanwhile.
    public var working: String?
    public var showsHelp = false
    /// A scenario plays the screen (D1): the footer offers the player's keys, the only ones that work.
    public var isPlaying = false
    /// D2: this screen is one device's pane of several; Tab moves between the panes, so the form's
    /// footer offers ↓ for its next field.
    public var sharesTerminal = false
    /// The checks a played scenario has made so far: small marks at the side of its footer.
    public var checks = PlayChecks()
    /// M2: what the developer's endpoint chose to show before a cancel; its keys answer it.
    public var retention: RetentionSheet?
    /// The transaction inspector (S2): a transaction's signed form, decoded; any key closes it.
    public var inspection: Inspection?
    /// The comic the random viewer shows, and what its header says.
    public var randomComic: RandomComic?
    /// Decoded pictures by catalog path: the views draw only these (an effect decodes them).
    public var pictures: [String: PictureResult] = [:]
    /// The runtime's ticks so far, and the time of the last one (Q5: time is an input).
    public var ticks = 0
    public var lastTick: Date?
    public var isRunning = true
    /// Go to the sign-in form when the store, once open, says nobody is signed in (the screen's start).
    public var asksGuestsToSignIn = false

    public init(route: Route = .products, size: Size, snapshot: StoreSnapshot? = nil) {
        self.route = route
        self.size = size
        self.snapshot = snapshot
    }

    public static let logLimit = 500
    public static let minimumSize = Size(columns: 20, rows: 6)

    public var isTooSmall: Bool { size.columns < Self.minimumSize.columns || size.rows < Self.minimumSize.rows }
}

public enum Action: Equatable, Sendable {
    case key(Key)
    /// What a key does (the key map's), sent directly by scenarios and the player.
    case command(Command)
    case mouse(MouseEvent)
    case resize(Size)
    case interrupt
    /// The input timeout passed: time to settle what came due and pick up other processes' changes.
    case tick(Date)
    /// A picture an effect decoded.
    case pictureLoaded(String, PictureResult)
    /// A caption or a result for the banner line (scenario play).
    case showBanner(Banner)
    /// The banner goes (a played scenario's pause is over).
    case clearBanner
    /// Go to a screen as its key would (scenario play).
    case navigate(Route)
    /// A scenario starts or stops playing the screen.
    case playing(Bool)
    /// A played scenario's checks so far (the marks at the side).
    case checks(PlayChecks)
    /// The screen is one pane of several devices' (D2): Tab is the wall's.
    case sharesTerminal(Bool)
    case loaded(StoreSnapshot)
    case events([TransactionEvent])
    case purchased(StoreTransaction)
    case settled(StoreTransaction)
    case restored(RestoreResult)
    case randomShown(RandomComicResult)
    case signedIn(String?)
    /// A plan action went through; the plan's summary after it.
    case planChanged(String)
    /// The inspector's content for a transaction.
    case inspected(Inspection)
    /// M2: the retention sheet to show before a cancel (nil: it goes, a played scenario's step done).
    case retentionShown(RetentionSheet?)
    case failed(String)
    /// The account server stopped answering (the reason), or answers again (nil).
    case server(problem: String?)
    /// What the store is doing off the screen's loop, nil once it answered.
    case working(String?)
}

/// One notification as the transaction manager lists it.
public struct NotificationLine: Equatable, Sendable {
    public var at: Date
    public var title: String
    public var state: String
    public var attempts: Int
    /// The notification's UUID ("" where unknown).
    public var id: String

    public init(at: Date, title: String, state: String, attempts: Int, id: String = "") {
        self.id = id
        self.at = at
        self.title = title
        self.state = state
        self.attempts = attempts
    }
}

/// What the inspector shows: a title and lines of text.
public struct Inspection: Equatable, Sendable {
    public var title: String
    public var lines: [String]

    public init(title: String, lines: [String]) {
        self.title = title
        self.lines = lines
    }
}

/// What the transaction manager (and a scenario) can do to an auto-renewable plan.
public enum PlanCommand: String, Sendable, Equatable, CaseIterable {
    case cancel
    case renewOn = "renew-on"
    case expire
    case forceRenew = "force-renew"
    /// Refunds the transaction that pays for the current period.
    case refund
    /// O6: the price consent sheet's answers.
    case acceptPrice = "accept-price"
    case declinePrice = "decline-price"

    /// The store's action, for all but a refund.
    public var action: PlanAction? { PlanAction(rawValue: rawValue) }

    /// Does it to the plan of `productID`'s group in `store`; the plan after it.
    public func perform(in store: Store, on productID: String) throws(StoreError) -> PlanStatus {
        switch self {
        case .refund: try store.plans.refundCurrentPeriod(of: productID)
        case .acceptPrice: try store.plans.answerPriceIncrease(of: productID, accept: true)
        case .declinePrice: try store.plans.answerPriceIncrease(of: productID, accept: false)
        case .cancel, .renewOn, .expire, .forceRenew: try store.plans.perform(action!, on: productID)
        }
    }
}

public enum Effect: Equatable, Sendable {
    /// Settle what came due by the store's clock and report what changed (on every tick).
    case settle
    /// Decode the picture at this catalog path.
    case loadPicture(String)
    case buy(String)
    /// M4: buy a one-year plan on a billing plan (monthly with a 12-month commitment, or up
    /// front); for the plan one has, a switch at its next renewal or its commitment's end.
    case buyBilled(String, BillingPlan)
    /// O2: buy on a promotional offer, signed with the state folder's own subscription-offer key.
    case buyOffer(productID: String, offerID: String)
    /// O1: buy with the developer's signed word on the introductory offer (signed with the state
    /// folder's own key): the offer sheet's "introductory offer again" for a customer who had it.
    case buyIntro(productID: String, allow: Bool)
    /// O3: redeem an offer code.
    case redeem(String)
    /// O7: the refund request sheet for a transaction, and the developer's side answering one.
    case requestRefund(String)
    case answerRefund(String, approve: Bool)
    case approve(String)
    case decline(String)
    case resolve(String)
    case restore
    case showRandom
    case setPolicy(PurchaseOutcome)
    /// An action on the auto-renewable plan of the product's group.
    case plan(PlanCommand, productID: String)
    case setBilling(BillingSetting)
    /// StoreKit's simulated errors (Q7): the transaction manager's `E` steps through presets.
    case setSimulatedErrors(SimulatedErrors)
    /// F3: moves the signed-in account to another storefront.
    case setStorefront(String)
    /// Decode a transaction's signed form for the inspector.
    case inspect(String)
    /// M2: the customer's answer to the retention sheet.
    case retention(RetentionAnswer)
    case advanceClock(StoreDuration)
    case realClock
    case signIn(name: String, password: String)
    case signUp(name: String, password: String)
    case signOut
    case quit
}

/// The outcomes the transaction manager cycles through with `p`.
public let policyChoices: [PurchaseOutcome] =
    [.approve, .defer, .interrupt]
    + FailureReason.policyReasons.map { PurchaseOutcome.fail($0) }
    + [.delayed(after: .seconds(30), approve: true), .delayed(after: .seconds(30), approve: false)]

// Errors a person can act on: each says what was wrong and, where it helps, what to do.
import Foundation

public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case unknownProduct(String, suggestion: String?)
    case signInRequired(productID: String)
    case alreadyOwned(productID: String)
    case unknownTransaction(String)
    case ambiguousTransaction(String, matches: [String])
    case notPending(id: String, state: TransactionState)
    case cannotResolve(id: String, state: TransactionState)
    case noRandomViews(packID: String?)
    case noRandomComics
    case invalidAccountName(String)
    case emptyPassword
    case accountExists(String)
    case unknownAccount(String)
    case wrongPassword(String)
    /// W17: a team server refused a sign-in from a device the account does not know, and says no
    /// more: a wrong name or password, or an account that takes no unknown devices for now, answer
    /// alike to a stranger, byte for byte (the name is not echoed).
    case signInRefused
    /// W17: `account unlock` without a team server: only `storefront serve` limits sign-ins.
    case noSignInLimits
    case notSignedIn
    case invalidDeviceName(String)
    case alreadySubscribed(productID: String)
    /// No plan purchase or renewal with this id on the account's receipt.
    case unknownPlanTransaction(String, account: String)
    /// A non-renewing subscription of a `.storekit` file whose months nobody has given.
    case unknownDuration(productID: String)
    /// An auto-renewable plan cannot take this action now; the refusal says why (and, worded, what can be done).
    case planRefused(PlanRefusal)
    case unknownNotification(String)
    /// No active device session with this id (`storefront account sessions` lists them).
    case unknownSession(String)
    /// A StoreKit API failed with the simulated error set for it (Q7).
    case simulated(api: StoreKitAPI, error: SimulatedError)
    /// A simulated crash at a durability step (tests and the scenario player's `crash` step).
    case stopped(at: CrashPoint)
    case corruptDatabase(path: String, reason: String)
    case storage(path: String, reason: String)
    /// The account server named with `--server` cannot be reached, or did not answer in time (W4).
    case serverUnreachable(server: String, problem: HTTPProblem)
    /// The account server refused this device's session: revoked, unknown, or another account's (W6).
    case sessionRefused(server: String, reason: String)
    /// The account server does this for the developer only, and the call did not carry the
    /// developer's token (W9). `action` says what, in words.
    case developerOnly(server: String, action: String)
    /// Something only the keeper of the records does (resending a notification), asked of a
    /// team's server by a device: the server does it on its own schedule.
    case serverKeeps(server: String, action: String)
    /// A team server refused what a device wrote about its own purchases: the words say why.
    case refusedByServer(String)
    /// A purchase with an offer was refused as StoreKit refuses it (O2–O4).
    case offerRefused(OfferRefusal)
    /// `offer-codes create --custom` with a code that exists.
    case offerCodeExists(String)
    /// `redeem` with a code nobody made (O3).
    case unknownOfferCode(String)
    /// A code whose uses are all taken, or that this account redeemed already (O3).
    case offerCodeUsed(String, byThisAccount: Bool)
    /// A refund request that cannot be made or answered now; the refusal says why (O7).
    case refundRefused(RefundRefusal)
    /// A family action that cannot be done; the refusal says why (O5).
    case familyRefused(FamilyRefusal)
    /// Too many sign-ins or sign-ups at once or in a row from here or for this name (W11): none
    /// was tried; wait `seconds`.
    case throttled(seconds: Int)
    /// A team's server whose catalog has no such product refused a purchase of it: the device was
    /// started with another catalog than `storefront serve` was.
    case notSoldByServer(productID: String, server: String)
    /// F2: the product is not sold in the account's storefront (StoreKit's storeProductNotAvailable).
    case notSoldInStorefront(productID: String, storefront: String)
    /// F3: the account cannot move to that storefront now; the refusal says why.
    case storefrontRefused(StorefrontRefusal)

    /// Said when an id too short to be a prefix found nothing: ids may be shortened to their
    /// first 4 or more characters, never fewer.
    static func shortPrefix(_ id: String) -> String {
        id.count < 4 ? ": an id may be shortened to its first 4 or more characters, and \"\(id)\" has \(id.count)" : ""
    }

    public var description: String {
        switch self {
        case .unknownProduct(let id, let suggestion):
            "unknown product \"\(id)\""
                + (suggestion.map { " (did you mean \"\($0)\"? `storefront products` lists them)" }
                    ?? " (`storefront products` lists them)")
        case .signInRequired(let id):
            "\"\(id)\" is a subscription: sign in first (`storefront account login NAME` or `account signup NAME`)"
        case .alreadyOwned(let id):
            "\"\(id)\" is already owned on this device; `storefront restore` brings purchases back elsewhere"
        case .unknownTransaction(let id):
            "no transaction \"\(id)\" on this device" + Self.shortPrefix(id)
                + " (`storefront pending` lists the waiting ones)"
        case .ambiguousTransaction(let id, let matches):
            "\"\(id)\" matches several transactions: \(matches.joined(separator: ", "))"
        case .notPending(let id, let state):
            "transaction \(id) is \(state.rawValue), not waiting for approval"
        case .cannotResolve(let id, let state):
            "transaction \(id) is \(state.rawValue); only an interrupted purchase can be resolved"
        case .noRandomViews(let packID):
            "no random comics left: buy more views" + (packID.map { " (`storefront buy \($0)`)" } ?? "")
                + " or subscribe"
        case .noRandomComics:
            "the catalog has no comics to show at random"
        case .invalidAccountName(let name):
            "\"\(name)\" is not a valid account name (1 to 64 letters, digits, '.', '_', '-' or '@')"
        case .emptyPassword:
            "the password is empty (set STOREFRONT_PASSWORD or type it on standard input)"
        case .accountExists(let name):
            "an account named \"\(name)\" already exists; sign in with `storefront account login \(name)`"
        case .unknownAccount(let name):
            "no account named \"\(name)\"; create it with `storefront account signup \(name)`"
        case .wrongPassword(let name):
            "wrong password for \"\(name)\""
        case .noSignInLimits:
            "only a team server (`storefront serve`) limits sign-ins: give --server (or STOREFRONT_SERVER) and the developer's token to unlock an account there"
        case .signInRefused:
            "sign-in refused: the name or password is wrong, or after many failed sign-ins the account takes "
                + "none from new devices for a while; try again in a few minutes, sign in from a device that "
                + "signed in to it before, or ask the developer to run `storefront account unlock NAME`"
        case .notSignedIn:
            "not signed in (`storefront account login NAME`, or `storefront account signup NAME` for a new account)"
        case .notSoldByServer(let productID, let server):
            "the account server\(server.isEmpty ? "" : " " + server) does not sell \(productID): its catalog is not this device's (start `storefront serve --catalog FILE` with the devices' catalog, or give the devices the server's)"
        case .notSoldInStorefront(let productID, let storefront):
            "\(productID) is not sold in storefront \(storefront) (StoreKit: storeProductNotAvailable): the catalog gives it no price there, or its \"availableIn\" leaves \(storefront) out"
        case .invalidDeviceName(let name):
            "\"\(name)\" is not a valid device name (1 to 64 letters, digits, '.', '_' or '-', not starting with '.')"
        case .unknownPlanTransaction(let id, let account):
            "no auto-renewable subscription transaction \"\(id)\" on \(account)'s receipt" + Self.shortPrefix(id)
                + " (`storefront receipt` lists them)"
        case .alreadySubscribed(let id):
            "already subscribed to \"\(id)\" with auto-renew on (`storefront subscriptions` shows the plan)"
        case .planRefused(let refusal):
            refusal.description
        case .storefrontRefused(let refusal):
            refusal.description
        case .unknownDuration(let id):
            "the .storekit file does not say how long \"\(id)\" lasts: pass --duration \(id)=P1M (P7D, P2W, P1Y …) or put it in the side file"
        case .stopped(let point):
            "the app died at \(point.rawValue): \(point.summary) (a simulated crash; the next start completes it)"
        case .corruptDatabase(let path, let reason):
            "\(path) is not a usable database (\(reason)); it was left untouched: move it aside to start afresh, or put a good copy in its place"
        case .storage(let path, let reason):
            "\(path): \(reason)"
        case .serverUnreachable(let server, let problem):
            "the account server \(server) cannot be reached (\(problem))"
                + (problem.leavesServerInDoubt ? "; is `storefront serve` running there?" : "")
        case .sessionRefused(let server, let reason):
            "the account server \(server) refused this device: \(reason) (sign in again: `storefront account login NAME`)"
        case .developerOnly(let server, let action):
            "only the developer may \(action) on the account server \(server): give its developer token (STOREFRONT_DEVELOPER_TOKEN or --developer-token-file; `storefront developer-token` prints it where the server runs)"
        case .refusedByServer(let why): "the account server refused \(why)"
        case .serverKeeps(let server, let action):
            "the account server \(server) does that itself: a device cannot \(action) there"
        case .unknownNotification(let id):
            "no notification \"\(id)\"" + Self.shortPrefix(id) + " (`storefront notifications` lists them)"
        case .offerRefused(let refusal):
            refusal.description
        case .offerCodeExists(let code):
            "the offer code \"\(code)\" exists already (`storefront offer-codes` lists them)"
        case .unknownOfferCode(let code):
            "no offer code \"\(code)\" (`storefront offer-codes` lists them; `offer-codes create OFFER` makes some)"
        case .refundRefused(let refusal):
            refusal.description
        case .familyRefused(let refusal):
            refusal.description
        case .offerCodeUsed(let code, let mine):
            mine
                ? "the offer code \"\(code)\" was redeemed by this account already"
                : "the offer code \"\(code)\" has been used up"
        case .throttled(let seconds):
            "too many sign-in or sign-up attempts: none was tried; wait \(seconds) s and try again"
        case .unknownSession(let id):
            "no active session \"\(id)\" for this account (`storefront account sessions` lists them)"
        case .simulated(let api, let error):
            "\(api.rawValue) failed: \(error) (a simulated StoreKit error; `storefront errors clear \(api.argument)` stops it)"
        }
    }
}

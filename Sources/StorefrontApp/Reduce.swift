// reduce(state, action) -> effects: every key, click, resize and store answer goes through here.
// Pure: no I/O, no clock; what must touch the store comes back as `Effect` values.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

public func reduce(_ state: inout AppState, _ action: Action) -> [Effect] {
    let effects = reduceAction(&state, action)
    return effects + requestPicture(&state)
}

/// The picture the screen now shows, when it is not decoded or asked for yet.
private func requestPicture(_ state: inout AppState) -> [Effect] {
    let path: String?
    switch state.route {
    case .detail(let id):
        path = state.snapshot.flatMap { detailPicture(id, in: $0) }
    case .random: path = state.randomComic?.image
    default: path = nil
    }
    guard let path, state.pictures[path] == nil else { return [] }
    state.pictures[path] = .loading
    return [.loadPicture(path)]
}

/// The picture a product's detail view shows: a comic once unlocked (R8), else the product's own
/// art (C8), which shows whether or not it is owned.
func detailPicture(_ id: String, in snapshot: StoreSnapshot) -> String? {
    guard let product = snapshot.product(id) else { return nil }
    let unlocked = snapshot.status.unlocked.contains(id)
    return (unlocked ? product.image : nil) ?? product.promotionalImage
}

private func reduceAction(_ state: inout AppState, _ action: Action) -> [Effect] {
    let effects = reduceAnswer(&state, action)
    // Until the store has answered, nothing can be bought or changed: only the list and moving in it.
    guard state.snapshot?.isOpening == true else { return effects }
    return effects.filter { $0 == .settle || $0 == .quit }
}

private func reduceAnswer(_ state: inout AppState, _ action: Action) -> [Effect] {
    switch action {
    case .tick(let now):
        state.ticks += 1
        state.lastTick = now
        return [.settle]
    case .pictureLoaded(let path, let result):
        state.pictures[path] = result
        return []
    case .showBanner(let banner):
        state.banner = banner
        return []
    case .clearBanner:
        state.banner = nil
        return []
    case .checks(let checks):
        state.checks = checks
        return []
    case .playing(let playing):
        state.isPlaying = playing
        return []
    case .sharesTerminal(let shares):
        state.sharesTerminal = shares
        return []
    case .navigate(let route):
        state.showsHelp = false
        state.route = route
        return []
    case .resize(let size):
        state.size = size
        return []
    case .interrupt:
        state.isRunning = false
        return [.quit]
    case .loaded(let snapshot):
        // F3: Storefront.updates: the account's storefront changed (here, or on another device).
        if let before = state.snapshot, !before.isOpening, before.status.user == snapshot.status.user,
            before.storefront != snapshot.storefront, !snapshot.storefront.isEmpty
        {
            state.banner = Banner(
                "Storefront changed to \(snapshot.storefront): prices in \(snapshot.currencyCode)")
        }
        state.snapshot = snapshot
        if state.asksGuestsToSignIn, !snapshot.isOpening {
            state.asksGuestsToSignIn = false
            if snapshot.status.user == nil, state.route == .products { state.route = .signIn }
        }
        state.selection = clamp(state.selection, count: snapshot.rows.count)
        state.pendingSelection = clamp(state.pendingSelection, count: snapshot.pending.count)
        if case .detail(let id) = state.route, snapshot.product(id) == nil { state.route = .products }
        return []
    case .events(let events):
        state.log.append(contentsOf: events)
        if state.log.count > AppState.logLimit { state.log.removeFirst(state.log.count - AppState.logLimit) }
        return []
    case .purchased(let transaction), .settled(let transaction):
        state.banner = banner(for: transaction, title: title(transaction.productID, in: state))
        return []
    case .restored(let result):
        let titles = result.restored.map { title($0, in: state) }
        var text =
            titles.isEmpty
            ? "Nothing to restore"
            : "Restored \(titles.count) comic\(titles.count == 1 ? "" : "s"): \(titles.joined(separator: ", "))"
        if let expiry = result.expiry {
            // A restore after the pass ran out says when it ended, not "until" a past day.
            let ended = state.snapshot.map { expiry <= $0.status.now } ?? false
            text +=
                ended
                ? " · subscription expired \(formatDay(expiry, state))"
                : " · subscription until \(formatDay(expiry, state))"
        }
        state.banner = Banner(text, kind: .success)
        return []
    case .randomShown(let result):
        state.randomComic = result.comic
        return []
    case .signedIn(let user):
        state.form = SignInForm()
        state.route = .products
        state.selection = 0
        state.banner = Banner(user.map { "Signed in as \($0)" } ?? "Continuing as a guest", kind: .success)
        return []
    case .planChanged(let summary):
        state.banner = Banner(summary, kind: .success)
        return []
    case .retentionShown(let sheet):
        state.retention = sheet
        return []
    case .inspected(let inspection):
        state.inspection = inspection
        return []
    case .server(let problem):
        state.serverProblem = problem
        return []
    case .working(let words):
        state.working = words
        return []
    case .failed(let message):
        if state.route == .signIn {
            state.form.error = message
        } else {
            state.banner = Banner(message, kind: .failure)
        }
        return []
    case .mouse(let event):
        return reduceMouse(&state, event)
    case .key(let key):
        if let effects = reduceRetentionKey(&state, key) { return effects }
        if state.showsHelp || state.inspection != nil {
            state.showsHelp = false
            state.inspection = nil
            return []
        }
        guard let command = command(for: key, on: state.route, sellsPlans: sellsPlans(state)) else {
            if state.route == .signIn, case .character(let character) = key { type(character, into: &state.form) }
            if case .offers = state.route, case .character(let character) = key {
                if state.offerForm.code.count < 64, !character.isWhitespace { state.offerForm.code.append(character) }
                return []
            }
            if state.route != .signIn { state.banner = nil }
            return []
        }
        return reduceAnswer(&state, .command(command))
    case .command(let command):
        if state.showsHelp {
            state.showsHelp = false
            return []
        }
        if command == .help {
            state.showsHelp = true
            return []
        }
        if state.route != .signIn { state.banner = nil }
        switch state.route {
        case .products: return reduceProducts(&state, command)
        case .detail(let id): return reduceDetail(&state, command, productID: id)
        case .offers(let id): return reduceOffers(&state, command, productID: id)
        case .random: return reduceRandom(&state, command)
        case .transactions: return reduceTransactions(&state, command)
        case .signIn: return reduceSignIn(&state, command)
        }
    }
}

func clamp(_ value: Int, count: Int) -> Int { count == 0 ? 0 : min(max(0, value), count - 1) }

func reduceProducts(_ state: inout AppState, _ command: Command) -> [Effect] {
    let rows = state.snapshot?.rows ?? []
    // RESCIND_CONSENT: a closed app opens nothing and buys nothing; the account, the transaction
    // manager, help and quit still work.
    if let organizer = state.snapshot?.consentWithdrawnBy, [.restore, .random].contains(command) {
        state.banner = Banner("Closed: \(organizer) withdrew consent for this app", kind: .failure)
        return []
    }
    switch command {
    case .up: state.selection = clamp(state.selection - 1, count: rows.count)
    case .down: state.selection = clamp(state.selection + 1, count: rows.count)
    case .pageUp: state.selection = clamp(state.selection - 5, count: rows.count)
    case .pageDown: state.selection = clamp(state.selection + 5, count: rows.count)
    case .top: state.selection = 0
    case .bottom: state.selection = clamp(rows.count - 1, count: rows.count)
    case .open:
        guard rows.indices.contains(state.selection) else { return [] }
        return open(&state, rows[state.selection])
    case .buy:
        guard rows.indices.contains(state.selection) else { return [] }
        return buy(&state, rows[state.selection].product.id)
    case .restore: return [.restore]
    case .transactions: state.route = .transactions
    case .random:
        guard state.snapshot?.hasRandomComics != false else {
            state.banner = Banner("This catalog has no random comics", kind: .failure)
            return []
        }
        return openRandom(&state)
    case .account:
        state.form = SignInForm()
        state.route = .signIn
    case .offers:
        guard rows.indices.contains(state.selection) else { return [] }
        state.offerForm = OfferForm()
        state.route = .offers(rows[state.selection].product.id)
    case .quit:
        state.isRunning = false
        return [.quit]
    default: break
    }
    return []
}

func open(_ state: inout AppState, _ row: ProductRow) -> [Effect] {
    // A product with art of its own (C8) opens on it, whatever its kind; `b` buys from there.
    if row.product.promotionalImage != nil {
        state.route = .detail(row.product.id)
        return []
    }
    switch row.product.kind {
    case .nonConsumable:
        state.route = .detail(row.product.id)
        return []
    case .consumable:
        return openRandom(&state)
    case .nonRenewingSubscription, .autoRenewableSubscription:
        return buy(&state, row.product.id)
    }
}

private func openRandom(_ state: inout AppState) -> [Effect] {
    state.route = .random
    state.randomComic = nil
    return [.showRandom]
}

/// Buys, unless the row says there is nothing to buy or an account is needed first.
func buy(_ state: inout AppState, _ productID: String) -> [Effect] {
    guard let row = state.snapshot?.rows.first(where: { $0.product.id == productID }) else { return [] }
    if row.pending != nil {
        state.banner = Banner("\(row.product.title) is already in progress (t: transaction manager)")
        return []
    }
    switch row.action {
    case .owned:
        state.banner = Banner("\(row.product.title) is already unlocked ✓")
        return []
    case .signInRequired:
        state.form = SignInForm()
        state.form.error = "Subscriptions need an account: sign in or sign up"
        state.route = .signIn
        return []
    case .subscribed:
        state.banner = Banner("Subscribed to \(row.product.title) ✓ — t to manage the plan")
        return []
    case .notSold:
        state.banner = Banner("\(row.product.title) is not sold in this storefront")
        return []
    case .scheduled:
        state.banner = Banner("\(row.product.title) starts at the next renewal — b on the current plan keeps it")
        return []
    case .buy, .subscribe, .renew, .resubscribe, .upgrade, .downgrade, .crossgrade:
        state.banner = Banner("Purchasing \(row.product.title)…")
        return [.buy(productID)]
    }
}

private func reduceDetail(_ state: inout AppState, _ command: Command, productID: String) -> [Effect] {
    switch command {
    case .buy: return buy(&state, productID)
    case .transactions: state.route = .transactions
    case .restore: return [.restore]
    case .back: state.route = .products
    default: break
    }
    return []
}

private func reduceRandom(_ state: inout AppState, _ command: Command) -> [Effect] {
    switch command {
    case .nextComic: return [.showRandom]
    case .buyViews:
        guard let pack = state.snapshot?.rows.first(where: { $0.product.kind == .consumable }) else { return [] }
        return buy(&state, pack.product.id)
    case .transactions: state.route = .transactions
    case .back: state.route = .products
    default: break
    }
    return []
}

func title(_ productID: String, in state: AppState) -> String {
    state.snapshot?.product(productID)?.title ?? productID
}

func formatDay(_ date: Date, _ state: AppState) -> String {
    SubscriptionMath.formatDay(date, calendar: storeCalendar(state.snapshot?.timeZone ?? TimeZone(identifier: "UTC")!))
}

/// What a tester should read after a purchase.
func banner(for transaction: StoreTransaction, title: String) -> Banner {
    switch transaction.state {
    case .purchased: return Banner("Purchased \(title) ✓", kind: .success)
    case .restored: return Banner("Restored \(title) ✓", kind: .success)
    case .deferred: return Banner("\(title): waiting for approval (Ask to Buy) — t to approve or decline")
    case .interrupted: return Banner("\(title): needs action — t, then s to accept or x to cancel")
    case .purchasing: return Banner("\(title): purchasing… (the card is slow)")
    case .failed:
        return Banner(Wording.purchaseFailed(title, reason: transaction.reason).capitalizingFirst, kind: .failure)
    }
}

extension String {
    /// "Purchase of …" at the start of a banner.
    var capitalizingFirst: String { prefix(1).uppercased() + dropFirst() }
}

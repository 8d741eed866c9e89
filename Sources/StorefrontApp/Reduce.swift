// reduce(state, action) -> effects: every key, click, resize and store answer goes through here.
// Pure: no I/O, no clock; what must touch the store comes back as `Effect` values.
import Foundation
import StoreCore
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
        // A locked comic shows no picture (R8): nothing to decode.
        path = state.snapshot?.status.unlocked.contains(id) == true ? state.snapshot?.product(id)?.image : nil
    case .random: path = state.randomComic?.image
    default: path = nil
    }
    guard let path, state.pictures[path] == nil else { return [] }
    state.pictures[path] = .loading
    return [.loadPicture(path)]
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

private func clamp(_ value: Int, count: Int) -> Int { count == 0 ? 0 : min(max(0, value), count - 1) }

private func reduceProducts(_ state: inout AppState, _ command: Command) -> [Effect] {
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

private func open(_ state: inout AppState, _ row: ProductRow) -> [Effect] {
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
private func buy(_ state: inout AppState, _ productID: String) -> [Effect] {
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

/// A line of the offer sheet: a billing plan, an offer, or the introductory offer again.
enum SheetChoice {
    /// M4: twelve monthly payments of `price` (a 12-month commitment), or `price` for a year.
    case billing(BillingPlan, price: Decimal)
    case offer(SubscriptionOffer)
    /// O1: the introductory offer for a lapsed customer who had it, given again by the developer's
    /// signed word (introductoryOfferEligibility).
    case introductoryAgain(IntroductoryOffer)
}

/// What the sheet of `productID` lists: for a plan with a monthly billing plan, the billing plan it
/// does not renew on (monthly, or up front for a subscriber whose plan renews monthly: M4); then
/// promotional offers, then win-back ones, then the introductory offer again for a customer whose
/// plan in the group lapsed after they had it.
func sheetChoices(_ state: AppState, _ productID: String) -> [SheetChoice] {
    let product = state.snapshot?.product(productID)
    let terms = product?.autoRenew
    let offers = terms?.offers ?? []
    var billing: [SheetChoice] = []
    if let monthly = terms?.monthlyCommitmentPrice, let product {
        let own = state.snapshot?.status.plans.first { $0.productID == productID && $0.hasAccess }
        billing =
            own?.renewingBillingPlan == .monthly
            ? [.billing(.billedUpfront, price: product.price)] : [.billing(.monthly, price: monthly)]
    }
    var again: [SheetChoice] = []
    if let terms, let intro = terms.introductoryOffer,
        state.snapshot?.status.plans.contains(where: { $0.group == terms.group && $0.introOfferUsed && !$0.hasAccess })
            == true
    {
        again = [.introductoryAgain(intro)]
    }
    return billing
        + (offers.filter { $0.type == .promotional } + offers.filter { $0.type == .winBack }).map(SheetChoice.offer)
        + again
}

/// The offer sheet: ⏎ redeems the typed code, or buys on the chosen offer.
private func reduceOffers(_ state: inout AppState, _ command: Command, productID: String) -> [Effect] {
    let offers = sheetChoices(state, productID)
    switch command {
    case .up: state.offerForm.selection = clamp(state.offerForm.selection - 1, count: offers.count)
    case .down: state.offerForm.selection = clamp(state.offerForm.selection + 1, count: offers.count)
    case .erase: if !state.offerForm.code.isEmpty { state.offerForm.code.removeLast() }
    case .back: state.route = .products
    case .choose:
        if !state.offerForm.code.isEmpty {
            let code = state.offerForm.code
            state.route = .products
            state.banner = Banner("Redeeming \(code)…")
            return [.redeem(code)]
        }
        guard offers.indices.contains(state.offerForm.selection) else {
            state.banner = Banner(
                "\(title(productID, in: state)) has no offers of its own: type an offer code", kind: .failure)
            return []
        }
        state.route = .products
        switch offers[state.offerForm.selection] {
        case .billing(let plan, _):
            state.banner = Banner("Purchasing \(title(productID, in: state)) billed \(plan.words)…")
            return [.buyBilled(productID, plan)]
        case .offer(let offer):
            state.banner = Banner("Purchasing \(title(productID, in: state)) on \(offer.id)…")
            return [.buyOffer(productID: productID, offerID: offer.id)]
        case .introductoryAgain:
            state.banner = Banner("Purchasing \(title(productID, in: state)) on its introductory offer again…")
            return [.buyIntro(productID: productID, allow: true)]
        }
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

private func reduceTransactions(_ state: inout AppState, _ command: Command) -> [Effect] {
    let pending = state.snapshot?.pending ?? []
    let selected = pending.indices.contains(state.pendingSelection) ? pending[state.pendingSelection] : nil
    switch command {
    case .up: state.pendingSelection = clamp(state.pendingSelection - 1, count: pending.count)
    case .down: state.pendingSelection = clamp(state.pendingSelection + 1, count: pending.count)
    case .approve:
        guard let selected else {
            state.banner = Banner("Nothing pending to approve")
            return []
        }
        return [.approve(selected.id)]
    case .decline:
        guard let selected else {
            state.banner = Banner("Nothing pending to decline")
            return []
        }
        return [.decline(selected.id)]
    case .resolve:
        guard let selected, selected.state == .interrupted else {
            state.banner = Banner("Select an interrupted purchase (\(Wording.state(.interrupted))) to resolve")
            return []
        }
        return [.resolve(selected.id)]
    case .nextPolicy, .previousPolicy:
        let current = state.snapshot?.policy ?? .approve
        let index = policyChoices.firstIndex(of: current) ?? 0
        let step = command == .nextPolicy ? 1 : policyChoices.count - 1
        return [.setPolicy(policyChoices[(index + step) % policyChoices.count])]
    case .advance(let duration): return [.advanceClock(duration)]
    case .realTime: return [.realClock]
    case .restore: return [.restore]
    case .plan(let planCommand): return planEffect(&state, planCommand)
    case .nextSimulatedErrors:
        return [.setSimulatedErrors((state.snapshot?.simulatedErrors ?? SimulatedErrors()).nextPreset)]
    case .inspect:
        // The newest transaction in the log that delivered something: its signed form (S2).
        guard let event = state.log.last(where: { $0.state == .purchased || $0.state == .restored }) else {
            state.banner = Banner("No purchased or restored transaction in the log to inspect")
            return []
        }
        return [.inspect(event.transactionID)]
    case .requestRefund:
        // The refund request sheet for the newest transaction in the log that delivered something.
        guard let event = state.log.last(where: { $0.state == .purchased || $0.state == .restored }) else {
            state.banner = Banner("No purchased transaction in the log to ask a refund for")
            return []
        }
        return [.requestRefund(event.transactionID)]
    case .answerRefund(let approve):
        guard let request = state.snapshot?.refundRequests.last(where: { $0.state == .pending }) else {
            state.banner = Banner("No refund request is waiting for an answer (F asks for one)")
            return []
        }
        return [.answerRefund(request.transactionID, approve: approve)]
    case .toggleBilling:
        var billing = state.snapshot?.billing ?? BillingSetting()
        billing.failing.toggle()
        return [.setBilling(billing)]
    case .toggleGrace:
        var billing = state.snapshot?.billing ?? BillingSetting()
        billing.graceDays = billing.graceDays == nil ? BillingSetting.defaultGraceDays : nil
        return [.setBilling(billing)]
    case .back: state.route = .products
    default: break
    }
    return []
}

/// The plan the transaction manager acts on: the first that still has access or is in billing
/// retry, else the latest one.
func managedPlan(_ state: AppState) -> PlanStatus? {
    let plans = state.snapshot?.status.plans ?? []
    return plans.first { $0.hasAccess || $0.phase == .billingRetry } ?? plans.last
}

private func planEffect(_ state: inout AppState, _ command: PlanCommand) -> [Effect] {
    guard let plan = managedPlan(state) else {
        state.banner = Banner("No auto-renewable plan yet: subscribe to one first")
        return []
    }
    return [.plan(command, productID: plan.productID)]
}

private func reduceSignIn(_ state: inout AppState, _ command: Command) -> [Effect] {
    var form = state.form
    defer { state.form = form }
    let fields = availableFields(state)
    let position = fields.firstIndex(of: form.focus) ?? 0
    switch command {
    case .nextField:
        form.focus = fields[(position + 1) % fields.count]
    case .previousField:
        form.focus = fields[(position + fields.count - 1) % fields.count]
    case .nextButton, .previousButton:
        let buttons = fields.filter { $0 != .name && $0 != .password }
        guard let at = buttons.firstIndex(of: form.focus) else { break }
        form.focus = buttons[(at + (command == .nextButton ? 1 : buttons.count - 1)) % buttons.count]
    case .back:
        state.route = .products
    case .erase:
        if form.focus == .name, !form.name.isEmpty { form.name.removeLast() }
        if form.focus == .password, !form.password.isEmpty { form.password.removeLast() }
    case .choose:
        switch form.focus {
        case .name: form.focus = .password
        case .password, .signIn:
            guard !form.name.isEmpty else {
                form.error = "Type a name first"
                return []
            }
            return [.signIn(name: form.name, password: form.password)]
        case .signUp:
            guard !form.name.isEmpty else {
                form.error = "Type a name first"
                return []
            }
            return [.signUp(name: form.name, password: form.password)]
        case .guest:
            state.route = .products
            state.banner = Banner("Continuing as a guest: comics and packs only")
        case .signOut:
            return [.signOut]
        }
    default: break
    }
    return []
}

/// A character typed into the focused field of the sign-in form.
private func type(_ character: Character, into form: inout SignInForm) {
    if form.focus == .name, form.name.count < 64 { form.name.append(character) }
    if form.focus == .password, form.password.count < 128 { form.password.append(character) }
    form.error = nil
}

/// Sign out is offered only to someone signed in.
func availableFields(_ state: AppState) -> [SignInForm.Field] {
    let signedIn = state.snapshot?.status.user != nil
    return SignInForm.Field.allCases.filter { $0 != .signOut || signedIn }
}

private func reduceMouse(_ state: inout AppState, _ event: MouseEvent) -> [Effect] {
    if state.showsHelp {
        state.showsHelp = false
        return []
    }
    guard state.route == .products, let rows = state.snapshot?.rows else { return [] }
    let layout = ProductListLayout(size: state.size, snapshot: state.snapshot, selection: state.selection)
    switch event.kind {
    case .scrollUp: state.selection = clamp(state.selection - 1, count: rows.count)
    case .scrollDown: state.selection = clamp(state.selection + 1, count: rows.count)
    case .click, .doubleClick:
        // A click on a banner that covers rows of the list takes the banner away, and never
        // selects or buys a row it hides.
        if let banner = bannerLines(state), bannerRows(banner.lines.count, height: state.size.rows).contains(event.y) {
            if state.serverProblem == nil { state.banner = nil }
            return []
        }
        // A click below the last row, or on a window too small to show the list, does nothing.
        guard !state.isTooSmall, let index = layout.row(atY: event.y), rows.indices.contains(index) else { return [] }
        state.selection = index
        state.banner = nil
        if event.kind == .doubleClick { return open(&state, rows[index]) }
        if event.x >= layout.actionColumn { return buy(&state, rows[index].product.id) }
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

// What `storefront serve` does with each method of the wire (W1, W6, W9): the wire (StoreCore's
// AccountWire) declares a method's name, types and access rule; here the server performs it,
// against the records it keeps and what it knows of the call.
import Foundation
import StoreCore
import StoreModel

extension AccountPerformers {
    /// Accounts and sessions, the ledger, plans, claims and offer codes, keys, prices, families and
    /// the outbox.
    static func registerRecords(_ registry: inout AccountPerformers) {
        registry.on(wire.signUp, access: { _ in .anyone }) { server, request, call in
            try Accounts.validate(accountName: request.name)
            try StateDirectory.validate(device: request.device)
            guard !request.password.isEmpty else { throw StoreError.emptyPassword }
            // W11: sign-ups are limited per client.
            guard call.gate.signUp(client: call.client) else {
                throw StoreError.throttled(seconds: Int(SignInGate.signUpEvery))
            }
            let made = try server.signUp(
                name: request.name, password: request.password, hasher: call.hasher, device: request.device,
                at: call.now)
            return AccountSession(
                account: made.account,
                token: try server.createSession(
                    account: made.account, device: request.device, at: call.now, expiresAt: call.sessionExpiry),
                deviceToken: try server.createDeviceToken(
                    account: made.account, device: request.device, at: call.now, expiresAt: call.deviceTokenExpiry))
        }
        registry.on(wire.signIn, access: { _ in .anyone }) { server, request, call in
            // The device's name is shown to the account's owner (`account sessions`): a name as a
            // device folder takes it, never one that writes to the owner's terminal.
            try StateDirectory.validate(device: request.device)
            // W17: a device the account knows (its device token, or a session of the account) has
            // a budget of its own; every other client shares the account's, and its address's.
            let token = try request.deviceToken.flatMap {
                try server.deviceTokenID(token: $0, account: request.name, device: request.device, at: call.realNow)
            }
            let caller: SignInLimits.Caller =
                if let token { .knownDevice("token " + token) } else if call.isCaller(request.name) {
                    .knownDevice("session of " + request.name.lowercased())
                } else { .stranger(address: call.client) }
            let known = if case .knownDevice = caller { true } else { false }
            // W17: to a stranger every refusal is one answer, whatever it was refused for.
            let refused = known ? StoreError.wrongPassword(request.name) : .signInRefused
            if let wait = call.gate.enter(account: request.name, as: caller) {
                throw known ? StoreError.throttled(seconds: max(1, Int(wait.rounded(.up)))) : refused
            }
            let failedBefore = call.gate.failures(of: request.name)
            do {
                let found = try server.signIn(
                    name: request.name, password: request.password, hasher: call.hasher, device: request.device)
                call.gate.leave(account: request.name, as: caller, succeeded: true)
                return AccountSession(
                    account: found.account,
                    token: try server.createSession(
                        account: found.account, device: request.device, at: call.now, expiresAt: call.sessionExpiry),
                    deviceToken: token != nil
                        ? nil
                        : try server.createDeviceToken(
                            account: found.account, device: request.device, at: call.now,
                            expiresAt: call.deviceTokenExpiry),
                    failedBefore: failedBefore.count > 0 ? failedBefore : nil)
            } catch let error as StoreError
                where error == .wrongPassword(request.name) || error == .unknownAccount(request.name)
            {
                // W11: an unknown name costs a password check too, as a wrong password does.
                if error == .unknownAccount(request.name) { call.hasher.verifyForNoAccount(request.password) }
                // W6: each failure in a row doubles the wait, up to five seconds before answering.
                call.delay = call.gate.leave(account: request.name, as: caller, succeeded: false)
                call.noteFailedSignIn(request.name, caller: caller)
                // W11: an unknown name and a wrong password answer the same (kind, words, status,
                // wait), so that a stranger cannot learn which names have accounts.
                throw refused
            } catch {
                call.gate.release(account: request.name, as: caller)
                throw error
            }
        }
        registry.on(wire.failedSignIns, access: { .account($0) }) { _, account, call in
            call.gate.failures(of: account)
        }
        registry.on(wire.unlockAccount, access: { _ in .developer }) { _, account, call in
            let locked = call.gate.isLocked(account)
            call.gate.unlock(account)
            call.logger?.notice("the developer unlocked sign-ins to \"\(account)\"")
            return locked
        }
        registry.on(wire.signOut, access: { _ in .anyone }) { server, _, call in
            for token in call.tokens { try server.revokeSession(token: token, at: call.now) }
            return true
        }
        registry.on(wire.accountOfAppTransaction, access: { _ in .developer }) {
            try $0.account(appTransactionID: $1)
        }
        registry.on(wire.appTransactionID, access: { .account($0) }) { try $0.appTransactionID(account: $1) }
        registry.on(wire.deviceSessions, access: { .account($0) }) { server, account, _ in
            try server.deviceSessions(account: account)
        }
        registry.on(wire.storefront, access: { .account($0) }) { try $0.storefront(account: $1) }
        registry.on(wire.setStorefront, access: { .account($0.account) }) { server, request, call in
            // The account's to choose, as Apple lets it: a storefront, once its plans have ended.
            // After the renewals the clock has passed: a plan due to renew has not ended.
            _ = try call.desk?.settlePlans(account: request.account)
            let plans = Array(try server.plans(account: request.account).values)
            if let refusal = StorefrontChange.refusal(to: request.storefront, plans: plans, now: call.now) {
                throw StoreError.refusedByServer(refusal.description)
            }
            try server.setStorefront(request.storefront.uppercased(), account: request.account)
            return true
        }
        registry.on(wire.revokeDeviceSession, access: { .account($0.account) }) { server, request, call in
            try server.revokeDeviceSession(account: request.account, id: request.id, at: call.now)
        }
        registry.on(
            wire.record, access: { $0.entry.event.isDevelopersAnswer ? .developer : .account($0.entry.account) }
        ) { server, request, call in
            try call.checkLines([request.entry])
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: request.timeZone) ?? TimeZone(identifier: "UTC")!
            return try server.record(request.entry, calendar: calendar)
        }
        registry.on(wire.receiptEntry, access: { _ in .anyone }) { server, id, call in
            try server.receiptEntry(transactionID: id).flatMap {
                call.isCaller($0.account) || call.isDeveloper ? $0 : nil
            }
        }
        registry.on(wire.receipt, access: { .account($0) }) {
            try $0.receipt(account: $1)
        }
        registry.on(wire.receiptState, access: { .account($0) }) {
            try $0.receiptState(account: $1)
        }
        registry.on(wire.storedExpiry, access: { .account($0) }) {
            try $0.storedExpiry(account: $1)
        }
        registry.on(wire.ownedProducts, access: { .account($0) }) { server, account, _ in
            try server.ownedProducts(account: account).map { [$0.productID, $0.transactionID] }
        }
        registry.on(wire.plans, access: { .account($0, familyReads: true) }) { try $0.plans(account: $1) }
        registry.on(wire.planLines, access: { .account($0.account) }) { server, request, _ in
            try server.planLines(account: request.account, from: max(0, request.from))
        }
        registry.on(
            wire.addPlanLines,
            access: { request in
                request.lines.contains { $0.event.isDevelopersAnswer }
                    ? .developer : .accounts([request.account] + request.lines.map(\.account))
            }
        ) { server, request, call in
            try call.checkLines(request.lines)
            var added = false
            try server.updatePlans(account: request.account) { plans, _ in
                guard plans == request.expected else { return [] }
                added = true
                return request.lines
            }
            return added
        }
        registry.on(wire.accountsWithPlans, access: { _ in .anyone }) { server, _, call in
            try server.accountsWithPlans().filter { call.isCaller($0) }
        }
        registry.on(wire.grantOffer, access: { .account($0.account) }) { _, ask, call in
            try desk(call).grantOffer(ask)
        }
        registry.on(wire.settlePurchase, access: { .account($0.account) }) { _, ask, call in
            try desk(call).settlePurchase(ask)
            return true
        }
        registry.on(wire.decidePayment, access: { .account($0.purchase.account) }) { _, ask, call in
            // A customer's payment follows the developer's policy: only the developer chooses one.
            guard ask.outcome == nil || call.isDeveloper else {
                throw StoreError.developerOnly(server: "", action: "choose a payment's outcome")
            }
            return try desk(call).decidePayment(ask)
        }
        registry.on(wire.answerPayment, access: { .account($0.account) }) { _, answer, call in
            try desk(call).answerPayment(answer, asParent: call.isDeveloper)
            return true
        }
        registry.on(wire.settlePlans, access: { .account($0, familyReads: true) }) { _, account, call in
            try desk(call).settlePlans(account: account)
        }
        registry.on(wire.actOnPlan, access: { .account($0.account) }) { _, ask, call in
            try desk(call).actOnPlan(ask)
        }
        registry.on(wire.fileRefundRequest, access: { .account($0.account) }) { _, ask, call in
            try desk(call).fileRefundRequest(ask)
        }
        registry.on(wire.settleFamily, access: { .account($0) }) { _, account, call in
            try desk(call).settleFamily(of: account)
            return true
        }
        registry.on(wire.claims, access: { key in ClaimKey(key)?.account.map { .account($0) } ?? .anyone }) {
            try $0.claims($1)
        }
        registry.on(wire.addOfferCodes, access: { _ in .developer }) {
            try $0.addOfferCodes($1)
            return true
        }
        registry.on(wire.offerCode, access: { _ in .signedIn }) {
            try $0.offerCode($1)
        }
        registry.on(wire.offerCodes, access: { _ in .developer }) { server, _, _ in try server.offerCodes() }
        registry.on(wire.apiKeyring, access: { _ in .developer }) { server, _, _ in try server.apiKeyring() }
        registry.on(wire.setAPIKeyring, access: { _ in .developer }) {
            try $0.setAPIKeyring($1)
            return true
        }
        registry.on(wire.priceChanges, access: { _ in .anyone }) { server, _, _ in try server.priceChanges() }
        registry.on(wire.setPriceChange, access: { _ in .developer }) {
            try $0.setPriceChange($1)
            return true
        }
        registry.on(wire.families, access: { _ in .anyone }) { server, _, call in
            // An invitee reads the family that invited it, so that it can accept.
            try server.families().filter { family in call.isDeveloper || call.accounts.contains(where: family.concerns)
            }
        }
        registry.on(wire.hasFamilies, access: { _ in .anyone }) { server, _, _ in try server.hasFamilies() }
        registry.on(wire.changeFamily, access: { _ in .signedIn }) { server, asked, call in
            // Invitations are dated by the server's clock, whoever sends them (W19).
            let change = asked.dated(at: call.now)
            if !call.isDeveloper {
                // A caller in neither the family as stored nor organizing it gets one refusal
                // whatever the change guessed, so that no change, not even one that changes
                // nothing, tells a stranger who is in someone else's family.
                let stored = try server.families().organized(by: change.organizer)
                guard
                    call.isCaller(change.organizer)
                        || stored.map({ ($0.members + $0.invited).contains(where: call.isCaller) }) == true
                else {
                    throw StoreError.familyRefused(.organizerOnly(organizer: change.organizer))
                }
                try change.check(by: call.accounts, at: call.now)
            }
            return try unnamingOthers(call) { () throws(StoreError) in try server.changeFamily(change) }
        }
        registry.on(
            wire.enqueue,
            access: { asked in
                asked.allSatisfy { $0.type == "RESCIND_CONSENT" } ? .signedIn : .accounts(asked.map(\.account))
            }
        ) { server, asked, call in
            var derived: [ServerNotification] = []
            for account in Set(asked.map(\.account)).sorted() {
                let mine = asked.filter { $0.account == account }
                let keys = Set(mine.map(\.key))
                if mine.contains(where: { $0.type == "RESCIND_CONSENT" }) {
                    derived += try server.families().filter {
                        call.isDeveloper || call.isCaller(account) || call.isCaller($0.organizer)
                    }
                    .compactMap { $0.withdrawal(of: account)?.notification }.filter { keys.contains($0.key) }
                }
                // Anything else only for the account's own session (the access rule saw to that).
                guard call.isCaller(account) || call.isDeveloper else { continue }
                derived += NotificationRules.timed(try server.plans(account: account), account: account, now: call.now)
                    .filter { keys.contains($0.key) }
                for _ in mine.filter({ $0.type == "TEST" }) {
                    let uuid = UUID().uuidString.lowercased()
                    derived.append(
                        ServerNotification(
                            key: "test:\(uuid)", account: account, type: "TEST", createdAt: call.now, uuid: uuid))
                }
            }
            return try server.enqueue(derived)
        }
        registry.on(wire.hasNotification, access: { _ in .signedIn }) {
            try $0.hasNotification(key: $1)
        }
        registry.on(wire.notifications, access: { $0.map { .account($0) } ?? .anyone }) { server, account, call in
            if let account { return try server.notifications(account: account) }
            // The developer sees every account's; a device, those of the accounts it has sessions for.
            return try server.notifications(account: nil).filter { call.isDeveloper || call.isCaller($0.account) }
        }
        registry.on(wire.webhook, access: { _ in .anyone }) { server, _, call in
            try call.isDeveloper ? server.webhook() : server.webhook()?.shownToCustomers
        }
        registry.on(wire.setWebhook, access: { _ in .developer }) {
            try $0.setWebhook($1)
            return true
        }
    }
}

// Family Sharing (O5): an organizer and up to five members. A member's devices see the
// organizer's family-shareable purchases (comics, and plans) as transactions of their own
// (`inAppOwnershipType` FAMILY_SHARED, their own ids, the organizer's purchase as the original);
// leaving the family, or the organizer turning sharing off for a product, revokes them (REVOKE).
// Each share and each revocation is a line on the member's receipt, and what should be shared is
// worked out again from the family and the organizer's receipt whenever it may have changed, so a
// crash anywhere leaves nothing that the next reconciliation does not put right.
// The organizer, as parent or guardian, may also withdraw consent for a member's use of the app
// (RESCIND_CONSENT): the member's screen stays closed until consent is given again.
import Foundation
import StoreModel

public final class FamilySharing: SessionRole {
    let session: DeviceSession
    let plans: Plans

    init(session: DeviceSession, plans: Plans) {
        self.session = session
        self.plans = plans
    }

    /// The family the signed-in account is in, or else the oldest that invites it, if any.
    public func family() throws(StoreError) -> Family? {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        let families = try familyStore.families()
        return families.first { $0.includes(user) } ?? families.inviting(user, at: now()).first
    }

    /// The families whose invitation the signed-in account may accept now, oldest first (W19).
    public func invitations() throws(StoreError) -> [Family] {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        return try familyStore.families().inviting(user, at: now())
    }

    /// The signed-in account starts a family and organizes it. Invitations it holds do not stop it.
    public func create() throws(StoreError) -> Family {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        let families = try familyStore.families()
        if let existing = families.first(where: { $0.includes(user) }) {
            throw StoreError.familyRefused(.inFamilyOf(account: user, organizer: existing.organizer))
        }
        let family = Family(organizer: user)
        guard try familyStore.changeFamily(FamilyChange(organizer: user, expected: nil, new: family)) else {
            throw StoreError.familyRefused(.organizesAlready(account: user))
        }
        return family
    }

    /// The organizer invites a name: it joins when it accepts, from its own session (`accept`), as
    /// Family Sharing asks the person it adds. Whether the name is an account, or in a family, is
    /// not the organizer's to learn (W19): that is settled when it accepts. Inviting again renews
    /// the invitation.
    public func add(_ member: String) throws(StoreError) -> Family {
        let now = now()
        return try change { family, _ throws(StoreError) in
            family.invitations.removeAll { $0.names(member) }
            guard family.members.count + family.invitations.count < Family.maximumMembers else {
                throw StoreError.familyRefused(.full(maximum: Family.maximumMembers))
            }
            family.invitations.append(Invitation(account: member, at: now))
        }
    }

    /// The signed-in account accepts a family's invitation, and becomes a member: the organizer's
    /// shared purchases reach it. `organizer` names the family when several invite it.
    public func accept(from organizer: String? = nil) throws(StoreError) -> Family {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        let now = now()
        let (families, index) = try update { families throws(StoreError) in
            let inviting = families.inviting(user, at: now)
            if organizer == nil, inviting.count > 1 {
                throw StoreError.familyRefused(.invitedBySeveral(account: user, organizers: inviting.map(\.organizer)))
            }
            // The family named, else the one standing invitation, else an expired one (to say so).
            let chosen =
                organizer.map { families.organized(by: $0) } ?? inviting.first
                ?? families.first { $0.hasInvitation(user) }
            guard let chosen, chosen.hasInvitation(user), let index = families.firstIndex(of: chosen) else {
                throw StoreError.familyRefused(.notInvited(account: user))
            }
            guard chosen.invites(user, at: now) else {
                throw StoreError.familyRefused(.invitationExpired(account: user, organizer: chosen.organizer))
            }
            let name = families[index].invitation(of: user)?.account ?? user
            families[index].invitations.removeAll { $0.names(user) }
            families[index].members.append(name)
            return index
        }
        try crashPoint(.familyChanged)
        try putRight([user], asking: user, families: families)
        return families[index]
    }

    /// A member leaves, or an invitee declines (the account themself, or the organizer taking
    /// them out): what was shared with them is revoked. Leaving is always the member's own right;
    /// a withdrawal of consent for them goes with them. An account in no family declines the
    /// invitation of `organizer`'s family, or every one it holds; declining never blocks another
    /// family (W19).
    public func leave(_ member: String, from organizer: String? = nil) throws(StoreError) -> Family {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        let families = try familyStore.families()
        let isMember = { (family: Family) in family.hasMember(member) }
        let concerned = families.filter { isMember($0) || $0.hasInvitation(member) }
            .filter { family in organizer.map { family.organizer.lowercased() == $0.lowercased() } ?? true }
        // The family the member is in first, then its invitations; the organizer acts on its own.
        let mine = concerned.filter { $0.organizer.lowercased() == user.lowercased() }
        let targets =
            !mine.isEmpty ? mine : concerned.contains(where: isMember) ? concerned.filter(isMember) : concerned
        guard let last = targets.last else { throw StoreError.familyRefused(.notAMember(account: member)) }
        for target in targets.dropLast() { _ = try leave(member, user: user, organizer: target.organizer) }
        return try leave(member, user: user, organizer: last.organizer)
    }

    private func leave(_ member: String, user: String, organizer: String) throws(StoreError) -> Family {
        let (families, index) = try update { families throws(StoreError) in
            guard let index = families.firstIndex(where: { $0.organizer.lowercased() == organizer.lowercased() }),
                families[index].hasMember(member) || families[index].hasInvitation(member)
            else {
                throw StoreError.familyRefused(.notAMember(account: member))
            }
            let family = families[index]
            guard user.lowercased() == member.lowercased() || user.lowercased() == family.organizer.lowercased() else {
                throw StoreError.familyRefused(.memberOrOrganizerOnly(member: member, organizer: family.organizer))
            }
            families[index].members.removeAll { $0.lowercased() == member.lowercased() }
            families[index].invitations.removeAll { $0.names(member) }
            // Out of the family, out of its organizer's say over the app.
            families[index].consentWithdrawn.removeAll { $0.member.lowercased() == member.lowercased() }
            return index
        }
        try crashPoint(.familyChanged)
        try putRight([member], asking: user, families: families)
        return families[index]
    }

    /// The organizer turns "Share with family" on or off for a product.
    public func share(_ productID: String, on: Bool) throws(StoreError) -> Family {
        let product = try catalog.require(productID)
        guard product.isFamilyShareable else {
            throw StoreError.familyRefused(.notShareable(productID: product.id))
        }
        return try change { family, _ throws(StoreError) in
            family.unshared.removeAll { $0 == productID }
            if !on { family.unshared.append(productID) }
        }
    }

    /// The organizer, as parent or guardian, withdraws consent for `member`'s use of the app (or
    /// gives it again): the App Store tells the developer at once (RESCIND_CONSENT) and keeps the
    /// app closed to the member; giving consent again sends nothing.
    public func setConsent(_ member: String, withdrawn: Bool) throws(StoreError) -> Family {
        let now = now()
        return try change { family, _ throws(StoreError) in
            guard family.hasMember(member) else {
                throw StoreError.familyRefused(.notAMember(account: member))
            }
            guard (family.withdrawal(of: member) != nil) != withdrawn else {
                throw StoreError.familyRefused(.consentUnchanged(member: member, withdrawn: withdrawn))
            }
            family.consentWithdrawn.removeAll { $0.member.lowercased() == member.lowercased() }
            if withdrawn { family.consentWithdrawn.append(ConsentWithdrawal(member: member, at: now)) }
        }
    }

    /// Who withdrew consent for the signed-in account's use of the app, if anyone: its family's
    /// organizer. Nil when signed out or in no family.
    public func consentWithdrawnBy() throws(StoreError) -> String? {
        guard let user = try currentUser(), try familyStore.hasFamilies() else { return nil }
        return try familyStore.families().first { $0.withdrawal(of: user) != nil }?.organizer
    }

    /// Changes the signed-in organizer's family, then brings every member's shares in line.
    private func change(_ body: (inout Family, [Family]) throws(StoreError) -> Void) throws(StoreError) -> Family {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        let now = now()
        let (families, index) = try update { families throws(StoreError) in
            guard let index = families.firstIndex(where: { $0.organizer.lowercased() == user.lowercased() }) else {
                throw StoreError.familyRefused(.organizesNone(account: user))
            }
            // Invitations past their lifetime go with the organizer's next change.
            families[index] = families[index].withoutExpiredInvitations(at: now)
            let others = families
            try body(&families[index], others)
            return index
        }
        try crashPoint(.familyChanged)
        try putRight(families[index].members, asking: user, families: families)
        return families[index]
    }

    /// One family's change as the server's one update: `body` changes one family of the families
    /// as read and says which; if another device changed that family meanwhile, read and do it again.
    private func update(_ body: (inout [Family]) throws(StoreError) -> Int) throws(StoreError) -> ([Family], Int) {
        for _ in 0..<20 {
            var families = try familyStore.families()
            let before = families
            let index = try body(&families)
            let organizer = families[index].organizer
            let change = FamilyChange(
                organizer: organizer, expected: before.organized(by: organizer),
                new: families[index]
            )
            if try familyStore.changeFamily(change) { return (families, index) }
        }
        throw StoreError.familyRefused(.keptChanging)
    }

    // MARK: Reconciling

    /// `reconcileFamily` where the records are kept. A team device asks its server (W9), which
    /// reaches every account and writes the shares and revocations itself: a device reads only its
    /// own accounts (W6) and writes no line.
    func reconcileFamilyIfReachable(of account: String) throws(StoreError) {
        guard let team = keeper.team else {
            try ifReachable { () throws(StoreError) in try reconcileFamily(of: account) }
            return
        }
        // Read first, as a screen tick does: an account in no family that holds no share has
        // nothing to put right, and asks nothing that would write.
        guard try familyStore.hasFamilies() else { return }
        if try !familyStore.families().contains(where: { $0.concerns(account) }) {
            guard !Self.heldShares(in: try ledger.receipt(account: account)).isEmpty else { return }
        }
        try team.settleFamily(of: account)
    }

    /// After a family change by `caller`: `members`' shares put right here, or the caller's family
    /// put right by the team's server. A member taken out by the organizer is put right there at
    /// their own next ask, or by the server's pass over the families.
    private func putRight(_ members: [String], asking caller: String, families: [Family]) throws(StoreError) {
        if let team = keeper.team {
            try team.settleFamily(of: caller)
            return
        }
        for member in members { try reconcileIfReachable(member, families: families) }
    }

    /// Runs `body`, taking a remote server's refusal to show this device another account (W6) as
    /// nothing to do.
    private func ifReachable(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        do {
            try body()
        } catch {
            if case .sessionRefused = error { return }
            throw error
        }
    }

    /// After the organizer bought something shareable, or at a member's start: every member of
    /// `account`'s family has exactly the shares the family and the organizer's receipt call for.
    package func reconcileFamily(of account: String) throws(StoreError) {
        // No family anywhere (the usual case): nothing to read.
        guard try familyStore.hasFamilies() else { return }
        // Through a server, only the families the device's accounts are in (W6).
        let families = try familyStore.families()
        guard let family = families.first(where: { $0.includes(account) }) else {
            // Someone who left: what they still hold is revoked.
            try reconcile(account, families: families)
            return
        }
        for member in family.members { try reconcile(member, families: families) }
    }

    private func reconcileIfReachable(_ member: String, families: [Family]) throws(StoreError) {
        try ifReachable { () throws(StoreError) in try reconcile(member, families: families) }
    }

    /// Writes `member`'s missing shares and revokes those no longer due, as receipt lines.
    func reconcile(_ member: String, families: [Family]) throws(StoreError) {
        // A withdrawal of consent is told once, whoever reconciles first after it (keyed by it);
        // first, as the member's own device may do this and not read the organizer's receipt.
        let family = families.first { $0.hasMember(member) }
        if let withdrawal = family?.withdrawal(of: member),
            try !outbox.hasNotification(key: withdrawal.notification.key)
        {
            _ = try outbox.enqueue([withdrawal.notification])
        }
        let held = Self.heldShares(in: try ledger.receipt(account: member))
        var due: [ReceiptEntry] = []
        if let family { due = try shareable(by: family) }
        let now = now()
        for purchase in due where !held.contains(where: { $0.reference == purchase.transactionID }) {
            var share = ReceiptEntry(
                transactionID: session.makeTransactionID(), account: member, productID: purchase.productID,
                kind: purchase.kind,
                purchaseDate: now, device: session.deviceName, event: .familyShare, group: purchase.group, price: 0,
                reference: purchase.transactionID, note: ReceiptNote.organizer(account: purchase.account).words
            )
            // The share stands for the organizer's purchase: on its billing plan (M4), to the end
            // of the plan's current period.
            share.commitment = purchase.commitment
            share.expiresDate = purchase.expiresDate
            try session.server.add(share)
        }
        for share in held where !due.contains(where: { $0.transactionID == share.reference }) {
            try session.server.add(
                ReceiptEntry(
                    transactionID: session.makeTransactionID(), account: member, productID: share.productID,
                    kind: share.kind,
                    purchaseDate: now, device: session.deviceName, event: .familyRevoke, group: share.group,
                    reference: share.transactionID
                ))
        }
    }

    /// The shares an account's receipt holds that no revocation took back.
    static func heldShares(in receipt: [ReceiptEntry]) -> [ReceiptEntry] {
        let revoked = Set(receipt.compactMap { $0.event == .familyRevoke ? $0.reference : nil })
        return receipt.filter { $0.event == .familyShare && !revoked.contains($0.transactionID) }
    }

    /// The organizer's purchases a member gets: shareable comics not refunded, and the purchase
    /// that started each shareable plan that still gives access; not those turned off.
    func shareable(by family: Family) throws(StoreError) -> [ReceiptEntry] {
        let receipt = try ledger.receipt(account: family.organizer)
        let revoked = ReceiptEntry.revoked(in: receipt)
        func shared(_ productID: String) -> Bool {
            (catalog.product(productID)?.isFamilyShareable ?? false) && !family.unshared.contains(productID)
        }
        var due = receipt.filter {
            $0.kind == .nonConsumable && $0.event == .purchase && !revoked.contains($0.transactionID)
                && shared($0.productID)
        }
        // A plan stays shared as it renews and lapses (the member's access follows it); a refund
        // that ends it ends the share, until the organizer subscribes again. The share names the
        // group's original purchase, which resubscribes keep.
        for plan in try planBook.plans(account: family.organizer).values.sorted(by: { $0.group < $1.group })
        where shared(plan.productID) && plan.ended != .refunded {
            if var start = receipt.first(where: { $0.transactionID == plan.originalTransactionID }) {
                // The share's transaction runs to the end of the plan's current period, as every
                // auto-renewable transaction says when it expires.
                start.expiresDate = plan.expiresDate
                due.append(start)
            }
        }
        return due
    }

    /// Plans shared with `account` by its family's organizer, as the member sees them.
    func sharedPlans(with account: String) throws(StoreError) -> [PlanStatus] {
        guard let family = try familyStore.families().first(where: { $0.hasMember(account) }) else { return [] }
        // The organizer's renewals the clock has passed, where this store may write them.
        _ = try? plans.settle(account: family.organizer)
        let now = now()
        var organizerPlans: [String: PlanState] = [:]
        try ifReachable { () throws(StoreError) in organizerPlans = try planBook.plans(account: family.organizer) }
        return organizerPlans.values.sorted { $0.group < $1.group }.compactMap { state in
            guard let product = catalog.product(state.productID), product.isFamilyShareable,
                !family.unshared.contains(state.productID)
            else { return nil }
            var status = PlanStatus(state, catalog: catalog, now: now)
            status.familySharedBy = family.organizer
            return status
        }
    }
}

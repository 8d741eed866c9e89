// Refund requests (O7), as a customer makes them with StoreKit's refund request sheet and as the
// App Store answers them: a request line on the receipt, then a refund (REFUND), a decline
// (REFUND_DECLINED) or, for a consumable, a consumption request to the developer first
// (CONSUMPTION_REQUEST, answered with Send Consumption Information). A refund can be taken back
// (REFUND_REVERSED). Every step is one line, so the receipt says where a request stands and still
// recomputes (A6); a device learns of refunds with its plan lines and takes refunded comics back.
import Foundation
import StoreModel

public final class Refunds: SessionRole {
    let session: DeviceSession
    let plans: Plans

    init(session: DeviceSession, plans: Plans) {
        self.session = session
        self.plans = plans
    }

    public func policy() throws(StoreError) -> RefundPolicy {
        try device.setting(.refundPolicy) ?? .manual
    }

    /// On a team server only the developer answers refund requests (W9): a customer's device keeps
    /// the manual policy, and the developer answers (`storefront refund-request approve ID`).
    public func setPolicy(_ policy: RefundPolicy) throws(StoreError) {
        if policy != .manual, let remote = keeper.team, !remote.isDeveloper {
            throw StoreError.developerOnly(server: remote.location, action: "answer refund requests")
        }
        try device.setSetting(.refundPolicy, policy)
    }

    /// The signed-in account's requests.
    public func requests() throws(StoreError) -> [RefundRequest] {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        return RefundRequest.all(in: try ledger.receipt(account: user))
    }

    /// The customer asks for a refund of a purchase or plan period of theirs (by id or a unique
    /// prefix of 4+ characters): filed here, or by the team's server (W9). The device's policy
    /// answers at once unless it is `manual`.
    public func request(_ id: String, reason: RefundReason) throws(StoreError) -> RefundRequest {
        guard let user = try currentUser() else { throw StoreError.notSignedIn }
        // Q7: the refund request sheet can fail as StoreKit's does.
        try failIfSimulated(.refundRequestSheet)
        return try withDeviceLock { () throws(StoreError) -> RefundRequest in
            let receipt = try ledger.receipt(account: user)
            guard
                let purchase = try ReceiptEntry.named(
                    id, in: receipt.filter { $0.isTransaction && $0.event != .change })
            else {
                throw StoreError.unknownTransaction(id)
            }
            let ask = RefundAsk(
                account: user, transactionID: purchase.transactionID, reason: reason, device: session.deviceName)
            let requestID: String
            if let team = keeper.team { requestID = try team.fileRefundRequest(ask) } else { requestID = try file(ask) }
            try device.setSetting(.refundAwaitingPolicy, purchase.transactionID)
            try crashPoint(.refundRequested)
            try applyPolicy()
            let requests = try requests()
            guard let made = requests.first(where: { $0.requestID == requestID }) else {
                throw StoreError.refundRefused(.requestNotRecorded(transactionID: purchase.transactionID))
            }
            return made
        }
    }

    /// Files a customer's refund request where the records are kept, after the renewals the
    /// clock has passed: the App Store's checks, then the request line; its id.
    public func file(_ ask: RefundAsk) throws(StoreError) -> String {
        try Accounts.validate(accountName: ask.account)
        try StateDirectory.validate(device: ask.device)
        try plans.settle(account: ask.account)
        let receipt = try ledger.receipt(account: ask.account)
        guard
            let purchase = receipt.first(where: {
                $0.transactionID == ask.transactionID && $0.isTransaction && $0.event != .change
            })
        else {
            throw StoreError.unknownTransaction(ask.transactionID)
        }
        guard purchase.event != .familyShare else {
            throw StoreError.refundRefused(.sharedByOrganizer(transactionID: purchase.transactionID))
        }
        guard purchase.kind != .nonRenewingSubscription else {
            throw StoreError.refundRefused(.nonRenewing(transactionID: purchase.transactionID))
        }
        let current = RefundRequest.current(of: purchase.transactionID, in: RefundRequest.all(in: receipt))
        if ReceiptEntry.revoked(in: receipt).contains(purchase.transactionID) {
            throw StoreError.refundRefused(.refundedAlready(transactionID: purchase.transactionID))
        }
        if current?.state == .pending {
            throw StoreError.refundRefused(.requestWaiting(transactionID: purchase.transactionID))
        }
        var line = line(.refundRequest, about: purchase)
        line.device = ask.device
        line.meaning = .refundReason(ask.reason.rawValue)
        try session.server.add(line)
        return line.transactionID
    }

    /// Answers the request this device made and left waiting for its policy (after a crash, at start).
    func applyPolicy() throws(StoreError) {
        guard let waiting = try device.setting(.refundAwaitingPolicy) else { return }
        let policy = try policy()
        if policy != .manual, let pending = RefundRequest.current(of: waiting, in: try requests()),
            pending.state == .pending
        {
            do {
                _ = try decide(waiting, approve: policy == .approve)
            } catch {
                // A policy set before this device moved to a team server: the request waits for
                // the developer, and this device stops answering.
                guard case .developerOnly = error else { throw error }
                try device.setSetting(.refundPolicy, RefundPolicy.manual)
            }
        }
        try device.setSetting(.refundAwaitingPolicy, nil)
    }

    /// The developer's side (or the App Store's policy) answers a waiting request: a refund, or a
    /// decline. `id` names the purchase (or its request line), of any account this store reaches.
    @discardableResult
    public func decide(_ id: String, approve: Bool) throws(StoreError) -> RefundRequest {
        let (account, receipt) = try accountReceipt(of: id)
        let all = RefundRequest.all(in: receipt)
        let named =
            all.first { $0.transactionID == id || $0.requestID == id }?.transactionID
            ?? all.first { id.count >= 4 && $0.transactionID.hasPrefix(id) }?.transactionID
        guard let named, let request = RefundRequest.current(of: named, in: all) else {
            throw StoreError.refundRefused(.noRequest(id: id))
        }
        guard request.state == .pending else {
            throw StoreError.refundRefused(.requestAnswered(transactionID: request.transactionID, state: request.state))
        }
        guard let purchase = receipt.first(where: { $0.transactionID == request.transactionID }) else {
            throw StoreError.refundRefused(.notOnReceipt(transactionID: request.transactionID, account: account))
        }
        if approve {
            try refund(purchase, account: account, answering: request.requestID)
        } else {
            var declined = line(.refundDeclined, about: purchase)
            declined.meaning = .answering(request: request.requestID)
            try session.server.add(declined)
        }
        return RefundRequest.all(in: try ledger.receipt(account: account)).first { $0.requestID == request.requestID }
            ?? request
    }

    /// A refund taken back (REFUND_REVERSED): the purchase counts again, a comic comes back.
    @discardableResult
    public func reverse(_ id: String) throws(StoreError) -> RefundRequest? {
        let (account, receipt) = try accountReceipt(of: id)
        let revoked = ReceiptEntry.revoked(in: receipt)
        guard let purchase = try ReceiptEntry.named(id, in: receipt.filter { revoked.contains($0.transactionID) }),
            let refund = receipt.last(where: { line in
                line.event == .refund && line.reference == purchase.transactionID
                    && !receipt.contains { $0.refundReversed == line.transactionID }
            })
        else {
            throw StoreError.refundRefused(.notRefunded(id: id))
        }
        var reversal = line(.refundReversed, about: purchase)
        reversal.meaning = .reversing(refund: refund.transactionID)
        try session.server.add(reversal)
        return RefundRequest.all(in: try ledger.receipt(account: account)).first { $0.refundID == refund.transactionID }
    }

    // MARK: Lines

    private func refund(_ purchase: ReceiptEntry, account: String, answering requestID: String) throws(StoreError) {
        guard purchase.kind == .autoRenewableSubscription else {
            var line = line(.refund, about: purchase)
            line.price = purchase.price.map { -$0 } ?? catalog.product(purchase.productID).map { -$0.price }
            line.meaning = .answering(request: requestID)
            try session.server.add(line)
            return
        }
        let rules = try plans.autoRenewal(account: account)
        let now = now()
        try plans.writePlans(account: account, attempt: .refund(transactionID: purchase.transactionID)) {
            current, receipt in
            try rules.refund(
                purchase, state: current[purchase.group ?? ""], receipt: try receipt(), at: now,
                context: plans.lineContext(account: account)
            )
            .map { line in
                var answer = line
                answer.meaning = .answering(request: requestID)
                return answer
            }
        }
    }

    private func line(_ event: ReceiptEvent, about purchase: ReceiptEntry) -> ReceiptEntry {
        ReceiptEntry(
            transactionID: session.makeTransactionID(), account: purchase.account, productID: purchase.productID,
            kind: purchase.kind,
            purchaseDate: now(), device: session.deviceName, event: event, group: purchase.group,
            reference: purchase.transactionID
        )
    }

    private func accountReceipt(of id: String) throws(StoreError) -> (String, [ReceiptEntry]) {
        if let line = try ledger.receiptEntry(transactionID: id) {
            return (line.account, try ledger.receipt(account: line.account))
        }
        // A prefix: the signed-in account's purchases.
        guard let user = try currentUser() else { throw StoreError.unknownTransaction(id) }
        let receipt = try ledger.receipt(account: user)
        guard try ReceiptEntry.named(id, in: receipt) != nil else { throw StoreError.unknownTransaction(id) }
        return (user, receipt)
    }
}

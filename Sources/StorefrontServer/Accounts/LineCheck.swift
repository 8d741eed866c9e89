// What a customer's device may write about its own purchases (W9): the server holds each line it
// is sent against its own catalog and records before it keeps and signs it. A line names a
// product the catalog sells, as the kind and group the catalog gives it; a period costs at most
// what the catalog or one of its offers asks, never less than nothing, and ends no later than its
// longest terms allow; a line names as its original or its subject only a transaction of the same
// account (or, for a family share, of the family's organizer). The App Store's own answers
// (refunds, extensions) are the developer's, and not checked here.
import Foundation
import StoreCore

struct LineCheck {
    let catalog: Catalog

    /// A day's slack on an end date: month ends clamp, and a renewal may start late.
    static let slack: TimeInterval = 86_400

    func check(_ lines: [ReceiptEntry], server: any RecordKeeping) throws(StoreError) {
        // The developer's price changes are read only for lines that carry a price.
        let priced = try lines.contains(where: \.isPriced) ? catalog.priced(by: server) : catalog
        for line in lines { try check(line, priced: priced, server: server) }
    }

    private func refuse(_ line: ReceiptEntry, _ why: String) -> StoreError {
        .refusedByServer("a line of \(line.productID) (\(line.event.rawValue)): \(why)")
    }

    private func check(_ line: ReceiptEntry, priced: Catalog, server: any RecordKeeping) throws(StoreError) {
        guard let product = catalog.product(line.productID) else {
            throw refuse(line, "the server's catalog has no such product")
        }
        guard line.kind == product.kind else {
            throw refuse(line, "it is a \(product.kind.rawValue), not a \(line.kind.rawValue)")
        }
        if let terms = product.autoRenew, let group = line.group, group != terms.group {
            throw refuse(line, "its group is \(terms.group), not \(group)")
        }
        try checkReference(line, server: server)
        guard line.isPriced else { return }
        let price = line.price ?? 0
        let current = priced.product(line.productID) ?? product
        let terms = product.autoRenew
        let offers =
            (terms?.offers.map(\.terms) ?? [])
            + [terms?.introductoryOffer, terms?.monthlyIntroductoryOffer].compactMap { $0 }
        let ceiling =
            ([product.price, current.price, terms?.monthlyCommitmentPrice ?? 0] + offers.map(\.price)).max() ?? 0
        if line.event == .credit {
            guard price <= 0, -price <= ceiling else { throw refuse(line, "a credit of \(price) is not one it gives") }
            return
        }
        guard price >= 0, price <= ceiling else {
            throw refuse(line, "\(price) is not a price it is sold at")
        }
        if price == 0, line.kind == .autoRenewableSubscription, line.offer == nil {
            throw refuse(line, "a period at no price is an offer's, and the line names none")
        }
        guard let terms, let expires = line.expiresDate else { return }
        let spans =
            [terms.period.approximateDays, BillingPlan.commitmentPeriod.approximateDays]
            + offers.map { $0.period.approximateDays * Double($0.periods) }
        let longest = (spans.max() ?? 0) * 86_400 + Self.slack
        if expires.timeIntervalSince(line.purchaseDate) > longest {
            throw refuse(line, "it ends later than any of its terms allow")
        }
    }

    /// A line's original or subject is the same account's transaction; a family share's, the
    /// purchase of the organizer of a family the account is in.
    private func checkReference(_ line: ReceiptEntry, server: any RecordKeeping) throws(StoreError) {
        guard let reference = line.reference, reference != line.transactionID else { return }
        guard let referenced = try server.receiptEntry(transactionID: reference) else {
            // A plan's first purchase names itself or nothing; an unknown original is no one's.
            throw refuse(line, "it names \(reference), which is no transaction of \(line.account)")
        }
        if referenced.account.lowercased() == line.account.lowercased() { return }
        if line.event == .familyShare || line.event == .familyRevoke {
            if try server.families().organized(by: referenced.account)?.hasMember(line.account) == true { return }
        }
        throw refuse(line, "it names another account's transaction")
    }
}

extension ReceiptEntry {
    /// A line that charges or credits a price: a purchase, a renewal, an upgrade's credit.
    fileprivate var isPriced: Bool { event == .purchase || event == .renewal || event == .credit }
}

// The period a transaction's line pays for, as its signed form says it: when it ends (with the
// developer's extensions, and for a purchase that changes the plan later, the current period's
// end), and which billing plan it is on.
import Foundation

extension PayloadBuilder {
    /// Which billing plan a period is on, for every auto-renewable plan: BILLED_UPFRONT unless it
    /// is a month of a 12-month commitment (Apple: "unlike standard subscriptions that bill
    /// customers up front, its billingPlanType is monthly"); a monthly period also says where it
    /// stands in its commitment.
    static func billing(of line: ReceiptEntry, into payload: inout TransactionPayload) {
        payload.billingPlanType = (line.commitment == nil ? line.offerBillingPlan : .monthly).rawValue
        guard let period = line.commitment else { return }
        var info = TransactionCommitmentInfo()
        info.billingPeriodNumber = period.number
        info.totalBillingPeriods = BillingPlan.commitmentPeriods
        info.commitmentExpiresDate = Units.milliseconds(period.ends)
        info.commitmentPrice = Units.milliunits((line.price ?? 0) * Decimal(BillingPlan.commitmentPeriods))
        payload.commitmentInfo = info
    }

    /// When the period a purchase or renewal line pays for ends now: its own end, or where the
    /// developer's last extension of that period moved it (V3: RENEWAL_EXTENDED and Get Transaction
    /// Info both carry the extended date).
    func expiresDate(of line: ReceiptEntry, in receipt: [ReceiptEntry]) -> Date? {
        // A purchase that changes the plan at its next renewal (a downgrade, a crossgrade, another
        // billing plan) starts no period: its transaction runs to the end of the current one.
        if line.event == .change, line.kind == .autoRenewableSubscription, line.expiresDate == nil {
            let periods = receipt.filter {
                ($0.event == .purchase || $0.event == .renewal) && $0.group == line.group
                    && $0.purchaseDate <= line.purchaseDate
            }
            return periods.max { $0.purchaseDate < $1.purchaseDate }.flatMap { expiresDate(of: $0, in: receipt) }
        }
        guard let expires = line.expiresDate, line.event == .purchase || line.event == .renewal else {
            return line.expiresDate
        }
        // An extension applies to the period current when it was made; extensions only add days.
        return receipt.reduce(expires) { latest, other in
            guard other.event == .extend, other.group == line.group, let moved = other.expiresDate, moved > latest,
                reported(other, in: receipt).transactionID == line.transactionID
            else { return latest }
            return moved
        }
    }

}

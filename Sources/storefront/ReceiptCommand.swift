// `storefront receipt`: the account's receipt lines with the expiry recomputed from them (A6), or
// the app receipt a device uploads to its backend (V10).
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct Receipt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "The signed-in account's receipt on the server, with the expiry recomputed from it (A6); --base64 or --post, the app receipt.",
        discussion: """
            --base64 prints the app receipt (PKCS #7, as `storefront app receipt`) as an app reads it from appStoreReceiptURL; --post \
            uploads it to a backend as RW Selfies' app does, which validates it with `storefront serve`'s /verifyReceipt.
            """
    )
    @Flag(help: "Print the app receipt in base64 instead.") var base64 = false
    @Option(
        help: ArgumentHelp(
            "POST the app receipt as JSON {\"receipt-data\": base64} to this http(s) URL and print the answer.",
            valueName: "url"))
    var post: String?
    @OptionGroup var common: CommonOptions

    func run() throws {
        if base64 || post != nil {
            try AppCommand.Receipt.emit(common, base64: true, post: post)
            return
        }
        try perform(common) { context in
            let report = try context.store.entitlements.receipt()
            let json = ReceiptOutput(report, context)
            let lines = report.entries.map { entry in
                var line =
                    "\(entry.transactionID)  \(entry.productID)  \(context.isoText(entry.purchaseDate))  on \(entry.device)"
                if entry.kind == .autoRenewableSubscription {
                    line += "  \(entry.event.rawValue)"
                    if let expires = entry.expiresDate { line += " until \(context.isoText(expires))" }
                    if let offer = entry.offer { line += " (\(offer.rawValue)\(entry.offerID.map { " \($0)" } ?? ""))" }
                    if entry.offer == nil, let type = entry.offerType {
                        line += " (\(type.name) \(entry.offerID ?? "") at renewal)"
                    }
                    if let price = entry.price { line += " \(PriceFormatter.plain(price))" }
                    if let note = entry.note { line += " — \(note)" }
                }
                return line
            }
            let expiry = report.storedExpiry.map { context.isoText($0) } ?? "none"
            let plans = report.storedPlans.isEmpty ? "" : "; \(report.storedPlans.count) auto-renewable plan(s)"
            let verdict =
                "stored expiry: \(expiry)\(plans) (\(report.isConsistent ? "matches" : "DOES NOT MATCH") the receipt)"
            output(context, json: json, text: (lines + [verdict]).joined(separator: "\n"))
            if !report.isConsistent {
                throw CommandFailure(message: "the stored expiry or plans differ from the receipt's", status: 1)
            }
        }
    }
}

/// The account's receipt as `--json` writes it: its lines, and whether the stored expiry and plans
/// recompute from them (A6).
private struct ReceiptOutput: Encodable {
    struct Entry: Encodable {
        /// What a plan's line adds.
        struct PlanLine: Encodable {
            var event: String
            var group, expiresDate, offer: String?
            var offerType: Int?
            var offerIdentifier, price, reference, graceUntil, note: String?
        }

        var id, product, kind: String
        var months, days, bonusDays: Int
        var purchaseDate: String?
        var device: String
        var plan: Inline<PlanLine>
    }

    var account: String
    var storedExpiry, recomputedExpiry, deviceExpiry: String?
    var consistent, plansConsistent: Bool
    var entries: [Entry]

    init(_ report: ReceiptReport, _ context: Context) {
        account = report.account
        storedExpiry = context.dateText(report.storedExpiry)
        recomputedExpiry = context.dateText(report.recomputedExpiry)
        deviceExpiry = context.dateText(report.deviceExpiry)
        consistent = report.isConsistent
        plansConsistent = report.storedPlans == report.recomputedPlans
        entries = report.entries.map { entry in
            Entry(
                id: entry.transactionID, product: entry.productID, kind: entry.kind.rawValue, months: entry.months,
                days: entry.days, bonusDays: entry.bonusDays, purchaseDate: context.dateText(entry.purchaseDate),
                device: entry.device,
                plan: Inline(
                    entry.kind != .autoRenewableSubscription
                        ? nil
                        : Entry.PlanLine(
                            event: entry.event.rawValue, group: entry.group,
                            expiresDate: context.dateText(entry.expiresDate),
                            offer: entry.offer?.rawValue, offerType: (entry.soldOn ?? entry.offerType)?.rawValue,
                            offerIdentifier: entry.offerID, price: entry.price.map(PriceFormatter.plain),
                            reference: entry.reference, graceUntil: context.dateText(entry.until), note: entry.note)))
        }
    }
}

// `storefront receipt`: the account's receipt lines with the expiry recomputed from them (A6), or
// the app receipt a device uploads to its backend (V10).
import ArgumentParser
import Foundation
import StoreCore

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
            let json = JSON.object([
                ("account", .string(report.account)),
                ("storedExpiry", context.formatDate(report.storedExpiry)),
                ("recomputedExpiry", context.formatDate(report.recomputedExpiry)),
                ("deviceExpiry", context.formatDate(report.deviceExpiry)),
                ("consistent", .bool(report.isConsistent)),
                ("plansConsistent", .bool(report.storedPlans == report.recomputedPlans)),
                (
                    "entries",
                    .array(
                        report.entries.map { entry in
                            var fields: [(String, JSON)] = [
                                ("id", .string(entry.transactionID)), ("product", .string(entry.productID)),
                                ("kind", .string(entry.kind.rawValue)),
                                ("months", .int(entry.months)), ("days", .int(entry.days)),
                                ("bonusDays", .int(entry.bonusDays)),
                                ("purchaseDate", context.formatDate(entry.purchaseDate)),
                                ("device", .string(entry.device)),
                            ]
                            if entry.kind == .autoRenewableSubscription {
                                fields += [
                                    ("event", .string(entry.event.rawValue)), ("group", .optional(entry.group)),
                                    ("expiresDate", context.formatDate(entry.expiresDate)),
                                    ("offer", .optional(entry.offer?.rawValue)),
                                    ("offerType", (entry.soldOn ?? entry.offerType).map { .int($0.rawValue) } ?? .null),
                                    ("offerIdentifier", .optional(entry.offerID)),
                                    ("price", .optional(entry.price.map(PriceFormatter.plain))),
                                    ("reference", .optional(entry.reference)),
                                    ("graceUntil", context.formatDate(entry.until)), ("note", .optional(entry.note)),
                                ]
                            }
                            return .object(fields)
                        })
                ),
            ])
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

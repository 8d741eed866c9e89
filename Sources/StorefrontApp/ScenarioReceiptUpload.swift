// V10 in a scenario: SelfieService, the RW Selfies tutorial's backend, played in process. The app
// uploads its receipt; SelfieService sends it to verifyReceipt with the app's shared secret (the
// state folder's, as `storefront shared-secret` prints it) and answers a session and the current
// subscription. With a real backend, `storefront receipt --post URL` uploads it the same way, and
// `storefront serve` answers at /verifyReceipt with the same `ReceiptValidation`.
import Foundation
import StoreCore
import StoreModel

extension ScenarioRunner {
    /// Uploads the signed-in account's receipt; SelfieService's answer in words.
    func uploadReceipt() throws -> String {
        let directory = directory
        let secret = try SharedSecret.appSpecific.current(in: directory)
        let validation = ReceiptValidation(
            server: store.server, catalog: catalog, authority: try store.signed.authority(), clock: store.clock,
            passwordAccepted: { SharedSecret.accepts($0, in: directory) })
        let receipt = try store.signed.appReceipt().base64EncodedString()
        let body = try JSONSerialization.data(withJSONObject: ["receipt-data": receipt, "password": secret])
        let request: ReceiptValidation.Request
        switch try validation.prepare(body) {
        case .failure(let refusal): return Self.refused(refusal.answer)
        case .success(let prepared): request = prepared
        }
        let check = AppReceipt.checkWaiting(request.receipt, root: validation.root, at: validation.checkTime)
        return selfieService(try validation.answer(request, check: check, host: .store))
    }

    /// What SelfieService makes of verifyReceipt's answer: a session, and the newest plan's state.
    func selfieService(_ answer: [String: Any]) -> String {
        guard answer["status"] as? Int == 0 else { return Self.refused(answer) }
        let plans = (answer["latest_receipt_info"] as? [[String: Any]] ?? []).filter { $0["expires_date_ms"] != nil }
        func milliseconds(_ item: [String: Any], _ key: String) -> Int64 { Int64(item[key] as? String ?? "") ?? 0 }
        guard let newest = plans.max(by: { milliseconds($0, "expires_date_ms") < milliseconds($1, "expires_date_ms") })
        else { return "a session with no subscription" }
        let id = newest["product_id"] as? String ?? ""
        let title = catalog.product(named: id)?.title ?? id
        func day(_ key: String) -> String {
            SubscriptionMath.formatDay(
                Date(timeIntervalSince1970: Double(milliseconds(newest, key)) / 1000), calendar: calendar)
        }
        let now = milliseconds(answer["receipt"] as? [String: Any] ?? [:], "request_date_ms")
        if newest["cancellation_date_ms"] != nil {
            return "a session: \(title) refunded \(day("cancellation_date_ms")), no access"
        }
        if milliseconds(newest, "expires_date_ms") <= now {
            return "a session: \(title) expired \(day("expires_date_ms")), no access"
        }
        let trial = newest["is_trial_period"] as? String == "true" ? " (free trial)" : ""
        return "a session: \(title) until \(day("expires_date_ms"))\(trial)"
    }

    static func refused(_ answer: [String: Any]) -> String {
        "refused: verifyReceipt status \(answer["status"].map { "\($0)" } ?? "none")"
    }
}

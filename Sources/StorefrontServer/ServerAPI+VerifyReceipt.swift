// verifyReceipt (V10) on the router: the legacy receipt validation a backend like RW Selfies'
// SelfieService still calls. `POST /verifyReceipt` answers for the store's own environment;
// Apple's two hosts are the paths `/production/verifyReceipt` and `/sandbox/verifyReceipt`, each
// refusing the other environment's receipts (21007, 21008) so that a backend's "production, then
// sandbox" is tested. Every answer is HTTP 200 with a `status`, as Apple's. What it answers is
// StoreCore's `ReceiptValidation`.
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerApplication {
    /// verifyReceipt at its three paths: a POST validates, a GET is 21000.
    static func addReceiptValidation(_ api: ServerAPI, to router: Router<CallerContext>) {
        for host in ReceiptHost.allCases {
            router.post(RouterPath(host.rawValue)) { request, _ -> Response in
                let body = try await request.body.collect(upTo: ServerAPI.maximumBody)
                return await api.verifyReceipt(Data(buffer: body), host: host).response
            }
            router.get(RouterPath(host.rawValue)) { _, _ -> Response in
                APIResponse.receipt(ReceiptStatus.unreadable.answer).response
            }
        }
    }
}

extension ServerAPI {
    /// The answer to a receipt posted to `host`.
    func verifyReceipt(_ body: Data, host: ReceiptHost) async -> APIResponse {
        let validation = ReceiptValidation(
            server: server, catalog: catalog, authority: authority, clock: clock, settle: settle,
            passwordAccepted: passwordAccepted)
        do {
            switch try validation.prepare(body) {
            case .failure(let refusal):
                return .receipt(refusal.answer)
            case .success(let request):
                let check = await AppReceipt.check(request.receipt, root: validation.root, at: validation.checkTime)
                return .receipt(try validation.answer(request, check: check, host: host))
            }
        } catch {
            logger.error("verifyReceipt: \(error)")
            return .receipt(ReceiptStatus.dataAccess.answer)
        }
    }
}

extension APIResponse {
    /// A verifyReceipt answer: always HTTP 200, its `status` saying how it went.
    static func receipt(_ answer: ReceiptValidation.Answer) -> APIResponse {
        APIResponse(status: 200, body: ReceiptValidation.body(answer))
    }
}

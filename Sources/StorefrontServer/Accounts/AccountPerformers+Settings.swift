// What `storefront serve` does with each method of the wire (W1, W6, W9): the wire (StoreCore's
// AccountWire) declares a method's name, types and access rule; here the server performs it,
// against the records it keeps and what it knows of the call.
import Foundation
import StoreCore
import StoreModel

extension AccountPerformers {
    /// Shared settings, retention messaging, signed data and the request log.
    static func registerSettings(_ registry: inout AccountPerformers) {
        registry.on(W.changeStamp) { server, _, _ in try server.changeStamp() }
        registry.on(W.clockSetting) { server, _, _ in try server.clockSetting() }
        registry.on(W.setClockSetting) {
            try $0.setClockSetting($1)
            return true
        }
        registry.on(W.billingSetting) { server, _, _ in try server.billingSetting() }
        registry.on(W.setBillingSetting) {
            try $0.setBillingSetting($1)
            return true
        }
        registry.on(W.appIdentity) { server, _, _ in try server.appIdentity() }
        registry.on(W.setAppIdentity) {
            try $0.setAppIdentity($1)
            return true
        }
        registry.on(W.simulatedErrors) { server, _, _ in
            try server.simulatedErrors()
        }
        registry.on(W.setSimulatedErrors) {
            try $0.setSimulatedErrors($1)
            return true
        }
        registry.on(W.paymentPolicy) { server, _, _ in try server.paymentPolicy() }
        registry.on(W.setPaymentPolicy) {
            try $0.setPaymentPolicy($1)
            return true
        }
        registry.on(W.appAccountTokens) { server, _, call in
            try server.appAccountTokens().filter { original, _ in
                call.isDeveloper
                    || ((try? server.receiptEntry(transactionID: original)).flatMap {
                        $0.map { call.isCaller($0.account) }
                    }
                        ?? false)
            }
        }
        registry.on(W.setAppAccountToken) {
            try $0.setAppAccountToken($1.token, original: $1.original)
            return true
        }
        registry.on(W.retentionSetup) { server, _, call in
            let setup = try server.retentionSetup()
            return call.isDeveloper ? setup : setup.shownToCustomers
        }
        registry.on(W.replaceRetentionSetup) {
            try $0.replaceRetentionSetup($1)
        }
        registry.on(W.retentionImage) { server, id, call in
            guard try call.isDeveloper || server.retentionSetup().shownToCustomers.image(id) != nil else { return nil }
            return try server.retentionImage(id)
        }
        registry.on(W.setRetentionImage) {
            try $0.setRetentionImage($1.id, png: $1.png)
            return true
        }
        registry.on(W.signed) { _, request, call in
            try signer(call).sign(request.items, account: request.account)
        }
        registry.on(W.rootCertificate) { _, _, call in
            try signer(call).rootCertificate()
        }
        registry.on(W.recentRequests) { try $0.recentRequests(limit: min($1, 200)) }
    }
}

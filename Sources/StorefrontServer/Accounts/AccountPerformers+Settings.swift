// What `storefront serve` does with each method of the wire (W1, W6, W9): the wire (StoreCore's
// AccountWire) declares a method's name, types and access rule; here the server performs it,
// against the records it keeps and what it knows of the call.
import Foundation
import StoreCore
import StoreModel

extension AccountPerformers {
    /// Shared settings, retention messaging, signed data and the request log.
    static func registerSettings(_ registry: inout AccountPerformers) {
        registry.on(wire.changeStamp) { server, _, _ in try server.changeStamp() }
        registry.on(wire.clockSetting) { server, _, _ in try server.clockSetting() }
        registry.on(wire.setClockSetting) {
            try $0.setClockSetting($1)
            return true
        }
        registry.on(wire.billingSetting) { server, _, _ in try server.billingSetting() }
        registry.on(wire.setBillingSetting) {
            try $0.setBillingSetting($1)
            return true
        }
        registry.on(wire.appIdentity) { server, _, _ in try server.appIdentity() }
        registry.on(wire.setAppIdentity) {
            try $0.setAppIdentity($1)
            return true
        }
        registry.on(wire.simulatedErrors) { server, _, _ in
            try server.simulatedErrors()
        }
        registry.on(wire.setSimulatedErrors) {
            try $0.setSimulatedErrors($1)
            return true
        }
        registry.on(wire.paymentPolicy) { server, _, _ in try server.paymentPolicy() }
        registry.on(wire.setPaymentPolicy) {
            try $0.setPaymentPolicy($1)
            return true
        }
        registry.on(wire.appAccountTokens) { server, _, call in
            try server.appAccountTokens().filter { original, _ in
                call.isDeveloper
                    || ((try? server.receiptEntry(transactionID: original)).flatMap {
                        $0.map { call.isCaller($0.account) }
                    }
                        ?? false)
            }
        }
        registry.on(wire.setAppAccountToken) {
            try $0.setAppAccountToken($1.token, original: $1.original)
            return true
        }
        registry.on(wire.retentionSetup) { server, _, call in
            let setup = try server.retentionSetup()
            return call.isDeveloper ? setup : setup.shownToCustomers
        }
        registry.on(wire.replaceRetentionSetup) {
            try $0.replaceRetentionSetup($1)
        }
        registry.on(wire.retentionImage) { server, id, call in
            guard try call.isDeveloper || server.retentionSetup().shownToCustomers.image(id) != nil else { return nil }
            return try server.retentionImage(id)
        }
        registry.on(wire.setRetentionImage) {
            try $0.setRetentionImage($1.id, png: $1.png)
            return true
        }
        registry.on(wire.signed) { _, request, call in
            try signer(call).sign(request.items, account: request.account)
        }
        registry.on(wire.rootCertificate) { _, _, call in
            try signer(call).rootCertificate()
        }
        registry.on(wire.recentRequests) { try $0.recentRequests(limit: min($1, 200)) }
    }
}

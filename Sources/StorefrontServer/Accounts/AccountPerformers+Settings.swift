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
        registry.on(wire.signed) { server, request, call in
            // W18: an offer's signature is the developer's to give. Until the developer can set a
            // policy, a customer's session gets a promotional offer's signature once per offer;
            // the developer's token gets any. What is refused answers nil, as an item the account
            // does not have.
            var allowed = Array(repeating: true, count: request.items.count)
            for (index, item) in request.items.enumerated() where !call.isDeveloper {
                if case .promotionalOfferJWS(_, let offer) = item {
                    allowed[index] = try server.claim(
                        "signed-offer:\(offer):\(request.account.lowercased())", account: request.account, limit: 1,
                        at: call.now)
                }
            }
            var signed = try signer(call).sign(
                request.items.indices.filter { allowed[$0] }.map { request.items[$0] }, account: request.account
            ).makeIterator()
            return request.items.indices.map { allowed[$0] ? (signed.next() ?? nil) : nil }
        }
        registry.on(wire.rootCertificate) { _, _, call in
            try signer(call).rootCertificate()
        }
        registry.on(wire.recentRequests) { try $0.recentRequests(limit: min($1, 200)) }
    }
}

// What `storefront serve` does with each method of the wire (W1, W6, W9): the wire (StoreCore's
// AccountWire) declares a method's name, types and access rule; here the server performs it,
// against the records it keeps and what it knows of the call.
import Foundation
import StoreCore
import StoreModel

extension AccountPerformers {
    /// Shared settings, retention messaging, signed data and the request log.
    static func registerSettings(_ registry: inout AccountPerformers) {
        registry.on(wire.changeStamp, access: { _ in .anyone }) { server, _, _ in try server.changeStamp() }
        registry.on(wire.clockSetting, access: { _ in .anyone }) { server, _, _ in try server.clockSetting() }
        registry.on(wire.setClockSetting, access: { _ in .developer }) {
            try $0.setClockSetting($1)
            return true
        }
        registry.on(wire.billingSetting, access: { _ in .anyone }) { server, _, _ in try server.billingSetting() }
        registry.on(wire.setBillingSetting, access: { _ in .developer }) {
            try $0.setBillingSetting($1)
            return true
        }
        registry.on(wire.appIdentity, access: { _ in .anyone }) { server, _, _ in try server.appIdentity() }
        registry.on(wire.setAppIdentity, access: { _ in .developer }) {
            try $0.setAppIdentity($1)
            return true
        }
        registry.on(wire.simulatedErrors, access: { _ in .anyone }) { server, _, _ in
            try server.simulatedErrors()
        }
        registry.on(wire.setSimulatedErrors, access: { _ in .developer }) {
            try $0.setSimulatedErrors($1)
            return true
        }
        registry.on(wire.paymentPolicy, access: { _ in .anyone }) { server, _, _ in try server.paymentPolicy() }
        registry.on(wire.offerPolicy, access: { _ in .signedIn }) { server, _, call in
            let policy = try server.offerPolicy()
            return call.isDeveloper ? policy : policy?.seen(by: call.accounts)
        }
        registry.on(wire.setOfferPolicy, access: { _ in .developer }) {
            try $0.setOfferPolicy($1)
            return true
        }
        registry.on(wire.setPaymentPolicy, access: { _ in .developer }) {
            try $0.setPaymentPolicy($1)
            return true
        }
        registry.on(wire.appAccountTokens, access: { _ in .anyone }) { server, _, call in
            try server.appAccountTokens().filter { original, _ in
                call.isDeveloper
                    || ((try? server.receiptEntry(transactionID: original)).flatMap {
                        $0.map { call.isCaller($0.account) }
                    }
                        ?? false)
            }
        }
        registry.on(wire.setAppAccountToken, access: { _ in .developer }) {
            try $0.setAppAccountToken($1.token, original: $1.original)
            return true
        }
        registry.on(wire.retentionSetup, access: { _ in .signedIn }) { server, _, call in
            let setup = try server.retentionSetup()
            return call.isDeveloper ? setup : setup.shownToCustomers
        }
        registry.on(wire.replaceRetentionSetup, access: { _ in .developer }) {
            try $0.replaceRetentionSetup($1)
        }
        registry.on(wire.retentionImage, access: { _ in .signedIn }) { server, id, call in
            guard try call.isDeveloper || server.retentionSetup().shownToCustomers.image(id) != nil else { return nil }
            return try server.retentionImage(id)
        }
        registry.on(wire.setRetentionImage, access: { _ in .developer }) {
            try $0.setRetentionImage($1.id, png: $1.png)
            return true
        }
        registry.on(wire.signed, access: { .account($0.account) }) { server, request, call in
            // W18: an offer's signature is the developer's to give: a customer's session gets one
            // as often as the developer's policy says, the developer's token any. What is refused
            // answers nil, as an item the account does not have.
            var allowed = Array(repeating: true, count: request.items.count)
            let policy = call.isDeveloper ? nil : try server.offerPolicy() ?? .standard
            for (index, item) in request.items.enumerated() {
                guard let policy, let (key, limit) = item.policyClaim(policy, account: request.account) else {
                    continue
                }
                // A claim is one use per key and account, so each use has a key of its own: the
                // first free one is taken (at most ten tries: a policy gives ten uses at most).
                allowed[index] = try (0..<limit).contains { use in
                    try server.claim(use == 0 ? key : "\(key)#\(use)", account: request.account, limit: 1, at: call.now)
                }
            }
            var signed = try signer(call).sign(
                request.items.indices.filter { allowed[$0] }.map { request.items[$0] }, account: request.account
            ).makeIterator()
            return request.items.indices.map { allowed[$0] ? (signed.next() ?? nil) : nil }
        }
        registry.on(wire.rootCertificate, access: { _ in .anyone }) { _, _, call in
            try signer(call).rootCertificate()
        }
        registry.on(wire.recentRequests, access: { _ in .developer }) { try $0.recentRequests(limit: min($1, 200)) }
    }
}

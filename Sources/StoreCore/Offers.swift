// Offers a purchase is made with (O2–O4): which offer, whether this account may have it, and the
// one-time uses it takes (a signature's nonce). The plan rules price what is bought; this role
// decides what may be bought.
import Crypto
import Foundation

public final class Offers: SessionRole {
    let session: DeviceSession
    let plans: Plans

    init(session: DeviceSession, plans: Plans) {
        self.session = session
        self.plans = plans
    }

    /// The keys whose promotional offer signatures this store accepts.
    func signatureKeys() throws(StoreError) -> PromotionalOfferCheck.Keys {
        PromotionalOfferCheck.Keys(keyring: try server.apiKeyring() ?? APIKeyring(issuerID: "", keys: []), catalogKey: catalog.subscriptionOfferKey)
    }

    /// O2: checks a promotional offer for `product` as the App Store does (the offer exists, the
    /// signature verifies and is fresh, the account is a current or past subscriber of the group)
    /// and takes its nonce. Called under the device lock, before the payment.
    func redeemPromotional(_ request: PromotionalOfferRequest, product: Product, account: String?) throws(StoreError) -> OfferRedemption {
        guard let terms = product.autoRenew else {
            throw .offerRefused(.invalidOfferIdentifier("\"\(product.id)\" is not an auto-renewable subscription: it has no offers"))
        }
        guard let account else { throw .signInRequired(productID: product.id) }
        guard let offer = terms.offer(request.offerID, type: .promotional) else {
            let known = terms.offers.filter { $0.type == .promotional }.map(\.id)
            throw .offerRefused(.invalidOfferIdentifier(
                "\"\(product.id)\" has no promotional offer \"\(request.offerID)\"" + (known.isEmpty ? "" : " (it has \(known.joined(separator: ", ")))")
            ))
        }
        let bundleID = try AppIdentity.current(server: server, catalog: catalog).bundleID
        let keys = try signatureKeys()
        let nonce: String
        do {
            nonce = try PromotionalOfferCheck.verify(request, productID: product.id, bundleID: bundleID, keys: keys, now: now())
        } catch {
            throw .offerRefused(error)
        }
        try plans.settle(account: account)
        guard try server.plans(account: account)[terms.group] != nil else {
            throw .offerRefused(.ineligibleForOffer("promotional offers are for current and past subscribers of the \(terms.group) group; \(account) has never subscribed"))
        }
        guard try server.claim("offer-nonce:" + nonce, account: account, limit: 1, at: now()) else {
            throw .offerRefused(.invalidOfferSignature("the nonce \(nonce) was used already: sign each offer with a new one"))
        }
        return OfferRedemption(type: .promotional, id: offer.id)
    }

    /// A signature of the original form made with a subscription-offer key of this store whose
    /// private half the caller holds, for demos and scenarios (`--offer-key FILE`, the screen).
    public func signPromotional(productID: String, offerID: String, privateKeyPEM: String, keyID: String) throws(StoreError) -> OfferSignature {
        let bundleID = try AppIdentity.current(server: server, catalog: catalog).bundleID
        do {
            let key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
            return try PromotionalOfferCheck.signOriginal(
                key: key, keyID: keyID, bundleID: bundleID, productID: productID, offerID: offerID,
                timestamp: Int64((now().timeIntervalSince1970 * 1000).rounded())
            )
        } catch {
            throw .offerRefused(.invalidOfferSignature("the private key cannot sign (\(error))"))
        }
    }
}

// The offers the screen and scenarios show (O1, O2): signed as the developer's server would sign
// them, with the state folder's own key, or on a team by the server.
import Crypto
import Foundation
import StoreModel

extension Offers {
    // MARK: The screen's offers, signed as the developer's server would

    /// A promotional offer's signature for the screen: the state folder's own key; on a team, the
    /// server's, which stands in for the developer's server (a device may not add keys there).
    public func demoSignature(productID: String, offerID: String) throws(StoreError) -> OfferSignature {
        if let team = keeper.team, let account = try session.currentUser() {
            return .jws(
                try teamSigned(team, .promotionalOfferJWS(productID: productID, offerID: offerID), account: account))
        }
        return try signWithOwnKey(productID: productID, offerID: offerID)
    }

    /// An introductory offer eligibility JWS for the screen, signed as `demoSignature` is.
    public func demoIntroductoryOfferEligibility(productID: String, allow: Bool) throws(StoreError) -> String {
        let account = try session.currentUser() ?? ""
        if let team = keeper.team, !account.isEmpty {
            return try teamSigned(
                team, .introductoryOfferEligibilityJWS(productID: productID, allow: allow), account: account)
        }
        return try signIntroductoryOfferEligibilityWithOwnKey(productID: productID, allow: allow, account: account)
    }

    private func teamSigned(_ team: any TeamConnection, _ item: SigningRequest, account: String) throws(StoreError)
        -> String
    {
        guard let jws = try team.signed([item], account: account).first ?? nil else {
            // W18: the developer's authority decides: a second promotional offer for the same
            // customer is not signed for her.
            throw StoreError.refusedByServer(
                "\(team.location) signs this offer for \(account) only as the developer allows (a promotional offer once)"
            )
        }
        return jws
    }

    /// The state folder's own subscription-offer key, made on first use, its public half put in
    /// the keyring.
    func ownKey() throws(StoreError) -> P256.Signing.PrivateKey {
        let file = session.stateDirectory.demoOfferKey
        if (try? String(contentsOf: file, encoding: .utf8)) == nil {
            // Made whole beside it and linked into place, so that two made at once (a team
            // server's devices opening their offer sheets together) end up as one: the second
            // link fails and both read the first.
            let staged = file.path + ".\(UUID().uuidString)"
            defer { unlink(staged) }
            let made = P256.Signing.PrivateKey()
            guard
                FileManager.default.createFile(
                    atPath: staged, contents: Data(made.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
            else {
                throw .storage(path: file.path, reason: "cannot be written")
            }
            if link(staged, file.path) != 0, errno != EEXIST {
                throw .storage(path: file.path, reason: "cannot be written (\(String(cString: strerror(errno))))")
            }
        }
        let key: P256.Signing.PrivateKey
        guard let pem = try? String(contentsOf: file, encoding: .utf8) else {
            throw .storage(path: file.path, reason: "cannot be read")
        }
        do { key = try P256.Signing.PrivateKey(pemRepresentation: pem) } catch {
            throw .storage(
                path: file.path, reason: "is not a PEM private key (\(error)); move it aside and a new one is made")
        }
        var keyring = try keyStore.apiKeyring() ?? APIKeyring()
        let publicKey = key.publicKey.x963Representation
        if !keyring.keys.contains(where: { $0.keyID == Self.demoKeyID && $0.publicKey == publicKey }) {
            keyring.keys.removeAll { $0.keyID == Self.demoKeyID }
            keyring.keys.append(
                APIKey(keyID: Self.demoKeyID, publicKey: publicKey, createdAt: now(), type: .subscriptionOffer))
            try keyStore.setAPIKeyring(keyring)
        }
        return key
    }

    /// A signature of the original form made with a subscription-offer key of this store whose
    /// private half the caller holds, for demos and scenarios (`--offer-key FILE`, the screen).
    public func signPromotional(productID: String, offerID: String, privateKeyPEM: String, keyID: String)
        throws(StoreError) -> OfferSignature
    {
        let bundleID = try AppIdentity.current(server: sharedSettings, catalog: catalog).bundleID
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

// Offers a purchase is made with (O2–O4): which offer, whether this account may have it, and the
// one-time uses it takes (a signature's nonce). The plan rules price what is bought; this role
// decides what may be bought.
import Crypto
import Foundation
import StoreModel

public final class Offers: SessionRole {
    let session: DeviceSession
    let plans: Plans

    init(session: DeviceSession, plans: Plans) {
        self.session = session
        self.plans = plans
    }

    /// The keys whose promotional offer signatures this store accepts.
    func signatureKeys() throws(StoreError) -> PromotionalOfferCheck.Keys {
        PromotionalOfferCheck.Keys(
            keyring: try keyStore.apiKeyring() ?? APIKeyring(issuerID: "", keys: []),
            catalogKey: catalog.subscriptionOfferKey)
    }

    /// Runs a signature `check` with this app's bundle id, the accepted keys and the store's time;
    /// its refusal is the purchase's error.
    private func verified<Checked>(
        _ check: (_ bundleID: String, _ keys: PromotionalOfferCheck.Keys, _ now: Date) throws(OfferRefusal) -> Checked
    ) throws(StoreError) -> Checked {
        let bundleID = try AppIdentity.current(server: sharedSettings, catalog: catalog).bundleID
        let keys = try signatureKeys()
        do {
            return try check(bundleID, keys, now())
        } catch {
            throw .offerRefused(error)
        }
    }

    /// O2: checks a promotional offer for `product` as the App Store does (the offer exists, the
    /// signature verifies and is fresh, the account is a current or past subscriber of the group)
    /// and takes its nonce. Called under the device lock, before the payment.
    func redeemPromotional(_ request: PromotionalOfferRequest, product: Product, account: String?) throws(StoreError)
        -> OfferRedemption
    {
        guard let terms = product.autoRenew else {
            throw .offerRefused(
                .invalidOfferIdentifier("\"\(product.id)\" is not an auto-renewable subscription: it has no offers"))
        }
        guard let account else { throw .signInRequired(productID: product.id) }
        guard let offer = terms.offer(request.offerID, type: .promotional) else {
            let known = terms.offers.filter { $0.type == .promotional }.map(\.id)
            throw .offerRefused(
                .invalidOfferIdentifier(
                    "\"\(product.id)\" has no promotional offer \"\(request.offerID)\""
                        + (known.isEmpty ? "" : " (it has \(known.joined(separator: ", ")))")
                ))
        }
        let nonce = try verified { bundleID, keys, now throws(OfferRefusal) in
            try PromotionalOfferCheck.verify(request, productID: product.id, bundleID: bundleID, keys: keys, now: now)
        }
        try plans.settle(account: account)
        guard try planBook.plans(account: account)[terms.group] != nil else {
            throw .offerRefused(
                .ineligibleForOffer(
                    "promotional offers are for current and past subscribers of the \(terms.group) group; \(account) has never subscribed"
                ))
        }
        guard try takeUse(ClaimKey.offerNonce(nonce).text, account: account, limit: 1) else {
            throw .offerRefused(
                .invalidOfferSignature("the nonce \(nonce) was used already: sign each offer with a new one"))
        }
        return OfferRedemption(type: .promotional, id: offer.id)
    }

    /// StoreKit's `.introductoryOfferEligibility(compactJWS:)`: the developer's signed word on
    /// whether this purchase gets `product`'s introductory offer. The JWS verifies as a promotional
    /// offer's does, names a transaction of this account's (or its app transaction id), and its
    /// nonce is taken. Called under the device lock, before the payment.
    func introductoryOfferEligibility(_ token: String, product: Product, account: String?) throws(StoreError) -> Bool {
        guard product.autoRenew != nil else {
            throw .offerRefused(
                .invalidOfferIdentifier(
                    "\"\(product.id)\" is not an auto-renewable subscription: it has no introductory offer"))
        }
        guard let account else { throw .signInRequired(productID: product.id) }
        let eligibility = try verified { bundleID, keys, now throws(OfferRefusal) in
            try IntroductoryOfferEligibility.verify(
                token, productID: product.id, bundleID: bundleID, keys: keys, now: now)
        }
        // Signed for someone: the customer's own transaction or app transaction, not another's.
        let id = eligibility.transactionID
        let owner =
            try directory.appTransactionID(account: account) == id
            ? account : try ledger.receiptEntry(transactionID: id)?.account
        guard owner?.lowercased() == account.lowercased() else {
            throw .offerRefused(
                .invalidOfferSignature(
                    "transactionId \(id) is neither a transaction of \(account)'s nor their app transaction id"))
        }
        guard try takeUse(ClaimKey.offerNonce(eligibility.nonce).text, account: account, limit: 1)
        else {
            throw .offerRefused(
                .invalidOfferSignature("the nonce \(eligibility.nonce) was used already: sign each JWS with a new one"))
        }
        return eligibility.allowsOffer
    }

    // MARK: Win-back offers (O4)

    /// The win-back offers of `product` that `account` qualifies for now: lapsed in the group,
    /// paid long enough, lapsed within the offer's window, not redeemed before.
    public func eligibleWinBackOffers(account: String, product: Product) throws(StoreError) -> [SubscriptionOffer] {
        guard let terms = product.autoRenew else { return [] }
        let offers = terms.offers.filter { $0.type == .winBack }
        guard !offers.isEmpty, try standing(account: account, group: terms.group) == .expired,
            let state = try planBook.plans(account: account)[terms.group]
        else { return [] }
        let lines = try planBook.planLines(account: account).filter { $0.group == terms.group }
        let revoked = ReceiptEntry.revoked(in: lines)
        let paidDays = lines.filter {
            ($0.event == .purchase || $0.event == .renewal) && ($0.price ?? 0) > 0
                && !revoked.contains($0.transactionID)
        }
        .reduce(0.0) { total, line in
            total + (line.expiresDate ?? line.purchaseDate).timeIntervalSince(line.purchaseDate) / 86_400
        }
        let paidMonths = Int((paidDays / 30.436875).rounded(.down))
        let lapsedMonths = Int(
            (now().timeIntervalSince(state.endedAt ?? state.expiresDate) / 86_400 / 30.436875).rounded(.down))
        var eligible: [SubscriptionOffer] = []
        for offer in offers {
            let rule = offer.winBack ?? WinBackEligibility()
            guard paidMonths >= rule.paidMonths, rule.lapsedMonths.contains(lapsedMonths) else { continue }
            if try claimStore.claims(ClaimKey.winBack(offerID: offer.id, account: account).text) > 0 { continue }
            eligible.append(offer)
        }
        return eligible
    }

    /// O4: StoreKit's `.winBackOffer(…)` purchase option: no signature, the App Store's eligibility.
    func redeemWinBack(_ offerID: String, product: Product, account: String?) throws(StoreError) -> OfferRedemption {
        guard let account else { throw .signInRequired(productID: product.id) }
        guard let offer = product.autoRenew?.offer(offerID, type: .winBack) else {
            throw .offerRefused(.invalidOfferIdentifier("\"\(product.id)\" has no win-back offer \"\(offerID)\""))
        }
        guard try eligibleWinBackOffers(account: account, product: product).contains(offer),
            try takeUse(ClaimKey.winBack(offerID: offer.id, account: account).text, account: account, limit: 1)
        else {
            throw .offerRefused(
                .ineligibleForOffer(
                    "\(offer.id) is for lapsed subscribers who qualify (renewal info's eligibleWinBackOfferIds lists them), once each"
                ))
        }
        return OfferRedemption(type: .winBack, id: offer.id)
    }

    // MARK: Offer codes (O3)

    /// The code and its product; nothing is taken yet.
    func lookUp(code text: String) throws(StoreError) -> (OfferCode, Product) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let code = try claimStore.offerCode(trimmed) else { throw .unknownOfferCode(text) }
        guard let product = catalog.product(code.productID), product.autoRenew?.offer(code.offerID, type: .code) != nil
        else {
            throw .offerRefused(
                .invalidOfferIdentifier(
                    "the code's offer \"\(code.offerID)\" of \(code.productID) is not in this catalog"))
        }
        return (code, product)
    }

    /// Whether `account` may have the code's offer (new, existing or expired subscriber, as the
    /// offer says), then one use of the code taken for it.
    func redeem(_ code: OfferCode, product: Product, account: String?) throws(StoreError) -> OfferRedemption {
        guard let account else { throw .signInRequired(productID: product.id) }
        guard let terms = product.autoRenew, let offer = terms.offer(code.offerID, type: .code) else {
            throw .offerRefused(.invalidOfferIdentifier("\(product.id) has no offer code \(code.offerID)"))
        }
        // A code used up says so before anything else, as the redemption sheet does.
        if try claimStore.claims(code.claimKey) >= code.limit { throw .offerCodeUsed(code.code, byThisAccount: false) }
        let standing = try self.standing(account: account, group: terms.group)
        guard offer.eligibility.contains(standing) else {
            let allowed = OfferEligibility.allCases.filter(offer.eligibility.contains).map(\.rawValue).joined(
                separator: " and ")
            throw .offerRefused(
                .ineligibleForOffer(
                    "the offer \(offer.id) is for \(allowed) subscribers of the \(terms.group) group; \(account) is an \(standing.rawValue) one"
                ))
        }
        guard try takeUse(code.claimKey, account: account, limit: code.limit) else {
            throw .offerCodeUsed(code.code, byThisAccount: try claimStore.claims(code.claimKey) < code.limit)
        }
        return OfferRedemption(type: .code, id: offer.id)
    }

    /// New (never subscribed in the group), existing (a plan that gives access or is in billing
    /// retry) or expired.
    func standing(account: String, group: String) throws(StoreError) -> OfferEligibility {
        try plans.settle(account: account)
        guard let state = try planBook.plans(account: account)[group] else { return .new }
        let live = state.endedAt == nil && (state.hasAccess(at: now()) || state.billingFailedAt != nil)
        return live ? .existing : .expired
    }

    /// Makes codes for the code offer named `offerName` (`count` one-time codes, or one custom
    /// code good `limit` times) and puts them in the account server's book.
    public func createCodes(offer offerName: String, count: Int, custom: String?, limit: Int) throws(StoreError)
        -> [OfferCode]
    {
        let matches = catalog.products.filter { $0.autoRenew?.offer(offerName, type: .code) != nil }
        guard let product = matches.first else {
            let known = catalog.products.flatMap { $0.autoRenew?.offers.filter { $0.type == .code }.map(\.id) ?? [] }
            throw .offerRefused(
                .invalidOfferIdentifier(
                    "no code offer \"\(offerName)\" in the catalog"
                        + (known.isEmpty
                            ? " (add one under \"codeOffers\")" : " (it has \(known.joined(separator: ", ")))")
                ))
        }
        guard matches.count == 1 else {
            throw .offerRefused(
                .invalidOfferIdentifier(
                    "\"\(offerName)\" names code offers of \(matches.map(\.id).joined(separator: ", ")): give each its own reference name"
                ))
        }
        let now = now()
        let codes =
            if let custom {
                [
                    OfferCode(
                        code: custom, productID: product.id, offerID: offerName, limit: limit, isCustom: true,
                        createdAt: now)
                ]
            } else {
                (0..<count).map { _ in
                    OfferCode(
                        code: OfferCode.makeOneTime(), productID: product.id, offerID: offerName, limit: 1,
                        isCustom: false, createdAt: now)
                }
            }
        try claimStore.addOfferCodes(codes)
        return codes
    }

    /// Every code with how many of its uses are taken.
    public func codes() throws(StoreError) -> [(code: OfferCode, used: Int)] {
        var listed: [(code: OfferCode, used: Int)] = []
        for code in try claimStore.offerCodes() { listed.append((code, try claimStore.claims(code.claimKey))) }
        return listed
    }

    /// The key id of the state folder's own subscription-offer key.
    public static let demoKeyID = "DEMOOFFERS"

    /// Signs `offerID` for `productID` with the state folder's own subscription-offer key (made
    /// on first use, its public half put in the keyring), at `timestamp` (default: now), as a
    /// developer's server would: for the screen and scenarios.
    public func signWithOwnKey(productID: String, offerID: String, timestamp: Date? = nil) throws(StoreError)
        -> OfferSignature
    {
        let key = try ownKey()
        let bundleID = try AppIdentity.current(server: sharedSettings, catalog: catalog).bundleID
        do {
            return try PromotionalOfferCheck.signOriginal(
                key: key, keyID: Self.demoKeyID, bundleID: bundleID, productID: productID, offerID: offerID,
                timestamp: Int64(((timestamp ?? now()).timeIntervalSince1970 * 1000).rounded())
            )
        } catch {
            throw .storage(path: session.stateDirectory.demoOfferKey.path, reason: "cannot sign (\(error))")
        }
    }

    /// An introductory offer eligibility JWS for `productID` and `account` (its app transaction
    /// id), signed with the state folder's own key as Apple's
    /// `IntroductoryOfferEligibilitySignatureCreator` signs: for the screen and scenarios.
    func signIntroductoryOfferEligibilityWithOwnKey(productID: String, allow: Bool, account: String) throws(StoreError)
        -> String
    {
        try signJWSWithOwnKey(
            audience: IntroductoryOfferEligibility.audience,
            claims: [
                "productId": productID, "allowIntroductoryOffer": allow,
                "transactionId": try directory.appTransactionID(account: account) ?? "",
            ])
    }

    /// A promotional offer V2 JWS for `productID`'s `offerID`, for `account`, signed with the
    /// state folder's own key as Apple's `PromotionalOfferV2SignatureCreator` signs.
    func signPromotionalJWSWithOwnKey(productID: String, offerID: String, account: String) throws(StoreError) -> String
    {
        try signJWSWithOwnKey(
            audience: PromotionalOfferCheck.audience,
            claims: [
                "productId": productID, "offerIdentifier": offerID,
                "transactionId": try directory.appTransactionID(account: account) ?? "",
            ])
    }

    /// A JWS for an App Store request feature (`audience`), its `claims` with the ones every such
    /// JWS carries, signed with the state folder's own key.
    private func signJWSWithOwnKey(audience: String, claims feature: [String: Any]) throws(StoreError) -> String {
        let key = try ownKey()
        var claims = feature
        claims["bid"] = try AppIdentity.current(server: sharedSettings, catalog: catalog).bundleID
        claims["iss"] = try keyStore.apiKeyring()?.issuerID ?? ""
        claims["aud"] = audience
        claims["iat"] = Int(now().timeIntervalSince1970)
        claims["nonce"] = UUID().uuidString.lowercased()
        let header = Base64URL.encode(
            CompactJSON.encode(["alg": "ES256", "kid": Self.demoKeyID, "typ": "JWT"] as [String: Any]))
        do {
            return try JWS.sign(claims, key: key, headerPart: header)
        } catch {
            throw .storage(path: session.stateDirectory.demoOfferKey.path, reason: "cannot sign (\(error))")
        }
    }
}

// The App Store's side of a purchase (W9): which offers it grants before the payment, the
// payment's outcome (Checkout+Payments), and what it records once the payment is taken. Where the
// records are kept (the embedded store, `storefront serve`) this role decides, from its own
// catalog, clock, keys and records; a team device asks its server, which runs this same role, and
// never writes a purchase or takes an offer's use itself.
import Foundation
import StoreModel

public final class Checkout: SessionRole {
    let session: DeviceSession
    private let plans: Plans
    private let offers: Offers

    init(session: DeviceSession, plans: Plans, offers: Offers) {
        self.session = session
        self.plans = plans
        self.offers = offers
    }

    /// M4: monthly with a 12-month commitment only for a one-year plan that offers it; billed
    /// upfront only for one sold so; an offer only with the billing plan it is configured on (as App
    /// Store Connect configures it). Held on the device before it asks, and where it is settled.
    /// Nor in a storefront where Apple does not sell the commitment (USA, SGP); and nothing where
    /// the product is not sold (F2).
    static func checkPlan(_ product: Product, billingPlan: BillingPlan?, offer: OfferRedemption?, storefront: String)
        throws(StoreError)
    {
        try checkSold(product, in: storefront)
        let monthly = billingPlan == .monthly
        if monthly, product.autoRenew?.monthlyCommitmentPrice == nil {
            throw StoreError.planRefused(.noMonthlyCommitment(productID: product.id))
        }
        if monthly, Storefronts.withoutMonthlyCommitment.contains(storefront) {
            throw StoreError.planRefused(.monthlyNotSoldIn(productID: product.id, storefront: storefront))
        }
        if !monthly, product.autoRenew?.soldUpfront == false {
            throw StoreError.planRefused(.notSoldUpfront(productID: product.id))
        }
        if let offer, offer.type == .promotional || offer.type == .winBack,
            let configured = product.autoRenew?.offer(offer.id, type: offer.type),
            configured.billingPlan != (billingPlan ?? .billedUpfront)
        {
            throw StoreError.planRefused(.offerOnAnotherPlan(offerID: offer.id, plan: configured.billingPlan))
        }
    }

    /// W18: a purchase or an offer is recorded under a transaction id of Apple's shape only.
    static func validate(transactionID: String) throws(StoreError) {
        guard TransactionID.isAppleShaped(transactionID) else {
            throw StoreError.refusedByServer(
                "\"\(transactionID.prefix(40))\" is not a transaction id: 1 to 20 digits, as Apple's")
        }
    }

    /// F2: nothing is sold where the product is not (StoreKit's storeProductNotAvailable).
    static func checkSold(_ product: Product, in storefront: String) throws(StoreError) {
        guard product.soldHere else {
            throw StoreError.notSoldInStorefront(productID: product.id, storefront: storefront)
        }
    }

    /// F3: the catalog as the App Store sells to `account`: in its storefront, read as it settles.
    func catalog(for account: String) throws(StoreError) -> Catalog {
        session.catalog(in: try session.storefront(of: account, fresh: true))
    }

    /// O2–O4: checks the offers `ask` names as the App Store does, takes their uses, and keeps what
    /// it granted for the transaction, so that the purchase is settled only as granted. Each grant
    /// takes the uses of what it names: asking again for one transaction gains nothing. A team
    /// device asks its server, which runs this.
    public func grant(_ ask: OfferAsk) throws(StoreError) -> OfferGrant {
        let keeper: any RecordKeeping
        switch self.keeper {
        case .team(let team): return try team.grantOffer(ask)
        case .here(let here): keeper = here
        }
        try Accounts.validate(accountName: ask.account)
        try Self.validate(transactionID: ask.transactionID)
        guard let product = try catalog(for: ask.account).product(ask.productID) else {
            throw StoreError.notSoldByServer(productID: ask.productID, server: "")
        }
        guard ask.asksAnything else {
            throw StoreError.refusedByServer("an offer for transaction \(ask.transactionID): the ask names none")
        }
        var grant = OfferGrant()
        if let offerID = ask.winBackOfferID {
            grant.offer = try offers.redeemWinBack(offerID, product: product, account: ask.account)
        } else if let request = ask.promotional {
            grant.offer = try offers.redeemPromotional(request, product: product, account: ask.account)
        } else if let code = ask.code {
            let (found, codeProduct) = try offers.lookUp(code: code)
            guard codeProduct.id == product.id else {
                throw StoreError.offerRefused(
                    .invalidOfferIdentifier("the code \(found.code) is for \(codeProduct.id), not \(product.id)"))
            }
            grant.offer = try offers.redeem(found, product: product, account: ask.account)
        }
        if let token = ask.introductoryOfferEligibility {
            grant.introductoryOffer = try offers.introductoryOfferEligibility(
                token, product: product, account: ask.account)
        }
        let key = grant.claimKey(transactionID: ask.transactionID, account: ask.account)
        guard try keeper.claim(key, account: ask.account, limit: 1, at: now()) else {
            throw StoreError.refusedByServer(
                "an offer for transaction \(ask.transactionID): it was granted once already")
        }
        return grant
    }

    /// Records a purchase whose payment was taken: the plan started, upgraded or changed (through
    /// the plan rules), or a line on the receipt, from this store's catalog. Settling the same
    /// transaction again adds nothing (W3). A team device asks its server, which runs this.
    public func settle(_ ask: PurchaseAsk) throws(StoreError) {
        let keeper: any RecordKeeping
        switch self.keeper {
        case .team(let team): return try team.settlePurchase(ask)
        case .here(let here): keeper = here
        }
        let recorded = try keeper.receiptEntry(transactionID: ask.transactionID)
        let product = try prepare(ask, recorded: recorded)
        // Settled once already (a device that crashed after): no decision needed to say so again.
        var settled = ask
        if recorded == nil { settled.at = try checkPaid(ask, keeper: keeper) }
        try record(settled, of: product, keeper: keeper, recorded: recorded != nil)
    }

    /// The product `ask` buys from this store's catalog, after the checks every settling makes;
    /// `recorded` is the line already recorded for its transaction (nil: none).
    func prepare(_ ask: PurchaseAsk, recorded: ReceiptEntry?) throws(StoreError) -> Product {
        try Accounts.validate(accountName: ask.account)
        try Self.validate(transactionID: ask.transactionID)
        try StateDirectory.validate(device: ask.device)
        guard let product = try catalog(for: ask.account).product(ask.productID) else {
            throw StoreError.notSoldByServer(productID: ask.productID, server: "")
        }
        if let recorded, recorded.account.lowercased() != ask.account.lowercased() {
            throw StoreError.refusedByServer("transaction \(ask.transactionID): it is another account's")
        }
        // W18: an account's app transaction id names that customer; no purchase may take it.
        if recorded == nil, try directory.account(appTransactionID: ask.transactionID) != nil {
            throw StoreError.refusedByServer("transaction \(ask.transactionID): it is an app transaction id")
        }
        return product
    }

    /// Records a purchase whose payment the App Store took: the plan rules, the grant on record for
    /// an offer, a date no later than its clock; then the plan or the receipt line.
    func record(_ ask: PurchaseAsk, of product: Product, keeper: any RecordKeeping, recorded: Bool) throws(StoreError) {
        let storefront = try session.storefront(of: ask.account, fresh: true)
        try Self.checkPlan(product, billingPlan: ask.billingPlan, offer: ask.offer, storefront: storefront)
        let grant = OfferGrant(offer: ask.offer, introductoryOffer: ask.introductoryOffer)
        if grant.needsRecord {
            guard try keeper.claims(grant.claimKey(transactionID: ask.transactionID, account: ask.account)) > 0 else {
                throw StoreError.refusedByServer(
                    "a purchase of \(product.id) with \(grant.text): no such offer was granted to transaction \(ask.transactionID)"
                )
            }
        }
        let at = min(ask.at, now())
        if product.kind == .autoRenewableSubscription {
            // Its lines keep the account's storefront (`Plans.writePlans`).
            try plans.startPlan(ask, product: product, at: at, recorded: recorded)
            return
        }
        var entry = ReceiptEntry(
            transactionID: ask.transactionID, account: ask.account, productID: product.id, kind: product.kind,
            quantity: product.quantity, months: product.months, days: product.days,
            bonusDays: product.kind == .nonRenewingSubscription ? catalog.bonusDays : 0, purchaseDate: at,
            device: ask.device, appAccountToken: ask.appAccountToken
        )
        // Away from the catalog's own storefront, the line keeps where it was bought and its price.
        if storefront != session.homeCatalog.storefront {
            (entry.storefront, entry.price) = (storefront, product.price)
        }
        try keeper.record(entry, calendar: calendar)
    }
}

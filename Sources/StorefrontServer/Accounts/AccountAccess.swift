// Whose call each method of the account server's wire may be (W6, W9): the server's to decide,
// beside what it performs (AccountPerformers+Records, AccountPerformers+Settings register each
// method with its access). AccountService checks it before a method runs.
import Foundation
import StoreCore

/// Whose call a request is: what the server checks before it runs a method (W6).
enum AccountAccess: Sendable, Equatable {
    /// Anyone who reaches the server (sign-up, sign-in, the settings every device reads).
    case anyone
    /// A device with a session for some account.
    case signedIn
    /// The developer (W9): the server's developer token. The clock, billing, simulated errors,
    /// the app's identity, the webhook, prices, offer codes, refund answers, extensions and the
    /// request log.
    case developer
    /// A device with a session for each of these accounts, or the developer (who answers for the
    /// App Store on any account: refunds, extensions). `familyReads`: a member of a family
    /// that the account organizes may read it too (O5: a shared plan's access follows the
    /// organizer's plans).
    case accounts([String], familyReads: Bool = false)

    static func account(_ name: String, familyReads: Bool = false) -> AccountAccess {
        .accounts([name], familyReads: familyReads)
    }
}

extension AccountAccess {
    /// What each of the developer's methods does, in words for a refusal.
    static let developerActions: [String: String] = [
        AccountWire.methods.setClockSetting.name: "move the store clock",
        AccountWire.methods.setBillingSetting.name: "change billing or the grace period",
        AccountWire.methods.setAppIdentity.name: "change the app's identity",
        AccountWire.methods.setSimulatedErrors.name: "set simulated StoreKit errors",
        AccountWire.methods.setPaymentPolicy.name: "set the payment outcome policy",
        AccountWire.methods.setOfferPolicy.name: "set what the server signs for customers' offers",
        AccountWire.methods.apiKeyring.name: "read the in-app purchase keys",
        AccountWire.methods.setWebhook.name: "set the webhook",
        AccountWire.methods.setPriceChange.name: "change prices",
        AccountWire.methods.addOfferCodes.name: "make offer codes",
        AccountWire.methods.offerCodes.name: "list offer codes",
        AccountWire.methods.recentRequests.name: "list the requests the server answered",
        AccountWire.methods.setAPIKeyring.name: "make or revoke in-app purchase keys",
        AccountWire.methods.setAppAccountToken.name: "set app account tokens",
        AccountWire.methods.replaceRetentionSetup.name: "change retention messages",
        AccountWire.methods.setRetentionImage.name: "upload or delete retention images",
        AccountWire.methods.record.name: "answer refund requests or extend subscriptions",
        AccountWire.methods.addPlanLines.name: "answer refund requests or extend subscriptions",
        AccountWire.methods.accountOfAppTransaction.name: "look up an app transaction id",
        AccountWire.methods.unlockAccount.name: "unlock an account's sign-ins",
    ]
}

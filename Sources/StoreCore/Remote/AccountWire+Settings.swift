// The wire's methods for what every device shares (W7, W9), retention messaging (M1), signed
// data (S1) and the request log (V7).
import Foundation
import StoreModel

extension AccountWire {
    // MARK: Settings every device shares (W7): read by anyone, changed by the developer (W9).

    package static let changeStamp = Method<R.None, ChangeStamp>("changeStamp", access: { _ in .anyone }, reads: true)
    package static let clockSetting = Method<R.None, ClockSetting>(
        "clockSetting", access: { _ in .anyone }, reads: true)
    package static let setClockSetting = Method<ClockSetting, Bool>("setClockSetting", access: { _ in .developer })
    package static let billingSetting = Method<R.None, BillingSetting>(
        "billingSetting", access: { _ in .anyone }, reads: true)
    package static let setBillingSetting = Method<BillingSetting, Bool>(
        "setBillingSetting", access: { _ in .developer })
    package static let appIdentity = Method<R.None, AppIdentity?>("appIdentity", access: { _ in .anyone }, reads: true)
    package static let setAppIdentity = Method<AppIdentity, Bool>("setAppIdentity", access: { _ in .developer })
    package static let simulatedErrors = Method<R.None, SimulatedErrors?>(
        "simulatedErrors", access: { _ in .anyone }, reads: true
    )
    package static let setSimulatedErrors = Method<SimulatedErrors, Bool>(
        "setSimulatedErrors", access: { _ in .developer })
    package static let paymentPolicy = Method<R.None, PurchaseOutcome?>(
        "paymentPolicy", access: { _ in .anyone }, reads: true)
    package static let setPaymentPolicy = Method<PurchaseOutcome, Bool>("setPaymentPolicy", access: { _ in .developer })
    /// The tokens of the caller's purchases only (the developer's: every one).
    package static let appAccountTokens = Method<R.None, [String: String]>(
        "appAccountTokens", access: { _ in .anyone }, reads: true
    )
    package static let setAppAccountToken = Method<R.AppAccountToken, Bool>(
        "setAppAccountToken", access: { _ in .developer })

    // MARK: Retention messaging (M1): the developer reads and changes it all; a customer's device
    // reads what it may show when it cancels (approved messages and their images), a caller with
    // no session nothing.

    package static let retentionSetup = Method<R.None, RetentionSetup>(
        "retentionSetup", access: { _ in .signedIn }, reads: true
    )
    package static let replaceRetentionSetup = Method<RetentionSetup, Bool>(
        "replaceRetentionSetup", access: { _ in .developer }
    )
    package static let retentionImage = Method<String, Data?>("retentionImage", access: { _ in .signedIn }, reads: true)
    package static let setRetentionImage = Method<R.RetentionImage, Bool>(
        "setRetentionImage", access: { _ in .developer })

    // MARK: Signed data (S1): the server signs an account's data for that account's devices, from
    // its own records, so that one root verifies everything a team shows.

    package static let signed = Method<R.Signing, [String?]>("signed", access: { .account($0.account) })
    /// The root that verifies it all (public: anyone may trust it).
    package static let rootCertificate = Method<R.None, Data>("rootCertificate", access: { _ in .anyone }, reads: true)
    // MARK: The request log

    package static let recentRequests = Method<Int, [ServedRequest]>(
        "recentRequests", access: { _ in .developer }, reads: true)
}

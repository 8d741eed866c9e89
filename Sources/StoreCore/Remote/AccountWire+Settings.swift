// The wire's methods for what every device shares (W7, W9), retention messaging (M1), signed
// data (S1) and the request log (V7).
import Foundation

extension AccountWire {
    // MARK: Settings every device shares (W7): read by anyone, changed by the developer (W9).

    static let changeStamp = Method<R.None, ChangeStamp>("changeStamp", access: { _ in .anyone }, reads: true) {
        server, _, _ in try server.changeStamp()
    }
    static let clockSetting = Method<R.None, ClockSetting>("clockSetting", access: { _ in .anyone }, reads: true) {
        server, _, _ in try server.clockSetting()
    }
    static let setClockSetting = Method<ClockSetting, Bool>("setClockSetting", access: { _ in .developer }) {
        try $0.setClockSetting($1)
        return true
    }
    static let billingSetting = Method<R.None, BillingSetting>("billingSetting", access: { _ in .anyone }, reads: true)
    { server, _, _ in try server.billingSetting() }
    static let setBillingSetting = Method<BillingSetting, Bool>("setBillingSetting", access: { _ in .developer }) {
        try $0.setBillingSetting($1)
        return true
    }
    static let appIdentity = Method<R.None, AppIdentity?>("appIdentity", access: { _ in .anyone }, reads: true) {
        server, _, _ in try server.appIdentity()
    }
    static let setAppIdentity = Method<AppIdentity, Bool>("setAppIdentity", access: { _ in .developer }) {
        try $0.setAppIdentity($1)
        return true
    }
    static let simulatedErrors = Method<R.None, SimulatedErrors?>(
        "simulatedErrors", access: { _ in .anyone }, reads: true
    ) { server, _, _ in
        try server.simulatedErrors()
    }
    static let setSimulatedErrors = Method<SimulatedErrors, Bool>("setSimulatedErrors", access: { _ in .developer }) {
        try $0.setSimulatedErrors($1)
        return true
    }
    /// The tokens of the caller's purchases only (the developer's: every one).
    static let appAccountTokens = Method<R.None, [String: String]>(
        "appAccountTokens", access: { _ in .anyone }, reads: true
    ) { server, _, call in
        try server.appAccountTokens().filter { original, _ in
            call.isDeveloper
                || ((try? server.receiptEntry(transactionID: original)).flatMap { $0.map { call.isCaller($0.account) } }
                    ?? false)
        }
    }
    static let setAppAccountToken = Method<R.AppAccountToken, Bool>("setAppAccountToken", access: { _ in .developer }) {
        try $0.setAppAccountToken($1.token, original: $1.original)
        return true
    }

    // MARK: Retention messaging (M1): the developer reads and changes it all; a customer's device
    // reads what it may show when it cancels (approved messages and their images), a caller with
    // no session nothing.

    static let retentionSetup = Method<R.None, RetentionSetup>(
        "retentionSetup", access: { _ in .signedIn }, reads: true
    ) { server, _, call in
        let setup = try server.retentionSetup()
        return call.isDeveloper ? setup : setup.shownToCustomers
    }
    static let replaceRetentionSetup = Method<RetentionSetup, Bool>(
        "replaceRetentionSetup", access: { _ in .developer }
    ) {
        try $0.replaceRetentionSetup($1)
    }
    static let retentionImage = Method<String, Data?>("retentionImage", access: { _ in .signedIn }, reads: true) {
        server, id, call in
        guard try call.isDeveloper || server.retentionSetup().shownToCustomers.image(id) != nil else { return nil }
        return try server.retentionImage(id)
    }
    static let setRetentionImage = Method<R.RetentionImage, Bool>("setRetentionImage", access: { _ in .developer }) {
        try $0.setRetentionImage($1.id, png: $1.png)
        return true
    }

    // MARK: Signed data (S1): the server signs an account's data for that account's devices, from
    // its own records, so that one root verifies everything a team shows.

    static let signed = Method<R.Signing, [String?]>("signed", access: { .account($0.account) }) { _, request, call in
        try signer(call).sign(request.items, account: request.account)
    }
    /// The root that verifies it all (public: anyone may trust it).
    static let rootCertificate = Method<R.None, Data>("rootCertificate", access: { _ in .anyone }, reads: true) {
        _, _, call in
        try signer(call).rootCertificate()
    }
    private static func signer(_ call: AccountCallContext) throws(StoreError) -> any DeviceSigning {
        guard let signer = call.signer else {
            throw StoreError.storage(path: "signing", reason: "this account server signs nothing for devices")
        }
        return signer
    }

    // MARK: The request log

    static let recentRequests = Method<Int, [ServedRequest]>("recentRequests", access: { _ in .developer }, reads: true)
    { try $0.recentRequests(limit: min($1, 200)) }
}

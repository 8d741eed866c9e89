// The command line's exit statuses (docs/rules.md): the store says what went wrong, as data;
// the command line chooses the number a script sees.
import StoreCore
import StoreModel

extension StoreError {
    /// Bad input (2), storage trouble (3), or the request could not be done (1).
    var exitStatus: Int32 {
        switch self {
        case .unknownProduct, .unknownTransaction, .unknownOfferCode, .offerCodeExists, .unknownNotification,
            .unknownSession, .unknownPlanTransaction, .ambiguousTransaction, .invalidAccountName, .emptyPassword,
            .accountExists, .unknownAccount, .wrongPassword, .invalidDeviceName, .noSignInLimits, .signInRefused:
            2
        case .storefrontRefused(.unknown):
            2
        case .corruptDatabase, .storage, .stopped, .serverUnreachable:
            3
        case .signInRequired, .alreadyOwned, .notPending, .cannotResolve, .noRandomViews, .noRandomComics, .notSignedIn,
            .alreadySubscribed, .planRefused, .unknownDuration, .simulated, .sessionRefused, .developerOnly,
            .serverKeeps, .refusedByServer,
            .offerRefused, .offerCodeUsed, .refundRefused, .familyRefused, .throttled, .notSoldByServer,
            .notSoldInStorefront, .storefrontRefused:
            1
        }
    }
}

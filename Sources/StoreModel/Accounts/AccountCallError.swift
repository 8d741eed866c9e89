// A refusal as the account server sends it over the wire (W1) and as the device words it.
import Foundation

/// An error the server answers with, as the device shows it.
package struct AccountCallError: Codable, Sendable {
    /// What kind of refusal it is, by the name the wire carries; each kind has its HTTP status.
    package enum Kind: String, Codable, Sendable {
        case accountExists, unknownAccount, wrongPassword, signInRefused, invalidAccountName, invalidDeviceName
        case notSold, notInStorefront, emptyPassword, planRefused, offerCodeExists, unknownOfferCode, offerCodeUsed
        case offerRefused, familyRefused, refundRefused, unknownTransaction
        case developer, throttled, refused, session, request, storage

        /// The HTTP status the account service answers a method's refusal with: a failure inside
        /// the server is 500, a family action by someone it does not belong to 403, a call without
        /// the session it needs 401, too many tries 429, and every other refusal of what was asked
        /// 400. (A call the access check refuses to anyone but the developer is 403 there, before
        /// the method runs; a method that finds it is the developer's alone says so with 400.)
        package var status: Int {
            switch self {
            case .storage: 500
            case .familyRefused: 403
            case .session, .signInRefused: 401
            case .throttled: 429
            case .accountExists, .unknownAccount, .wrongPassword, .invalidAccountName, .invalidDeviceName, .notSold,
                .notInStorefront,
                .emptyPassword, .planRefused, .offerCodeExists, .unknownOfferCode, .offerCodeUsed, .offerRefused,
                .refundRefused, .unknownTransaction, .developer, .refused, .request:
                400
            }
        }

        /// A kind this device does not know (a newer server's) reads as a failure inside the server,
        /// with the server's words.
        package init(from decoder: any Decoder) throws {
            self = Self(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .storage
        }
    }

    package var kind: Kind
    package var name: String?
    package var text: String
    /// A refusal's data, so that the device has the same error the server threw.
    package var plan: PlanRefusal?
    package var family: FamilyRefusal?
    package var refund: RefundRefusal?
    package var offer: OfferRefusal?
    /// An offer code used up: by this account, or by as many as it allows.
    package var byThisAccount: Bool?
    /// The storefront a product is not sold in.
    package var storefront: String?

    /// The refusal of `error`. Its words name nothing of the server's insides (a database's path
    /// or address, a storage failure's reason) unless `internals`: the developer's calls.
    package init(_ error: StoreError, internals: Bool = false) {
        text = error.description
        switch error {
        case .accountExists(let name): (kind, self.name) = (.accountExists, name)
        case .unknownAccount(let name): (kind, self.name) = (.unknownAccount, name)
        case .wrongPassword(let name): (kind, self.name) = (.wrongPassword, name)
        case .signInRefused: kind = .signInRefused
        case .invalidAccountName(let name): (kind, self.name) = (.invalidAccountName, name)
        case .invalidDeviceName(let name): (kind, self.name) = (.invalidDeviceName, name)
        case .notSoldByServer(let productID, _): (kind, self.name) = (.notSold, productID)
        case .notSoldInStorefront(let productID, let storefront):
            (kind, self.name, self.storefront) = (.notInStorefront, productID, storefront)
        case .emptyPassword: kind = .emptyPassword
        case .planRefused(let refusal): (kind, plan) = (.planRefused, refusal)
        case .offerCodeExists(let code): (kind, self.name) = (.offerCodeExists, code)
        case .unknownOfferCode(let code): (kind, self.name) = (.unknownOfferCode, code)
        case .offerCodeUsed(let code, let byThisAccount):
            (kind, self.name, self.byThisAccount) = (.offerCodeUsed, code, byThisAccount)
        case .offerRefused(let refusal): (kind, offer) = (.offerRefused, refusal)
        case .familyRefused(let refusal): (kind, family) = (.familyRefused, refusal)
        case .refundRefused(let refusal): (kind, refund) = (.refundRefused, refusal)
        case .unknownTransaction(let id): (kind, self.name) = (.unknownTransaction, id)
        case .developerOnly(_, let action):
            (kind, self.name) = (.developer, action)
            text = "only the developer may \(action): the call needs the server's developer token"
        case .throttled(let seconds): (kind, self.name) = (.throttled, String(seconds))
        case .refusedByServer(let why): (kind, self.name) = (.refused, why)
        default:
            kind = .storage
            if !internals { text = Self.storageFailure }
        }
    }

    /// What a customer is told of a failure inside the server; its log has the rest.
    package static let storageFailure = "the account server could not do that (its log says why)"

    package init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }

    /// The error on the device; `server` names where it came from.
    package func storeError(server: String) -> StoreError {
        switch kind {
        case .accountExists: .accountExists(name ?? "")
        case .unknownAccount: .unknownAccount(name ?? "")
        case .wrongPassword: .wrongPassword(name ?? "")
        case .signInRefused: .signInRefused
        case .invalidAccountName: .invalidAccountName(name ?? "")
        case .invalidDeviceName: .invalidDeviceName(name ?? "")
        case .notSold: .notSoldByServer(productID: name ?? "", server: server)
        case .notInStorefront: .notSoldInStorefront(productID: name ?? "", storefront: storefront ?? "")
        case .emptyPassword: .emptyPassword
        case .planRefused: plan.map(StoreError.planRefused) ?? .storage(path: server, reason: text)
        case .offerCodeExists: .offerCodeExists(name ?? "")
        case .unknownOfferCode: .unknownOfferCode(name ?? "")
        case .offerCodeUsed: .offerCodeUsed(name ?? "", byThisAccount: byThisAccount ?? false)
        case .offerRefused: offer.map(StoreError.offerRefused) ?? .storage(path: server, reason: text)
        case .session: .sessionRefused(server: server, reason: text)
        case .familyRefused: family.map(StoreError.familyRefused) ?? .storage(path: server, reason: text)
        case .refundRefused: refund.map(StoreError.refundRefused) ?? .storage(path: server, reason: text)
        case .unknownTransaction: .unknownTransaction(name ?? "")
        case .developer: .developerOnly(server: server, action: name ?? "do that")
        case .throttled: .throttled(seconds: name.flatMap(Int.init) ?? 5)
        case .refused: .refusedByServer(name ?? text)
        case .request, .storage: .storage(path: server, reason: text)
        }
    }
}

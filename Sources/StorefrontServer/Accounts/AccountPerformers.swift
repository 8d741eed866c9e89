// The server's side of the wire: the registry of what the server does with each method the wire
// declares (AccountWire, in StoreCore).
// A method declared and not registered here fails AccountPerformersTests; two registered under one
// name stop the server at its start, naming it.
import Foundation
import StoreCore
import StoreModel

/// Each method's performer, by name: decodes the request, says whose call it is, and runs it.
struct AccountPerformers: Sendable {
    /// The wire's methods, each a field of one value (AccountWire.Methods).
    static let wire = AccountWire.methods
    typealias R = AccountRequests

    /// A method as the dispatcher holds it: from a call's body, whose call it is and how to
    /// answer it.
    struct Performer: Sendable {
        let prepare:
            @Sendable (Data, JSONDecoder) throws -> (
                AccountAccess, (any RecordKeeping, AccountCallContext) throws -> Data
            )
    }

    private(set) var byName: [String: Performer] = [:]

    /// Every method `storefront serve` answers.
    static let all: AccountPerformers = {
        var registry = AccountPerformers()
        registerRecords(&registry)
        registerSettings(&registry)
        return registry
    }()

    /// Registers what the server does with `method`; a second performer for one name is a
    /// programming error, caught at the server's start.
    mutating func on<Request, Response>(
        _ method: AccountMethod<Request, Response>, access: @escaping @Sendable (Request) -> AccountAccess,
        _ perform: @escaping @Sendable (any RecordKeeping, Request, AccountCallContext) throws -> Response
    ) {
        precondition(byName[method.name] == nil, "two performers for the account method \(method.name)")
        byName[method.name] = Performer { body, decoder in
            let request = try decoder.decode(AccountWire.Envelope<Request>.self, from: body).request
            return (
                access(request),
                { server, context in
                    try JSONEncoder().encode(AccountWire.Reply(value: try perform(server, request, context)))
                }
            )
        }
    }

    /// A method that needs nothing of the call but its request.
    mutating func on<Request, Response>(
        _ method: AccountMethod<Request, Response>, access: @escaping @Sendable (Request) -> AccountAccess,
        _ perform: @escaping @Sendable (any RecordKeeping, Request) throws -> Response
    ) {
        on(method, access: access) { server, request, _ in try perform(server, request) }
    }

    /// W6: a refusal says that someone else's family has an account, not whose family it is.
    static func unnamingOthers<T>(_ call: AccountCallContext, _ body: () throws(StoreError) -> T)
        throws(StoreError) -> T
    {
        do {
            return try body()
        } catch {
            if case .familyRefused(.inFamilyOf(let account, let organizer)) = error, !call.isDeveloper,
                !call.isCaller(account), !call.isCaller(organizer)
            {
                throw StoreError.familyRefused(.inAFamily(account: account))
            }
            throw error
        }
    }
    static func signer(_ call: AccountCallContext) throws(StoreError) -> any DeviceSigning {
        guard let signer = call.signer else {
            throw StoreError.storage(path: "signing", reason: "this account server signs nothing for devices")
        }
        return signer
    }

    static func desk(_ call: AccountCallContext) throws(StoreError) -> any PurchaseDesk {
        guard let desk = call.desk else {
            throw StoreError.storage(path: "purchases", reason: "this account server settles no purchases")
        }
        return desk
    }

}

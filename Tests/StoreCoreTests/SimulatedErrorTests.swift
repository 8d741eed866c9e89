// Q7: StoreKit's simulated errors fail one API at a time, each its Storefront counterpart, with the
// error named as Apple names it; the catalog's settings apply until the state folder sets its own.
import Foundation
import TestSupport
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Simulated StoreKit errors")
struct SimulatedErrorTests {
    func simulated(_ body: () throws -> Void) -> (StoreKitAPI, String)? {
        do {
            try body()
            return nil
        } catch StoreError.simulated(let api, let error) {
            return (api, error.description)
        } catch {
            return nil
        }
    }

    @Test("Q7 each API fails its counterpart and nothing else; clearing it brings it back")
    func eachAPI() throws {
        let state = TemporaryState()
        state.clock.set(utc(2026, 3, 1))
        let catalog = Catalog(
            name: "Both", bonusDays: 1,
            products: testCatalog.products + selfiesCatalog.products.filter { $0.id == "allaccess.monthly" })
        let store = try state.signedIn("ann", catalog: catalog)
        try store.queue.buy("allaccess.monthly")
        let network = try #require(SimulatedError(parsing: "networkError", for: .loadProducts))
        let cases: [(StoreKitAPI, () throws -> Void)] = [
            (.loadProducts, { _ = try store.entitlements.productRows() }),
            (.purchase, { _ = try store.queue.buy("pack") }),
            (.appStoreSync, { _ = try store.queue.restore() }),
            (.subscriptionStatus, { _ = try store.plans.subscriptions() }),
            (.manageSubscriptionsSheet, { _ = try store.plans.perform(.cancel, on: "allaccess.monthly") }),
            (.refundRequestSheet, { _ = try store.plans.refund("nothing") }),
        ]
        for (api, call) in cases {
            try store.settings.setSimulatedError(network, for: api)
            let failure = simulated(call)
            #expect(
                failure?.0 == api && failure?.1 == "StoreKitError.networkError",
                "\(api.rawValue): \(String(describing: failure))")
            // Every other API still works while this one fails.
            for (other, otherCall) in cases
            where other != api && other != .refundRequestSheet && other != .manageSubscriptionsSheet {
                #expect(simulated(otherCall) == nil, "\(other.rawValue) while \(api.rawValue) fails")
            }
            try store.settings.setSimulatedError(nil, for: api)
            #expect(simulated(call) == nil, "\(api.rawValue) after clearing")
        }
        #expect(try store.settings.simulatedErrors().isEmpty)
    }

    @Test("Q7 a failed purchase leaves no transaction and charges nothing, as StoreKit 2's purchase() throws")
    func purchaseLeavesNothing() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        try store.settings.setSimulatedError(
            SimulatedError(parsing: "Product.PurchaseError.productUnavailable", for: .purchase), for: .purchase)
        #expect(simulated { _ = try store.queue.buy("sub3") }?.1 == "Product.PurchaseError.productUnavailable")
        #expect(try store.queue.history().isEmpty)
        #expect(try store.server.receipt(account: "ann").isEmpty)
    }

    @Test(
        "Q7 Verification: the next transactions arrive unverified with the error named, and stay so; later ones are verified again"
    )
    func verification() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        try store.settings.setSimulatedError(
            SimulatedError(parsing: "invalidSignature", for: .verification), for: .verification)
        let first = try store.queue.buy("comic.a")
        #expect(first.verificationError == "VerificationResult.VerificationError.invalidSignature")
        #expect(try store.queue.transaction(first.id).verificationError == first.verificationError, "stored")
        try store.settings.setSimulatedError(nil, for: .verification)
        let second = try store.queue.buy("comic.b")
        #expect(second.verificationError == nil)
        #expect(try store.queue.transaction(first.id).verificationError != nil, "what arrived unverified stays so")
    }

    @Test(
        "Q7 the catalog's errors apply until the state folder sets its own; an error another API cannot have is refused"
    )
    func catalogDefaults() throws {
        var catalog = testCatalog
        catalog.simulatedErrors[.purchase] = SimulatedError(parsing: "networkError", for: .purchase)
        let state = TemporaryState()
        let store = try state.signedIn("ann", catalog: catalog)
        #expect(simulated { _ = try store.queue.buy("pack") }?.0 == .purchase)
        try store.settings.setSimulatedErrors(SimulatedErrors())
        #expect(
            simulated { _ = try store.queue.buy("pack") } == nil,
            "cleared in the state folder: the catalog's no longer apply")
        #expect(
            SimulatedError(parsing: "productUnavailable", for: .loadProducts) == nil,
            "a PurchaseError is the Purchase API's alone")
        #expect(SimulatedError(parsing: "invalidSignature", for: .purchase) == nil)
        #expect(
            SimulatedError(parsing: "StoreKitError.systemError", for: .refundRequestSheet)?.description
                == "StoreKitError.systemError")
        #expect(
            SimulatedError(parsing: "chain", for: .verification)?.name == "invalidCertificateChain",
            "S5's words work too")
        #expect(SimulatedError(parsing: "bundle-id", for: .verification)?.name == "invalidDeviceVerification")
        #expect(
            StoreKitAPI(argument: "app-store-sync") == .appStoreSync
                && StoreKitAPI(argument: "App Store Sync") == .appStoreSync)
    }

    @Test("Q7 the transaction manager's presets go one API at a time and come back to none")
    func presets() {
        var errors = SimulatedErrors()
        var seen: [String] = []
        for _ in SimulatedErrors.presets {
            errors = errors.nextPreset
            #expect(errors.errors.count <= 1)
            seen.append(errors.lines.joined())
        }
        #expect(errors.isEmpty && Set(seen).count == SimulatedErrors.presets.count)
    }
}

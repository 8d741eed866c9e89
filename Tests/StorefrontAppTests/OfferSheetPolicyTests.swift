// W18: on a team device the offer sheet lists what the developer's policy signs for this customer,
// and nothing it does not; the state folder's own store (no policy) lists every offer.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

@testable import StorefrontApp

@Suite("the offer sheet and the developer's offer policy")
struct OfferSheetPolicyTests {
    func offers(_ state: AppState) -> [String] {
        sheetChoices(state, "allaccess.monthly").map { choice in
            switch choice {
            case .billing(let plan, _): "billing \(plan)"
            case .offer(let offer): offer.id
            case .introductoryAgain: "introductory again"
            }
        }
    }

    @Test(
        "W18 the sheet of a lapsed subscriber: every offer without a policy; a policy that signs free.month alone, and the introductory offer again, lists those; one for other customers lists neither; a win-back offer is listed whatever the policy"
    )
    func policyFilters() throws {
        let harness = try Harness(catalog: selfiesCatalog, user: "ann", seed: 1)
        try harness.store.queue.buy("allaccess.monthly")
        _ = try harness.store.plans.perform(.expire, on: "allaccess.monthly")
        try harness.refresh()
        #expect(offers(harness.state) == ["comeback", "free.month", "winback", "introductory again"])
        var state = harness.state
        state.snapshot?.offerPolicy = .standard
        #expect(
            offers(state) == ["comeback", "free.month", "winback"],
            "the standard policy: promotional offers once, no trial again")
        state.snapshot?.offerPolicy = OfferSigningPolicy(
            promotionalUses: 0, offers: ["free.month": 2], introductoryUses: 1, customers: ["ANN"])
        #expect(offers(state) == ["free.month", "winback", "introductory again"])
        state.snapshot?.offerPolicy?.customers = []
        #expect(offers(state) == ["winback"], "a win-back offer is the App Store's own, signed by no one")
    }
}

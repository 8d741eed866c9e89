// W18 on plain values: what a payment's decision covers, and the shape of a transaction id.
import Foundation
import Testing

@testable import StoreModel

@Suite("A payment's terms and ids, as values")
struct PaymentTermsTests {
    @Test(
        "W18 a decision's terms name the product, the billing plan and the offers; the date and device do not change them"
    )
    func terms() {
        let base = PurchaseAsk(
            transactionID: "2000000000000001", account: "eve", productID: "weekly", device: "phone", at: Date())
        var later = base
        later.at = Date(timeIntervalSince1970: 0)
        later.device = "tablet"
        #expect(later.terms == base.terms)
        var other = base
        other.productID = "monthly"
        var plan = base
        plan.billingPlan = .monthly
        var offer = base
        offer.offer = OfferRedemption(type: .promotional, id: "thankyou")
        var intro = base
        intro.introductoryOffer = true
        let all = [base, other, plan, offer, intro].map(\.terms)
        #expect(Set(all).count == all.count, "\(all)")
        let key = ClaimKey.payment(transactionID: "2000000000000001", step: .terms(base.terms), account: "eve")
        #expect(ClaimKey(key.text) == key, "a terms claim reads back: \(key.text)")
    }

    @Test("W18 a transaction id is 1 to 20 ASCII digits, as Apple's")
    func shapes() {
        for good in ["1", "2000000000000001", String(repeating: "9", count: 20)] {
            #expect(TransactionID.isAppleShaped(good), "\(good)")
        }
        for bad in ["", "abc", "12:34", "../1", "１２３４", "١٢٣", String(repeating: "9", count: 21), "12 34"] {
            #expect(!TransactionID.isAppleShaped(bad), "\(bad)")
        }
    }
}

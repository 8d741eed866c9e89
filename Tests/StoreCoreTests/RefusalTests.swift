// StoreError carries data: a refusal of a plan, a family or a refund is a typed value
// that crosses the account server's wire whole, and is worded in one place.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Refusals as data")
struct RefusalTests {
    static let refusals: [(StoreError, String)] = [
        (
            .planRefused(.ruleRefused(.alreadyCancelled, attempt: .perform(.cancel, group: "selfies"))),
            "cannot cancel the selfies plan: auto-renew is already off (`storefront renew-on PRODUCT` turns it back on)"
        ),
        (
            .planRefused(.ruleRefused(.noPriceIncrease, attempt: .answerPriceIncrease(agree: true, group: "selfies"))),
            "cannot agree to the price increase of the selfies plan: no price increase waits for consent (`storefront price set PRODUCT PRICE --consent-required` makes one)"
        ),
        (
            .planRefused(.ruleRefused(.alreadyRefunded, attempt: .refund(transactionID: "2000000000000001"))),
            "cannot refund 2000000000000001: it was refunded already"
        ),
        (.planRefused(.notAPlan(productID: "comic.a")), "\"comic.a\" is not an auto-renewable subscription"),
        (
            .planRefused(.priceOfNonPlan(productID: "comic.a", kind: .nonConsumable)),
            "only an auto-renewable subscription's price can change here; \"comic.a\" is a nonConsumable"
        ),
        (
            .familyRefused(.notShareable(productID: "oneaweek")),
            "\"oneaweek\" is not family-shareable (`familyShareable` in the catalog)"
        ),
        (.familyRefused(.inAFamily(account: "kid")), "kid is in a family already"),
        (.familyRefused(.full(maximum: 5)), "a family has the organizer and 5 others at most"),
        (
            .familyRefused(.memberOrOrganizerOnly(member: "kid", organizer: "mom")),
            "only kid or the organizer, mom, can take kid out of the family"
        ),
        (.familyRefused(.organizerOnly(organizer: "mom")), "only mom, the organizer, can change that family"),
        (
            .refundRefused(.requestAnswered(transactionID: "2000000000000001", state: .declined)),
            "the request of 2000000000000001 is declined already"
        ),
        (
            .refundRefused(.requestWaiting(transactionID: "2000000000000001")),
            "a refund request of 2000000000000001 is waiting for an answer already"
        ),
        (.refundRefused(.refundedAlready(transactionID: "2000000000000001")), "2000000000000001 is refunded already"),
    ]

    @Test("each refusal is worded as the command line has always said it")
    func wording() {
        for (error, words) in Self.refusals { #expect(error.description == words) }
        // A newcomer with no account yet is told how to make one.
        #expect(
            StoreError.notSignedIn.description
                == "not signed in (`storefront account login NAME`, or `storefront account signup NAME` for a new account)"
        )
    }

    @Test(
        "W4 an account server that cannot be reached is asked after only when it may not be there: not when it answered, nor when TLS names the fix"
    )
    func unreachableWording() {
        let server = "https://127.0.0.1:8443"
        let inDoubt: [HTTPProblem] = [
            .refused, .timedOut(seconds: 10, connecting: false), .closed, .unresolved(host: "team-box"),
        ]
        for problem in inDoubt {
            #expect(
                StoreError.serverUnreachable(server: server, problem: problem).description.hasSuffix(
                    "); is `storefront serve` running there?"), "\(problem)")
        }
        let named: [HTTPProblem] = [
            .untrusted, .notTLS, .wrongHost(host: "team-box"), .answered("it signed 2 items of 3"),
            .answered("an answer that is not the account server's (HTTP 404)"),
            .caFile(path: "/ca.pem", reason: "cannot be read"),
        ]
        for problem in named {
            let words = StoreError.serverUnreachable(server: server, problem: problem).description
            #expect(words == "the account server \(server) cannot be reached (\(problem))", "\(words)")
        }
        #expect(
            HTTPProblem.untrusted.description
                == "its certificate is not trusted: give its CA in STOREFRONT_CA_FILE or --ca-file")
        #expect(
            HTTPProblem.timedOut(seconds: 10, connecting: false).description
                == "timed out after 10 s waiting for an answer")
    }

    @Test("a refusal crosses the account server's wire as the same value, not as words")
    func wire() throws {
        for (error, _) in Self.refusals {
            let sent = try JSONEncoder().encode(AccountCallError(error))
            let received = try JSONDecoder().decode(AccountCallError.self, from: sent)
            #expect(
                received.storeError(server: "http://127.0.0.1:1") == error, "\(String(decoding: sent, as: UTF8.self))")
        }
        // A refusal whose data did not arrive is not made up from its words.
        let bare = AccountCallError(kind: .familyRefused, text: "some words")
        #expect(bare.storeError(server: "http://x") == .storage(path: "http://x", reason: "some words"))
    }

    @Test(
        "a refusal's HTTP status comes from its kind: failures inside the server 500, a family's refusal 403, no session 401, too many tries 429, the rest 400",
        arguments: [
            (StoreError.storage(path: "db", reason: "disk"), 500),
            (.familyRefused(.organizerOnly(organizer: "vic")), 403),
            (.developerOnly(server: "", action: "answer refund requests"), 400),
            (.throttled(seconds: 5), 429),
            (.wrongPassword("ann"), 400),
            (.unknownOfferCode("NOPE"), 400),
            (.planRefused(.noPlan), 400),
        ])
    func statusByKind(error: StoreError, status: Int) {
        #expect(AccountCallError(error).kind.status == status, "\(error)")
    }

    @Test("a kind this device does not know reads as a failure inside the server, in the server's words")
    func unknownKind() throws {
        let sent = Data(#"{"kind":"somethingNew","text":"the server's words"}"#.utf8)
        let received = try JSONDecoder().decode(AccountCallError.self, from: sent)
        #expect(received.kind == .storage)
        #expect(received.storeError(server: "http://x") == .storage(path: "http://x", reason: "the server's words"))
    }
}

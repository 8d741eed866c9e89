// What lets `storefront serve` answer a customer's history as fast as a fixed body: answers, kept
// while the change stamp of the accounts they are about is the same, and the app identity, the
// keyring and verified tokens, kept while the shared part's stamp is. A purchase, a refund or an
// extension for the customer (by any process) moves the first, a new key the second, so the next
// request sees it (V1), and another customer's purchase moves neither; time alone changes an answer
// (a renewal falls due, `signedDate` moves), so an answer is also kept for one second of store
// time at most, and never past the next moment one of the customer's plans changes by itself.
import Foundation
import StoreCore
import StoreModel

final class AnswerCache: Sendable {
    struct Context {
        var stamp: ChangeStamp
        var identity: AppIdentity
        var keyring: APIKeyring
        /// Tokens that verified against this identity and keyring, with their `exp`.
        var tokens: [String: Double]
    }

    struct Answer {
        /// The accounts it is about, and their stamp when it was made (the shared part's included).
        var accounts: [String]
        var stamp: ChangeStamp
        /// The shared part's stamp then: the identity's and keyring's, which verified its tokens.
        var shared: ChangeStamp
        var until: Date
        var response: APIResponse
    }

    /// Kept answers are few (a customer's pages); past this many they are all dropped.
    static let capacity = 4_096
    static let tokenCapacity = 1_024
    /// The longest an answer is kept, in store time.
    static let lifetime: TimeInterval = 1

    private let context = Locked<Context?>(nil)
    private let answers = Locked<[String: Answer]>([:])
    /// Locks by key's hash: when a kept answer runs out, the requests for it that arrive together
    /// wait for the first to make it again instead of each making it (the blocking pool runs 16
    /// at once, and 16 histories made side by side cost 16 times one).
    private let makers = (0..<64).map { _ in NSLock() }

    /// The answer kept for `key` about `accounts` at `stamp`, or the one `make` gives, made by one
    /// request at a time per key.
    func answer<Failure: Error>(
        _ key: String, accounts: [String], stamp: ChangeStamp, now: Date, make: () throws(Failure) -> APIResponse
    ) throws(Failure) -> APIResponse {
        func kept() -> APIResponse? {
            answer(key, now: now) { kept in kept == accounts ? stamp : nil }
        }
        if let kept = kept() { return kept }
        let lock = makers[Int(UInt(bitPattern: key.hashValue) % UInt(makers.count))]
        lock.lock()
        defer { lock.unlock() }
        if let kept = kept() { return kept }
        return try make()
    }

    /// The identity and keyring at `stamp`, read with `load` when the stamp moved. Tokens verified
    /// before stay verified while the identity and keyring are the same.
    func context(at stamp: ChangeStamp, load: () throws(StoreError) -> (AppIdentity, APIKeyring)) throws(StoreError)
        -> Context
    {
        if let kept = context.withLock({ $0 }), kept.stamp == stamp { return kept }
        let (identity, keyring) = try load()
        return context.withLock { kept in
            var fresh = Context(stamp: stamp, identity: identity, keyring: keyring, tokens: [:])
            if let kept, kept.identity == identity, kept.keyring == keyring { fresh.tokens = kept.tokens }
            kept = fresh
            return fresh
        }
    }

    /// The identity and keyring kept at `stamp`, if they are: nothing is read.
    func context(at stamp: ChangeStamp) -> Context? {
        context.withLock { kept in kept?.stamp == stamp ? kept : nil }
    }

    func remember(token: String, expires: Double, at stamp: ChangeStamp) {
        context.withLock { kept in
            guard kept?.stamp == stamp else { return }
            if kept?.tokens.count ?? 0 >= Self.tokenCapacity { kept?.tokens.removeAll() }
            kept?.tokens[token] = expires
        }
    }

    /// The answer kept for `key`, if it is still good at `now` and `stamp` tells its accounts'
    /// stamp as it was when it was made (nil: unknown).
    func answer(_ key: String, now: Date, stamp: ([String]) -> ChangeStamp?) -> APIResponse? {
        kept(key, now: now, stamp: stamp)?.response
    }

    /// The same for a request whose token must have verified against the identity and keyring of
    /// the moment the answer was made. Its accounts' stamp being the same, the shared part's is too
    /// (counts only grow), so that moment's context is the current one.
    func answer(_ key: String, now: Date, token: String, realNow: Date, stamp: ([String]) -> ChangeStamp?)
        -> APIResponse?
    {
        guard let answer = kept(key, now: now, stamp: stamp), let context = context(at: answer.shared),
            let expires = context.tokens[token], expires > realNow.timeIntervalSince1970
        else { return nil }
        return answer.response
    }

    private func kept(_ key: String, now: Date, stamp: ([String]) -> ChangeStamp?) -> Answer? {
        guard let answer = answers.withLock({ $0[key] }), now < answer.until, stamp(answer.accounts) == answer.stamp
        else { return nil }
        return answer
    }

    /// Keeps `response`, made about `accounts` at `stamp`, after tokens verified at `shared`. The
    /// caller has read the shared stamp again after `stamp` and found it the same, so that `stamp`
    /// holds the shared part at `shared`.
    func keep(
        _ response: APIResponse, key: String, accounts: [String], stamp: ChangeStamp, shared: ChangeStamp, until: Date
    ) {
        answers.withLock { kept in
            if kept.count >= Self.capacity { kept.removeAll() }
            kept[key] = Answer(
                accounts: accounts, stamp: stamp, shared: shared, until: until, response: response.keepingBytes())
        }
    }

    /// How long an answer about a customer with these plans holds from `now`: a second, cut at
    /// the next expiry or end of a grace period; not at all while a plan is in billing retry
    /// (its outcome comes when the retry settles, not at a date kept here).
    static func until(now: Date, plans: [PlanState]) -> Date? {
        var until = now.addingTimeInterval(lifetime)
        for plan in plans where plan.endedAt == nil {
            if plan.billingFailedAt != nil { return nil }
            for date in [plan.expiresDate, plan.graceUntil].compactMap({ $0 }) where date > now {
                until = min(until, date)
            }
            if plan.expiresDate <= now, plan.autoRenew { return nil }
        }
        return until
    }
}

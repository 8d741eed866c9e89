// What may be used a limited number of times across every device (O2, O3, O4), named once: its
// text is the key of the account server's claim table. The server reads a key back to know, from
// its own records, how many uses it allows and whose use it can only be (W9), so that a device
// calling the wire itself cannot take another account's win-back offer or use a code past its limit.
import Foundation

package enum ClaimKey: Sendable, Equatable {
    /// A promotional offer's nonce (O2): used once.
    case offerNonce(String)
    /// An offer code (O3): up to the code's limit, once per account.
    case offerCode(String)
    /// A win-back offer (O4): once, by the account it names.
    case winBack(offerID: String, account: String)
    /// What the App Store granted one purchase before its payment (W9): the offer (`type/id`, or
    /// `none`) and whether the introductory offer applies, for the transaction it names, taken by
    /// its account. The purchase is settled only as granted.
    case granted(transactionID: String, grant: String, account: String)
    /// What the App Store kept of one transaction's payment (W9, Q4): its decision, approval,
    /// wait or answer, taken by its account.
    case payment(transactionID: String, step: PaymentStep, account: String)

    package var text: String {
        switch self {
        case .offerNonce(let nonce): "offer-nonce:" + nonce
        case .offerCode(let code): "offer-code:" + code.uppercased()
        case .winBack(let offerID, let account): "win-back:\(offerID):\(account.lowercased())"
        case .granted(let transactionID, let grant, let account):
            "granted:\(transactionID):\(grant):\(account.lowercased())"
        case .payment(let transactionID, let step, let account):
            "payment:\(transactionID):\(step.text):\(account.lowercased())"
        }
    }

    /// The key `text` names; nil for one the store never makes. An account name holds no colon
    /// (Accounts.validate), so a win-back key's account is what follows its last one.
    package init?(_ text: String) {
        if text.hasPrefix("offer-nonce:") {
            let nonce = text.dropFirst("offer-nonce:".count)
            guard !nonce.isEmpty else { return nil }
            self = .offerNonce(String(nonce))
        } else if text.hasPrefix("offer-code:") {
            let code = text.dropFirst("offer-code:".count)
            guard !code.isEmpty else { return nil }
            self = .offerCode(String(code))
        } else if text.hasPrefix("win-back:") {
            let rest = text.dropFirst("win-back:".count)
            guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex,
                rest.index(after: colon) != rest.endIndex
            else { return nil }
            self = .winBack(offerID: String(rest[..<colon]), account: String(rest[rest.index(after: colon)...]))
        } else if text.hasPrefix("granted:") || text.hasPrefix("payment:") {
            let rest = text.drop { $0 != ":" }.dropFirst()
            guard let first = rest.firstIndex(of: ":"), let last = rest.lastIndex(of: ":"), first < last,
                first != rest.startIndex, rest.index(after: last) != rest.endIndex
            else { return nil }
            let (transactionID, middle, account) = (
                String(rest[..<first]), String(rest[rest.index(after: first)..<last]),
                String(rest[rest.index(after: last)...])
            )
            if text.hasPrefix("granted:") {
                self = .granted(transactionID: transactionID, grant: middle, account: account)
            } else {
                guard let step = PaymentStep(middle) else { return nil }
                self = .payment(transactionID: transactionID, step: step, account: account)
            }
        } else {
            return nil
        }
    }

    /// `text` as the claim table keys it: an offer code's in one spelling (codes are
    /// case-insensitive, as the App Store's are), anything else as it is.
    package static func canonical(_ text: String) -> String { ClaimKey(text)?.text ?? text }

    /// Merges the claim table's offer-code keys into their canonical spelling (upper case), keeping
    /// one row per code and account: the same statements in SQLite and PostgreSQL (`accountCol` is
    /// the account's column).
    package static func mergeSpellingsSQL(accountColumn: String) -> [String] {
        [
            """
            DELETE FROM claim WHERE key LIKE 'offer-code:%' AND key <> 'offer-code:' || upper(substr(key, 12))
            AND EXISTS (SELECT 1 FROM claim AS other WHERE other.\(accountColumn) = claim.\(accountColumn)
                AND other.key = 'offer-code:' || upper(substr(claim.key, 12)))
            """,
            """
            DELETE FROM claim WHERE key LIKE 'offer-code:%' AND key <> 'offer-code:' || upper(substr(key, 12))
            AND EXISTS (SELECT 1 FROM claim AS other WHERE other.\(accountColumn) = claim.\(accountColumn)
                AND upper(other.key) = upper(claim.key) AND other.key < claim.key)
            """,
            "UPDATE claim SET key = 'offer-code:' || upper(substr(key, 12)) WHERE key LIKE 'offer-code:%'",
        ]
    }

    /// The one account that may take or count this key's uses; nil: any account may.
    package var account: String? {
        switch self {
        case .winBack(_, let account), .granted(_, _, let account), .payment(_, _, let account): account
        case .offerNonce, .offerCode: nil
        }
    }

}

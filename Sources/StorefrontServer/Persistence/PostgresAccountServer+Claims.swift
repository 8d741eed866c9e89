// Claims and offer codes (O2, O3) in PostgreSQL: a use taken once, across every server.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: ClaimStore {
    public func claim(_ key: String, account: String, limit: Int, at date: Date) throws(StoreError) -> Bool {
        let key = ClaimKey.canonical(key)
        // The key's own lock: two servers cannot both take the last use.
        return try transaction(lock: "claim:" + key) { connection in
            let taken = try query(connection, "SELECT accountKey FROM claim WHERE key = \(key)")
                .compactMap { Self.string($0, "accountkey") }
            guard taken.count < limit, !taken.contains(account.lowercased()) else { return false }
            try query(
                connection,
                "INSERT INTO claim (key, accountKey, at) VALUES (\(key), \(Self.key(account)), \(Self.seconds(date)))")
            return true
        }
    }

    public func addOfferCodes(_ codes: [OfferCode]) throws(StoreError) {
        try transaction(lock: "offer-codes") { connection in
            for code in codes {
                guard try query(connection, "SELECT code FROM offerCode WHERE code = \(code.code.uppercased())").isEmpty
                else {
                    throw StoreError.offerCodeExists(code.code)
                }
                try query(
                    connection,
                    "INSERT INTO offerCode (code, value) VALUES (\(code.code.uppercased()), \(Self.json(code)))")
            }
        }
    }

    public func offerCode(_ code: String) throws(StoreError) -> OfferCode? {
        try read { connection in
            try query(connection, "SELECT value FROM offerCode WHERE code = \(code.uppercased())").first
                .map { try Self.decode(OfferCode.self, $0, "value", of: "offerCode") }
        }
    }

    public func offerCodes() throws(StoreError) -> [OfferCode] {
        try read { connection in
            try query(connection, "SELECT value FROM offerCode ORDER BY code").map {
                try Self.decode(OfferCode.self, $0, "value", of: "offerCode")
            }
        }
    }

    public func paymentDecisionInputs(transactionID: String, decided: String) throws(StoreError)
        -> PaymentDecisionInputs
    {
        let key = ClaimKey.canonical(decided)
        return try read { connection in
            let row = try query(
                connection,
                """
                SELECT (SELECT entry FROM receipt WHERE transactionID = \(transactionID)) AS entry,
                    EXISTS (SELECT 1 FROM claim WHERE key = \(key)) AS decided,
                    (SELECT value FROM setting WHERE key = 'paymentPolicy') AS value
                """
            ).first
            guard let row else { return PaymentDecisionInputs(recorded: nil, decided: false, policy: nil) }
            return PaymentDecisionInputs(
                recorded: try Self.decodeIfPresent(ReceiptEntry.self, row, "entry", of: "receipt"),
                decided: (try? row.makeRandomAccess()["decided"].decode(Bool.self)) ?? false,
                policy: try Self.decodeIfPresent(PurchaseOutcome.self, row, "value", of: "setting"))
        }
    }

    public func claims(_ key: String) throws(StoreError) -> Int {
        let key = ClaimKey.canonical(key)
        return try read { connection in
            try query(connection, "SELECT accountKey FROM claim WHERE key = \(key)").count
        }
    }
}

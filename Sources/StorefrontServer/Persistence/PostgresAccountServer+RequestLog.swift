// The requests `storefront serve` answered (V7), in PostgreSQL: the last 200.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer: RequestRecording {
    public func recordRequests(_ requests: [ServedRequest]) throws(StoreError) {
        guard !requests.isEmpty else { return }
        try transaction { connection in
            for request in requests.suffix(200) {
                try query(connection, "INSERT INTO request (value) VALUES (\(Self.json(request)))")
            }
            try query(connection, "DELETE FROM request WHERE sequence <= (SELECT MAX(sequence) FROM request) - 200")
        }
    }

    public func recentRequests(limit: Int) throws(StoreError) -> [ServedRequest] {
        try read { connection in
            try query(connection, "SELECT value FROM request ORDER BY sequence DESC LIMIT \(limit)")
                .map { try Self.decode(ServedRequest.self, $0, "value", of: "request") }.reversed()
        }
    }
}

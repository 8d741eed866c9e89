// The requests `storefront serve` answered (V7): the last 200.
import Foundation
import GRDB
import StoreModel

extension ServerDatabase: RequestRecording {
    /// Written without its own fsync: the list is for looking at, and the last 200 are kept.
    public func recordRequests(_ requests: [ServedRequest]) throws(StoreError) {
        guard !requests.isEmpty else { return }
        try lightWrite { db in
            for request in requests.suffix(200) {
                try db.execute(
                    sql: "INSERT INTO request (at, method, path, status, milliseconds) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        request.at.storeSeconds, request.method, String(request.path.prefix(200)), request.status,
                        request.milliseconds,
                    ]
                )
            }
            try db.execute(sql: "DELETE FROM request WHERE sequence <= (SELECT MAX(sequence) FROM request) - 200")
        }
    }

    public func recentRequests(limit: Int) throws(StoreError) -> [ServedRequest] {
        try read { db in
            let table = "request"
            return try Row.fetchAll(db, sql: "SELECT * FROM request ORDER BY sequence DESC LIMIT ?", arguments: [limit])
                .reversed().map { row in
                    ServedRequest(
                        at: try row.date("at", of: table), method: try row.text("method", of: table),
                        path: try row.text("path", of: table),
                        status: Int(try row.integer("status", of: table)),
                        milliseconds: Int(try row.integer("milliseconds", of: table))
                    )
                }
        }
    }
}

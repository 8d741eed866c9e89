// A team's server for the end-to-end tests that play customers and the developer against it.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

/// A team's account server on the RW Selfies catalog: `storefront serve` on SQLite or a fresh
/// PostgreSQL database, its developer token, and machines (state folders) that use it.
struct SelfiesTeam {
    let host: Session
    let server: Server
    let token: String

    init(backend: StrangerTests.Backend) async throws {
        host = try await Session()
        host.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        let database = backend == .postgres ? ["--database", try TestPostgres.freshDatabase()] : []
        server = try await Server(host, arguments: database)
        token = try await host.run(["developer-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A machine of the team: a state folder of its own, the server's account server.
    func machine() async throws -> Session {
        let session = try await Session()
        session.environment["STOREFRONT_SERVER"] = server.base
        session.environment["STOREFRONT_CATALOG"] = host.environment["STOREFRONT_CATALOG"]
        return session
    }
}

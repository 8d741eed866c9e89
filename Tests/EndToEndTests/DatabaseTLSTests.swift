// W5 with a managed database's TLS: `storefront serve --database` follows the URL's sslmode against a
// PostgreSQL cluster of the test's own that serves TLS with a certificate the test signs, and
// against the tests' plain cluster.
import Foundation
import TestSupport
import Testing

@Suite("storefront serve against PostgreSQL over TLS", .serialized, .tags(.postgres), .notInFastRun)
struct DatabaseTLSTests {
    /// Runs `openssl` with `arguments`; the test stops if it fails.
    func openssl(_ arguments: [String]) async throws {
        let result = try await runProgram(URL(fileURLWithPath: "/usr/bin/openssl"), arguments)
        try #require(
            result.status == 0,
            "openssl \(arguments.prefix(2).joined(separator: " ")) (Debian's package) makes the test's certificates: \(result)"
        )
    }

    /// A CA (its certificate at `name`.pem) in `folder`.
    func makeCA(_ name: String, in folder: URL) async throws -> URL {
        let certificate = folder.appendingPathComponent("\(name).pem")
        try await openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=\(name)",
            "-keyout", folder.appendingPathComponent("\(name)-key.pem").path, "-out", certificate.path,
        ])
        return certificate
    }

    /// A cluster on its own port serving TLS with a certificate for localhost and 127.0.0.1
    /// signed by `ca`: its URL without parameters.
    func startTLSCluster(signedBy ca: URL, in folder: URL) async throws -> String {
        let key = folder.appendingPathComponent("server-key.pem")
        let request = folder.appendingPathComponent("server.csr")
        let certificate = folder.appendingPathComponent("server.pem")
        let extensions = folder.appendingPathComponent("server.ext")
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(to: extensions, atomically: true, encoding: .utf8)
        try await openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost",
            "-keyout", key.path, "-out", request.path,
        ])
        try await openssl([
            "x509", "-req", "-in", request.path, "-CA", ca.path, "-CAkey", ca.deletingPathExtension().path + "-key.pem",
            "-CAcreateserial",
            "-days", "2", "-extfile", extensions.path, "-out", certificate.path,
        ])
        let start = try await runProgram(
            repositoryRoot.appendingPathComponent("scripts/postgres-start"), [],
            environment: ProcessInfo.processInfo.environment.merging([
                "STOREFRONT_PG_PORT": "25433", "STOREFRONT_PG_TLS_CERT": certificate.path,
                "STOREFRONT_PG_TLS_KEY": key.path,
            ]) { $1 })
        let url = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(start.status == 0, "scripts/postgres-start starts a cluster with ssl = on: \(start)")
        return url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
    }

    @Test(
        "W5 sslmode=verify-full with the CA that signed the database's certificate serves; another CA, or require against a server without TLS, is one line, exit 3"
    )
    func verifiedTLS() async throws {
        let session = try await Session()
        let folder = session.stateDirectory.appendingPathComponent("tls")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ca = try await makeCA("database-ca", in: folder)
        let stranger = try await makeCA("another-ca", in: folder)
        let database = try await startTLSCluster(signedBy: ca, in: folder)

        let verified = try await Server(
            session, arguments: ["--database", "\(database)?sslmode=verify-full&sslrootcert=\(ca.path)"])
        let stopped = try await verified.stop()
        #expect(stopped.status == 0 && stopped.rest.contains("stopped"), "\(verified.errorsTail)")

        // The CA from the environment, as for https:// webhooks.
        let fromEnvironment = try await session.run(
            ["serve", "--port", "0", "--database", "\(database)?sslmode=verify-full"],
            environment: ["STOREFRONT_CA_FILE": stranger.path]
        )
        #expect(fromEnvironment.status == 3)
        let lines = fromEnvironment.stderr.split(separator: "\n")
        #expect(
            lines.count == 1 && lines[0].contains("does not verify against the CA in \(stranger.path)"),
            "\(fromEnvironment.stderr)")
        #expect(lines.first?.contains("postgres://storefront@localhost:25433/storefront") == true)
        #expect(!fromEnvironment.stdout.contains("listening"))

        let plain = try TestTools.postgres()
        let required = try await session.run(["serve", "--port", "0", "--database", "\(plain)?sslmode=require"])
        #expect(required.status == 3)
        #expect(
            required.stderr.split(separator: "\n").count == 1 && required.stderr.contains("does not offer TLS"),
            "\(required.stderr)")
        #expect(!required.stdout.contains("listening"))
    }

    @Test("W5 W12 a password in a database URL that cannot be read or reached is never shown")
    func passwordNeverShown() async throws {
        let session = try await Session()
        for url in [
            "postgres://ann:hunter2secret@127.0.0.1:1/db?sslmode=sometimes",
            "postgres://ann:hunter2secret@127.0.0.1:1/db?sslmode=require",
        ] {
            let result = try await session.run(["serve", "--port", "0", "--database", url])
            #expect(result.status == 3)
            #expect(
                result.stderr.split(separator: "\n").count == 1 && !result.stderr.contains("hunter2secret"),
                "\(result.stderr)")
        }
    }
}

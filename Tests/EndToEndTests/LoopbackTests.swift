// `localhost` as a stock Debian machine resolves it: `::1` first, then 127.0.0.1. The test machine's
// own /etc/hosts cannot be changed, so the program runs in a mount namespace of its own (unshare,
// util-linux) where a file of the test's is bound over /etc/hosts: a name the test controls, seen
// by the real resolver of the real program.
import Foundation
import Testing

@Suite("localhost on both loopbacks", .serialized)
struct LoopbackTests {
    /// A program that runs the built storefront with Debian's /etc/hosts: `::1 localhost` first.
    static func debianLocalhost(in folder: URL) throws -> URL {
        let hosts = folder.appendingPathComponent("hosts")
        let wrapper = folder.appendingPathComponent("storefront-debian-hosts")
        try "::1 localhost ip6-localhost\n127.0.0.1 localhost\n".write(to: hosts, atomically: true, encoding: .utf8)
        let script = """
            #!/bin/sh
            exec /usr/bin/unshare --mount sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' '\(hosts.path)' '\(storefrontBinary.path)' "$@"
            """
        try (script + "\n").write(to: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        return wrapper
    }

    func session(binary: URL?) async throws -> Session {
        let session = try await Session(binary: binary)
        session.environment["STOREFRONT_ASSETS"] = repositoryRoot.appendingPathComponent("assets").path
        return session
    }

    @Test(
        "W1 a device reaches --server http://localhost:PORT where localhost names ::1 first and the server listens on 127.0.0.1 alone"
    )
    func secondAddress() async throws {
        let host = try await session(binary: nil)
        let server = try await Server(host, arguments: ["--host", "127.0.0.1"])
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        let device = try await session(binary: try Self.debianLocalhost(in: host.stateDirectory))
        // The namespace is as Debian's: the resolver gives ::1 first, and nothing listens there.
        let resolved = try await device.run(["products"], environment: ["STOREFRONT_SERVER": ""])
        #expect(resolved.status == 0, "the wrapper runs the program: \(resolved)")
        let addresses = try await runProgram(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                "/usr/bin/unshare --mount sh -c 'mount --bind \"$0\" /etc/hosts && getent ahosts localhost' '\(host.stateDirectory.appendingPathComponent("hosts").path)'",
            ]
        ).stdout
        #expect(addresses.hasPrefix("::1"), "localhost resolves to ::1 first there: \(addresses)")
        device.environment["STOREFRONT_SERVER"] = "http://localhost:\(port)"
        try await device.signUp("ann")
        #expect(try await device.run(["account", "whoami"]).stdout.contains("ann"))
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "W1 serve --host localhost (the default) answers on ::1 and on 127.0.0.1 when the name resolves to both; an IPv6 URL is bracketed"
    )
    func bothLoopbacks() async throws {
        let folder = try await session(binary: nil)
        let host = try await session(binary: try Self.debianLocalhost(in: folder.stateDirectory))
        let server = try await Server(host)
        #expect(server.base.hasPrefix("http://localhost:"), "\(server.base)")
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        for (index, address) in ["http://[::1]:\(port)", "http://127.0.0.1:\(port)"].enumerated() {
            let device = try await session(binary: nil)
            device.environment["STOREFRONT_SERVER"] = address
            try await device.signUp("user\(index)")
            #expect(try await device.run(["account", "whoami"]).stdout.contains("user\(index)"), "\(address)")
        }
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }
}

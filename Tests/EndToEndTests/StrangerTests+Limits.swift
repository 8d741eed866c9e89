// W2 W11 on a team server, from outside: a thief's device name that would write to the owner's
// terminal, and what one client may hold of the server's connections.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

extension StrangerTests {
    @Test(
        "W2 W11 a thief who has the password and signs in through the real server with a device name that would write to the owner's terminal is refused; the owner's `account sessions` lists her devices as they are named"
    )
    func deviceNames() async throws {
        let team = try await SelfiesTeam(backend: .sqlite)
        let vic = try await team.machine()
        try await vic.signUp("vic", device: "phone")
        let wire = Wire(base: team.server.base)
        struct Credentials: Encodable { var name, password, device: String }
        // Erase the line above, set the owner's clipboard, and pass for her phone.
        let disguised = "\u{1B}[2K\u{1B}[1A\u{1B}]52;c;b3duZWQ=\u{07}phone"
        let refused = try wire.call("signIn", Credentials(name: "vic", password: "pw-vic", device: disguised))
        let error = refused.body["error"] as? [String: Any]
        #expect(
            refused.status == 400 && error?["kind"] as? String == "invalidDeviceName" && refused.body["value"] == nil,
            "\(refused)")
        _ = try wire.session("vic", password: "pw-vic")
        let listed = try await vic.run(["account", "sessions", "--device", "phone"])
        listed.expectSuccess()
        let devices = listed.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true)[1]
        }
        #expect(devices.sorted() == ["phone", "raw"], "\(listed.stdout.debugDescription)")
        #expect(
            !listed.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" },
            "\(listed.stdout.debugDescription)")
    }

    @Test(
        "W11 20,000 idle connections do not lock other clients out: at the cap the longest-idle is closed, a device's sign-up is answered and the server lives; idle connections and half-sent request heads are closed by the idle timeout"
    )
    func idleConnections() async throws {
        let host = try await Session()
        // An idle timeout longer than the test: a device gets in only because the cap makes room.
        // The cap is named (whatever this machine's file limit would give) so that 20,000 idle
        // connections are sure to pass it.
        let server = try await Server(host, arguments: ["--idle-timeout", "3600", "--max-connections", "10000"])
        let port = try #require(Int(server.base.split(separator: ":").last ?? ""))
        // Holders of 10,000 each at most (a process's own file limit may be 20,000); each one's
        // reason for stopping short is shown. CI of 845d745 stopped at 17,598 with EADDRNOTAVAIL:
        // the sign-in tests beside it bound their sockets to (127.0.0.x, 0), which reserved each
        // port machine-wide until its TIME_WAIT ended; Tests/Python/loopback_source.py now binds
        // with IP_BIND_ADDRESS_NO_PORT, so their ports are shared as unbound clients' are.
        var holders: [IdleSockets] = []
        var opened = 0
        for _ in 0..<8 where opened < 20_000 {
            let holder = try await IdleSockets(port: port, count: min(10_000, 20_000 - opened))
            holders.append(holder)
            opened += holder.opened
        }
        #expect(
            opened == 20_000, "the server accepted every connection: \(holders.compactMap(\.stopped))")
        let device = try await Session()
        device.environment["STOREFRONT_SERVER"] = server.base
        // A generous ceiling: making room closes connections one by one at a cost that grows with
        // their number (decision 2), and a debug build on a slow, loaded machine took over 60 s.
        device.environment["STOREFRONT_SERVER_TIMEOUT"] = "600"
        let started = Date()
        try await device.signUp("zed")
        // Measured, not judged (no test bounds wall-clock time); the closing note reports it.
        print(
            "W11: a sign-up beside 20,000 idle connections answered in \(String(format: "%.3f", Date().timeIntervalSince(started))) s"
        )
        #expect(server.process.isRunning, "the server lives")
        var open = 0
        for holder in holders { open += try await holder.stillOpen() }
        #expect(open <= 10_000 && open > 0, "the longest-idle were closed to make room: \(open) still open")
        // The stop closes the 10,000 connections still held. How long that takes is the machine's
        // speed and grows with the square of the connections (decision 2 says why;
        // scripts/stop-under-connections measures it): within ServiceLifecycle's 4.5 s the exit is
        // clean; past them ServiceLifecycle ends the process with its own fatal error. Either way
        // the server is gone, and nothing else may have ended it.
        let stopping = Date()
        let stopped = try await server.stop()
        let bounded =
            server.process.terminationReason == .uncaughtSignal && stopped.status == SIGILL
            && server.wrote("Fatal error: Cancellation took longer than allowed by the configuration.")
        #expect(stopped.status == 0 || bounded, "\(stopped) \(server.errorsTail)")
        print(
            "W11: the stop with 10,000 connections held took \(String(format: "%.3f", Date().timeIntervalSince(stopping))) s"
                + (bounded ? ", ended by ServiceLifecycle's bound" : "")
        )

        // A short idle timeout: idle connections and half-sent request heads are closed by it.
        let quick = try await Server(try await Session(), arguments: ["--idle-timeout", "1"])
        let quickPort = try #require(Int(quick.base.split(separator: ":").last ?? ""))
        let idle = try await IdleSockets(port: quickPort, count: 500)
        let partial = try await IdleSockets(port: quickPort, count: 500, partial: true)
        #expect(idle.opened == 500 && partial.opened == 500)
        #expect(
            try await waitUntil(seconds: 120) {
                let stillOpen = (try await idle.stillOpen(), try await partial.stillOpen())
                return stillOpen == (0, 0)
            },
            "closed by the timeout")
        let after = try await Session()
        after.environment["STOREFRONT_SERVER"] = quick.base
        try await after.signUp("amy")
        #expect(try await quick.stop().status == 0)
    }

    @Test(
        "W11 a body sent a byte at a time is not waited for: past --body-timeout the server answers 408 and closes the connection, well before the body would have arrived, and serves the next client"
    )
    func slowBodies() async throws {
        let host = try await Session()
        let server = try await Server(host, arguments: ["--body-timeout", "1", "--idle-timeout", "30"])
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        // 120 bytes, one each quarter second: 30 s to send it all, if nothing stopped it.
        let slow = try await runProgram(
            try AppleVerifier.python(),
            [repositoryRoot.appendingPathComponent("Tests/Python/slow_body.py").path, "127.0.0.1", port, "120", "0.25"])
        let line = slow.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(report["status"] as? String == "HTTP/1.1 408 Request Timeout", "\(report)")
        #expect(report["closed"] as? Bool == true && (report["sent"] as? Int ?? 120) < 120, "\(report)")
        let device = try await Session()
        device.environment["STOREFRONT_SERVER"] = server.base
        try await device.signUp("amy")
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "W11 requests in progress at the cap still admit a new client: with every connection holding a body it never finishes, and no timeout to end them, a device's sign-up is answered"
    )
    func busyAtTheCap() async throws {
        let host = try await Session()
        // Neither the body timeout nor the idle timeout ends them during the test: only the cap's
        // admission lets the device in.
        let server = try await Server(
            host, arguments: ["--max-connections", "20", "--body-timeout", "3600", "--idle-timeout", "3600"])
        let port = try #require(Int(server.base.split(separator: ":").last ?? ""))
        let holder = try await IdleSockets(port: port, count: 40, body: true)
        #expect(holder.opened == 40, "the server accepted every connection")
        let device = try await Session()
        device.environment["STOREFRONT_SERVER"] = server.base
        // A generous ceiling: making room closes connections one by one at a cost that grows with
        // their number (decision 2), and a debug build on a slow, loaded machine took over 60 s.
        device.environment["STOREFRONT_SERVER_TIMEOUT"] = "600"
        try await device.signUp("kai")
        // Those still idle when the cap was passed were closed to make room (measured, not judged).
        print(
            "W11: \(try await holder.stillOpen()) of 40 connections with a request in progress still open at the cap of 20"
        )
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "W6 W11 a client that holds an HTTPS connection and stops answering does not hold the stop: SIGTERM ends the server with status 0, without ServiceLifecycle's fatal error"
    )
    func silentTLSClient() async throws {
        let host = try await Session()
        let tls = try await AccountServerTests.certificate(in: host.stateDirectory, name: "team")
        let server = try await Server(
            host,
            arguments: [
                "--host", "127.0.0.1", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path, "--log-level",
                "debug",
            ])
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        let client = Process()
        client.executableURL = try AppleVerifier.python()
        client.arguments = [
            repositoryRoot.appendingPathComponent("Tests/Python/silent_tls_client.py").path, "127.0.0.1", port,
            tls.certificate.path,
        ]
        let output = Pipe()
        client.standardOutput = output
        try client.run()
        defer { client.terminate() }
        // Answered, and the connection kept open: the client now reads nothing, so the server's
        // close_notify at the stop goes unanswered.
        let line = try await firstLine(output)
        #expect(line.contains("HTTP/1.1 401"), "\(line)")
        let stopped = try await server.stop()
        #expect(client.isRunning, "the silent client still holds its connection at the stop")
        #expect(
            stopped.status == 0 && !server.errorsTail.contains("Fatal error"), "\(stopped) \(server.errorsTail)")
        // --log-level debug: the stop's steps, as ServiceLifecycle tells them.
        #expect(server.errorsTail.contains("[ServiceLifecycle] Service finished"), "\(server.errorsTail)")
    }
}

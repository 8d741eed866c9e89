// W1–W4 from the command line: two state folders stand for two machines, a third runs
// `storefront serve`, and every command names it with STOREFRONT_SERVER (as `--server` would).
import Foundation
import TestSupport
import Testing

@Suite(
    "Two machines, one account server: the command line with --server", .serialized, .tags(.postgres, .python, .tmux),
    .notInFastRun)
struct AccountServerTests {
    /// A machine: a state folder of its own whose commands go to `server`.
    func machine(_ server: Server) async throws -> Session {
        let session = try await Session()
        session.environment["STOREFRONT_SERVER"] = server.base
        return session
    }

    @Test(
        "W1 W2 A4 sign up on A, subscribe on A, sign in on B: B shows A's expiry; B renews early and A loses nothing; the server's receipt recomputes"
    )
    func twoMachines() async throws {
        let host = try await Session()
        let server = try await Server(host)
        let a = try await machine(server)
        let b = try await machine(server)
        try await a.signUp("ann")
        try await a.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        let header = try #require(try await a.run(["status"]).stdout.split(separator: "\n").first.map(String.init))
        #expect(
            header == "Subscribed! Expires: 16/04/2026 (91 Days)",
            "the server's clock (frozen on 15 January), three months and a day")
        try await b.signIn("ann")
        #expect(try await b.run(["status"]).stdout.hasPrefix(header), "B shows A's expiry")
        try await b.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        try await a.run(["restore"]).expectSuccess()
        #expect(
            try await a.run(["status"]).stdout.hasPrefix("Subscribed! Expires: 17/07/2026"),
            "renewed early on B: no months lost on A")
        // The server machine's own view of the account.
        let receipt = try await host.run(
            ["receipt", "--user", "ann", "--json"], environment: ["STOREFRONT_PASSWORD": "pw-ann"])
        #expect(receipt.status == 0)
        let report = try receipt.object()
        #expect(report["consistent"] as? Bool == true && (report["entries"] as? [Any])?.count == 2)
        // The account lives on the server only: A's own state folder has never heard of it.
        let local = try await a.run(
            ["receipt", "--user", "ann"], environment: ["STOREFRONT_SERVER": "", "STOREFRONT_PASSWORD": "pw-ann"])
        #expect(local.status == 2 && local.stderr.contains("no account named"), "\(local)")
        _ = try await server.stop()
    }

    @Test("W4 a stopped server is one line and exit 3, never a hang; the same commands work when it is back")
    func stoppedServer() async throws {
        let host = try await Session()
        var server = try await Server.restartable(host)
        let port = try #require(server.base.split(separator: ":").last.flatMap { Int($0) })
        let a = try await machine(server)
        try await a.signUp("ann")
        _ = try await server.stop()
        let down = try await a.run(["buy", "com.storefront.sub.3months"])
        #expect(down.status == 3)
        #expect(
            down.stderr.split(separator: "\n").count == 1 && down.stderr.contains("cannot be reached"), "\(down.stderr)"
        )
        server = try await Server(host, port: port)
        try await a.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        #expect(try await a.run(["status"]).stdout.hasPrefix("Subscribed! Expires: 16/04/2026"))
        _ = try await server.stop()
    }

    @Test(
        "W1 --server written as a person writes it: HOST:PORT is http://; https:// to a plain server and another scheme are one line that says what to change"
    )
    func serverAddresses() async throws {
        let host = try await Session()
        let server = try await Server(host)
        let a = try await machine(server)
        let address = server.base.replacingOccurrences(of: "http://", with: "")
        try await a.run(
            ["account", "signup", "ann"], environment: ["STOREFRONT_SERVER": address, "STOREFRONT_PASSWORD": "pw-ann"]
        ).expectSuccess()
        #expect(
            try await a.run(["account", "whoami"]).stdout == "signed in as ann\n",
            "the server at \(address) has the account")
        let tls = try await a.run(["status"], environment: ["STOREFRONT_SERVER": "https://" + address])
        #expect(
            tls.status == 3 && tls.stderr.split(separator: "\n").count == 1
                && tls.stderr.contains("it does not speak TLS there: is it http://, not https://?"), "\(tls)")
        let scheme = try await a.run(["status"], environment: ["STOREFRONT_SERVER": "ftp://" + address])
        #expect(
            scheme.status == 2
                && scheme.stderr
                    == "storefront: --server takes http://HOST:PORT or https://HOST:PORT of `storefront serve`, not \"ftp://\(address)\"\n",
            "\(scheme)")
        _ = try await server.stop()
    }

    @Test("W4 a server that accepts and never answers: one line after the deadline, exit 3")
    func silentServer() async throws {
        let listener = try SilentListener()
        let a = try await Session()
        let result = try await a.run(
            ["status"],
            environment: ["STOREFRONT_SERVER": "http://127.0.0.1:\(listener.port)", "STOREFRONT_SERVER_TIMEOUT": "1"])
        #expect(result.status == 3)
        #expect(
            result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("timed out"), "\(result.stderr)")
    }

    @Test(
        "W1 a newcomer's team whose devices run another catalog than `serve`: a purchase of a product the server does not sell fails (product-unavailable) with one line that says which catalog to give whom, exit 1, and nothing reaches the server; the server's own products sell"
    )
    func anotherCatalog() async throws {
        let selfiesCatalog = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        // A server on the shipped comics and a device on the selfies (plans), and the other way
        // round (comics and a pack, one-time purchases). The server decides each payment, and
        // refuses to for a product it does not sell.
        let cases: [(server: String?, device: String?, products: [String])] = [
            (nil, selfiesCatalog, ["com.storefront.selfies.sub.allaccess", "com.storefront.selfies.sub.oneaweek"]),
            (selfiesCatalog, nil, ["com.storefront.comic.nightshift", "com.storefront.randomviews"]),
        ]
        for (serverCatalog, deviceCatalog, products) in cases {
            let host = try await Session()
            if let serverCatalog { host.environment["STOREFRONT_CATALOG"] = serverCatalog }
            let server = try await Server(host)
            let device = try await machine(server)
            if let deviceCatalog { device.environment["STOREFRONT_CATALOG"] = deviceCatalog }
            try await device.signUp("ann")
            for product in products {
                let bought = try await device.run(["buy", product])
                #expect(bought.status == 1 && bought.stdout.isEmpty, "\(product): \(bought)")
                #expect(
                    bought.stderr
                        == "storefront: the account server \(server.base) does not sell \(product): its catalog is not this device's (start `storefront serve --catalog FILE` with the devices' catalog, or give the devices the server's)\n",
                    "\(product): \(bought)")
            }
            let history = try #require(
                try JSONSerialization.jsonObject(with: Data(try await device.run(["history", "--json"]).stdout.utf8))
                    as? [[String: Any]])
            #expect(
                history.count == 2
                    && history.allSatisfy {
                        $0["state"] as? String == "failed" && $0["reason"] as? String == "product-unavailable"
                    }, "\(history)")
            #expect(try await device.run(["status"]).stdout.hasPrefix("Not Subscribed"))
            // The server's records: nothing of ann's.
            let receipt = try await host.run(
                ["receipt", "--user", "ann", "--json"], environment: ["STOREFRONT_PASSWORD": "pw-ann"])
            #expect((try receipt.object()["entries"] as? [Any])?.isEmpty == true, "\(receipt)")
            // A device on the server's catalog buys as ever.
            let same = try await machine(server)
            if let serverCatalog { same.environment["STOREFRONT_CATALOG"] = serverCatalog }
            try await same.signIn("ann")
            try await same.run([
                "buy", serverCatalog == nil ? "com.storefront.sub.3months" : "com.storefront.selfies.sub.allaccess",
            ]).expectSuccess()
            #expect(try await same.run(["status"]).stdout.hasPrefix("Subscribed!"))
            _ = try await server.stop()
        }
    }

    @Test("W6 a wrong password, another account's session and a revoked one are refused; nothing changes")
    func refusals() async throws {
        let host = try await Session()
        let server = try await Server(host)
        let a = try await machine(server)
        let b = try await machine(server)
        try await a.signUp("ann")
        try await b.signUp("bob")
        try await b.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        let wrong = try await a.run(["account", "login", "bob"], environment: ["STOREFRONT_PASSWORD": "guess"])
        // W17: A never signed in to bob, so it is told what any stranger is told.
        #expect(
            wrong.status == 2 && wrong.stderr.contains("sign-in refused: the name or password is wrong"),
            "\(wrong)")
        // Bob signs out on B: the session B kept is revoked on the server, and B is a guest again.
        try await b.run(["account", "logout"]).expectSuccess()
        #expect(try await b.run(["status"]).stdout.contains("Not Subscribed"))
        try await b.signIn("bob")
        #expect(try await b.run(["status"]).stdout.hasPrefix("Subscribed!"))
        _ = try await server.stop()
    }

    @Test(
        "W2 W6 a lost device's session is revoked from another: its next command is refused in one line; it signs in again"
    )
    func revokeLostDevice() async throws {
        let host = try await Session()
        let server = try await Server(host)
        let a = try await machine(server)
        let lost = try await machine(server)
        try await a.signUp("ann")
        try await lost.signIn("ann")
        let sessions = try await a.array(["account", "sessions"])
        #expect(sessions.count == 2 && sessions.allSatisfy { $0["revoked"] is NSNull }, "\(sessions)")
        let newest = try #require(sessions.last?["id"] as? String)
        try await a.run(["account", "sessions", "revoke", newest]).expectSuccess()
        let refused = try await lost.run(["receipt"])
        #expect(
            refused.status == 1 && refused.stderr.contains("refused this device")
                && refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        #expect(try await a.run(["account", "sessions", "revoke", newest]).status == 2, "revoked once")
        // The server machine sees the same list (its own state folder, the account by password).
        let listed = try await host.run(
            ["account", "sessions", "--json", "--user", "ann"], environment: ["STOREFRONT_PASSWORD": "pw-ann"])
        #expect((try listed.array()).filter { !($0["revoked"] is NSNull) }.count == 1)
        try await lost.signIn("ann")
        try await lost.run(["receipt"]).expectSuccess()
        #expect(try await a.run(["status"]).status == 0, "A's own session was never touched")
        _ = try await server.stop()
    }

    @Test(
        "W8 W4 the screen names its account server; a stopped server is a banner and 'unreachable' in the transaction manager, both gone when it is back"
    )
    func screen() async throws {
        let host = try await Session()
        var server = try await Server.restartable(host)
        let port = try #require(server.base.split(separator: ":").last.flatMap { Int($0) })
        let a = try await machine(server)
        try await a.signUp("ann")
        let tmux = try await TmuxSession(command: a.screenCommand())
        let name = "ann @ localhost:\(port)"
        try await tmux.waitFor(name)
        try await tmux.send("t")
        try await tmux.waitFor("Account server \(server.base) · connected")
        _ = try await server.stop()
        try await tmux.waitFor("Account server \(server.base) unreachable")
        try await tmux.waitFor("\(server.base) · unreachable")
        server = try await Server(host, port: port)
        try await tmux.waitUntil(description: "the banner gone and the server connected") { screen in
            !screen.contains("unreachable (") && screen.contains("\(server.base) · connected")
        }
        #expect(server.process.isRunning, "the server started again still runs: \(server.errorsTail)")
        _ = try await server.stop()
    }

    @Test(
        "W6 --tls-cert and --tls-key serve HTTPS: a client that trusts the certificate gets Apple's JSON error; one flag alone, a missing or non-PEM file and a port already taken are refused in one line"
    )
    func https() async throws {
        let host = try await Session()
        let (certificate, key) = try await Self.certificate(in: host.stateDirectory, name: "tls")
        let alone = try await host.run(["serve", "--port", "0", "--tls-cert", certificate.path])
        #expect(alone.status == 2 && alone.stderr.contains("go together"))
        // A file that is not there is named as missing; one that is not PEM is said to be that.
        let missing = host.stateDirectory.appendingPathComponent("nope-key.pem").path
        let noKey = try await host.run(["serve", "--port", "0", "--tls-cert", certificate.path, "--tls-key", missing])
        #expect(noKey.status == 2 && noKey.stderr == "storefront serve: \(missing): no such file\n", "\(noKey)")
        let swapped = try await host.run(["serve", "--port", "0", "--tls-cert", key.path, "--tls-key", key.path])
        #expect(
            swapped.status == 2 && swapped.stderr.contains("not a PEM certificate chain and private key"), "\(swapped)")
        let server = try await Server(
            host, arguments: ["--host", "127.0.0.1", "--tls-cert", certificate.path, "--tls-key", key.path])
        #expect(server.base.hasPrefix("https://127.0.0.1:"))
        // A second server on the same port is told so in words, not with SwiftNIO's bind error.
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        let taken = try await host.run(["serve", "--port", port])
        #expect(
            taken.status == 3
                && taken.stderr
                    == "storefront serve: localhost:\(port) is in use (another storefront serve?): --port names another, --port 0 picks a free one\n",
            "\(taken)")
        let python = try AppleVerifier.python()
        let client = try await runProgram(
            python,
            [
                "-c",
                """
                import ssl, sys, urllib.request, urllib.error
                context = ssl.create_default_context(cafile=sys.argv[2])
                try:
                    urllib.request.urlopen(sys.argv[1] + "/inApps/v1/transactions/1", context=context)
                except urllib.error.HTTPError as error:
                    print(error.code, error.headers["Content-Type"], error.read().decode())
                """, server.base, certificate.path,
            ])
        let answer = client.stdout
        #expect(answer.hasPrefix("401 application/json {\"errorCode\":4010000"), "\(answer)")
        _ = try await server.stop()
    }

    /// A self-signed certificate for 127.0.0.1 (its own CA) and its key, made by openssl.
    static func certificate(in folder: URL, name: String, subject: String = "/CN=127.0.0.1") async throws -> (
        certificate: URL, key: URL
    ) {
        let certificate = folder.appendingPathComponent("\(name).pem")
        let key = folder.appendingPathComponent("\(name)-key.pem")
        let openssl = try await runProgram(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", subject,
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path,
            ])
        try #require(openssl.status == 0, "openssl (Debian's package) makes the test certificate: \(openssl)")
        return (certificate, key)
    }

    @Test(
        "W13 HTTPS both ways: devices on --server https:// and an https:// webhook (Python's ssl) trusting STOREFRONT_CA_FILE or --ca-file; a wrong CA, or none, fails in one line and changes nothing"
    )
    func httpsBothWays() async throws {
        let host = try await Session()
        let tls = try await Self.certificate(in: host.stateDirectory, name: "team")
        let stranger = try await Self.certificate(
            in: host.stateDirectory, name: "stranger", subject: "/CN=someone else")
        // The webhook receiver speaks HTTPS with the team's certificate; the server trusts it
        // through --ca-file, which serve hands to its server in the environment.
        let receiver = try await Receiver(arguments: ["--tls", tls.certificate.path, tls.key.path])
        let server = try await Server(
            host,
            arguments: [
                "--host", "127.0.0.1", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path, "--ca-file",
                tls.certificate.path,
            ])
        #expect(server.base.hasPrefix("https://127.0.0.1:"))
        let token = try await host.run(["developer-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let a = try await machine(server)
        let b = try await machine(server)
        a.environment["STOREFRONT_CA_FILE"] = tls.certificate.path
        a.environment["STOREFRONT_DEVELOPER_TOKEN"] = token
        try await a.run(["webhook", "set", "https://127.0.0.1:\(receiver.port)/apple"]).expectSuccess()
        try await a.signUp("ann")
        try await a.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        // B names its CA with the flag instead, and sees what A bought.
        let signIn = try await b.run(
            ["account", "login", "ann", "--ca-file", tls.certificate.path],
            environment: ["STOREFRONT_PASSWORD": "pw-ann"])
        #expect(signIn.status == 0, "\(signIn)")
        #expect(
            try await b.run(["status", "--ca-file", tls.certificate.path]).stdout.hasPrefix(
                "Subscribed! Expires: 16/04/2026")
        )
        // The server delivers the purchase (ONE_TIME_CHARGE: a non-renewing plan) over HTTPS, and it verifies.
        #expect(
            await waitUntil(seconds: 60) { !receiver.payloads.isEmpty }, "a notification reached the https:// receiver")
        let payload = try #require(receiver.payloads.first)
        let verified = try #require(
            try await AppleVerifier.verify(
                [("notification", payload)], session: host, bundleID: "com.storefront.comics"
            )
            .first)
        #expect(
            verified.ok && verified.decoded["notificationType"] as? String == "ONE_TIME_CHARGE",
            "\(verified.status ?? "") \(verified.decoded)")
        // A wrong CA, or none: one line, exit 3, nothing bought.
        for extra in [["--ca-file", stranger.certificate.path], []] {
            let refused = try await b.run(["buy", "com.storefront.comic.1"] + extra)
            #expect(refused.status == 3, "\(refused)")
            #expect(
                refused.stderr.split(separator: "\n").count == 1
                    && refused.stderr.contains("certificate is not trusted"), "\(refused.stderr)")
            #expect(
                !refused.stderr.contains("running there"),
                "the server is there: its certificate is the trouble: \(refused.stderr)")
        }
        let missing = try await b.run([
            "status", "--ca-file", host.stateDirectory.appendingPathComponent("absent.pem").path,
        ])
        #expect(missing.status == 2 && missing.stderr.contains("cannot be read"), "\(missing)")
        let receipt = try await a.object(["receipt", "--json"])
        #expect((receipt["entries"] as? [Any])?.count == 1, "only A's purchase reached the server")
        // The embedded store delivers to an https:// webhook itself, with the same trust.
        let alone = try await Session()
        alone.environment["STOREFRONT_CA_FILE"] = tls.certificate.path
        try await alone.run(["webhook", "set", "https://127.0.0.1:\(receiver.port)/alone"]).expectSuccess()
        let before = receiver.payloads.count
        try await alone.run(["notifications", "test"]).expectSuccess()
        #expect(
            await waitUntil(seconds: 60) { receiver.payloads.count > before },
            "the embedded store's TEST reached the https:// receiver")
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test("W1 W8 B's screen shows the expiry A bought, and names the server")
    func screenOnB() async throws {
        let host = try await Session()
        let server = try await Server(host)
        let port = try #require(server.base.split(separator: ":").last.flatMap { Int($0) })
        let a = try await machine(server)
        let b = try await machine(server)
        try await a.signUp("ann")
        try await a.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
        try await b.signIn("ann")
        let tmux = try await TmuxSession(command: b.screenCommand())
        try await tmux.waitFor("ann @ localhost:\(port)")
        try await tmux.waitFor("Subscribed! Expires: 16/04/2026 (91 Days)")
        _ = try await server.stop()
    }

    @Test(
        "W4 W5 a PostgreSQL database that cannot be reached stops storefront serve in one line that says why, exit 3, before it listens"
    )
    func unreachableDatabase() async throws {
        let host = try await Session()
        let result = try await host.run(["serve", "--port", "0", "--database", "postgres://nobody@127.0.0.1:1/nothing"])
        #expect(result.status == 3)
        #expect(
            result.stderr.split(separator: "\n").count == 1
                && result.stderr.contains("cannot connect (connection refused)"), "\(result.stderr)")
        #expect(!result.stdout.contains("listening"))
    }

    @Test("W12 a PostgreSQL password never shows in the process list: serve writes it over in its arguments")
    func passwordNotInProcessList() async throws {
        let session = try await Session()
        var url = try #require(URLComponents(string: try TestPostgres.freshDatabase()))
        let password = "not-in-ps-\(UUID().uuidString.prefix(8))"
        url.password = password
        let server = try await Server(session, arguments: ["--database", try #require(url.string)])
        let command = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: "/proc/\(server.process.processIdentifier)/cmdline")),
            as: UTF8.self)
        #expect(command.contains("serve"), "the server runs: \(command)")
        #expect(!command.contains(password), "the password is not in its arguments")
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }
}

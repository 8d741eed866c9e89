// First contact: the program copied to an empty folder and run from `/` opens its
// default store and runs every shipped scenario; shell completion; scenarios that name a catalog.
import Foundation
import TestSupport
import Testing

@Suite("A copied binary", .serialized, .tags(.python, .tmux), .notInFastRun)
struct InstallTests {
    /// Runs `binary` from `/` with only HOME, PATH and TZ: no assets folder anywhere it looks.
    func run(_ binary: URL, _ arguments: [String], home: URL) async throws -> RunResult {
        try await runProgram(
            binary, arguments,
            environment: [
                "HOME": home.path, "PATH": "/usr/bin:/bin", "TZ": "UTC",
                "STOREFRONT_STATE_DIR": home.appendingPathComponent("state").path,
            ], in: URL(fileURLWithPath: "/"))
    }

    @Test(
        "C1 copied to an empty folder and run from /, it opens the default store and scenario check runs every shipped scenario"
    )
    func copiedBinary() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-install-\(UUID().uuidString)")
        let home = folder.appendingPathComponent("home")
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = bin.appendingPathComponent("storefront")
        try await copyExecutable(storefrontBinary, to: binary)
        let products = try await run(binary, ["products", "--json"], home: home)
        #expect(products.status == 0 && products.stdout.contains("com.storefront.comic.nightshift"), "\(products)")
        let check = try await run(binary, ["scenario", "check"], home: home)
        #expect(check.status == 0 && check.stdout.contains(", 0 failed"), "\(check)")
        for name in ["in-app-rage.scenario", "billing.scenario", "upgrade.scenario", "trial-and-renewals.scenario"] {
            #expect(check.stdout.contains("\(name)\n"), "\(name) ran")
        }
        let cached = try FileManager.default.contentsOfDirectory(
            atPath: home.appendingPathComponent(".cache/storefront").path)
        #expect(cached.count == 1 && cached[0].hasPrefix("assets-"), "\(cached)")
        let bad = try await run(binary, ["products", "--catalog", "/nonexistent.json"], home: home)
        #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1, "\(bad)")
    }

    @Test(
        "C1 W6 W13 the one program copied alone runs the screen, serve over HTTPS, a device on --server https:// and an https:// webhook that Apple's library verifies"
    )
    func oneProgram() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-one-\(UUID().uuidString)")
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The install step README and docs/install.md name, run as written, with this build's
        // program for the release one and an empty folder for ~/.local/bin/.
        let page = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/install.md"), encoding: .utf8)
        let step = try #require(
            page.split(separator: "\n").first { $0.hasPrefix("install ") }?.split(separator: "#").first
        )
        .trimmingCharacters(in: .whitespaces)
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("`\(step)`"), "README names the step docs/install.md gives: \(step)")
        let binary = bin.appendingPathComponent("storefront")
        let install = try await runProgram(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                step.replacingOccurrences(of: ".build/release/storefront", with: storefrontBinary.path)
                    .replacingOccurrences(of: "~/.local/bin/", with: bin.path + "/"),
            ])
        try #require(install.status == 0, "\(install)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: bin.path) == ["storefront"],
            "one file, nothing beside it")
        let host = try await Session(binary: binary)
        let device = try await Session(binary: binary)
        for session in [host, device] { session.environment["PATH"] = "\(bin.path):/usr/bin:/bin" }
        let tls = try await AccountServerTests.certificate(in: host.stateDirectory, name: "team")
        let receiver = try await Receiver(arguments: ["--tls", tls.certificate.path, tls.key.path])
        let server = try await Server(
            host,
            arguments: [
                "--host", "127.0.0.1", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path, "--ca-file",
                tls.certificate.path,
            ])
        #expect(server.base.hasPrefix("https://127.0.0.1:"))
        let token = try await host.run(["developer-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        device.environment["STOREFRONT_SERVER"] = server.base
        device.environment["STOREFRONT_CA_FILE"] = tls.certificate.path
        device.environment["STOREFRONT_DEVELOPER_TOKEN"] = token
        try await device.run(["webhook", "set", "https://127.0.0.1:\(receiver.port)/apple"]).expectSuccess()
        try await device.signUp("ann")
        try await device.run(["buy", "com.storefront.sub.3months"]).expectSuccess()
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
        // The screen of the copy, on the same server, in a real terminal.
        let screen = try await TmuxSession(
            command: device.screenCommand(
                arguments: ["--user", "ann"], extraEnvironment: ["STOREFRONT_PASSWORD": "pw-ann"]))
        try await screen.waitFor("Subscribed! Expires: 16/04/2026")
        try await screen.send("q")
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test("--generate-completion-script writes bash, zsh and fish completion")
    func completion() async throws {
        let session = try await Session()
        for (shell, marker) in [
            ("bash", "-F _storefront storefront"), ("zsh", "#compdef storefront"), ("fish", "complete -c 'storefront'"),
        ] {
            let result = try await session.run(["--generate-completion-script", shell])
            #expect(result.status == 0 && result.stdout.contains(marker), "\(shell): \(result.stdout.prefix(200))")
        }
    }

    @Test(
        "a scenario names its catalog (beside it or shipped); a missing one or a late catalog line is one clear line, exit 2"
    )
    func scenarioCatalog() async throws {
        let session = try await Session()
        let folder = session.stateDirectory.appendingPathComponent("scenarios")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let shipped = folder.appendingPathComponent("shipped.scenario")
        try "catalog selfies.json\nsign up ann\nbuy \"All Access (Monthly)\"\nexpect plan \"free trial\"\n".write(
            to: shipped, atomically: true, encoding: .utf8)
        let passed = try await session.run(["scenario", "check", shipped.path])
        #expect(passed.status == 0 && passed.stdout.contains("1 passed, 0 failed"), "\(passed)")
        let missing = folder.appendingPathComponent("missing.scenario")
        try "catalog nowhere.json\nsign up ann\n".write(to: missing, atomically: true, encoding: .utf8)
        let refused = try await session.run(["scenario", "check", missing.path])
        #expect(
            refused.status == 2 && refused.stderr.contains("missing.scenario:1: catalog \"nowhere.json\""), "\(refused)"
        )
        let late = folder.appendingPathComponent("late.scenario")
        try "sign up ann\ncatalog selfies.json\n".write(to: late, atomically: true, encoding: .utf8)
        let lateResult = try await session.run(["scenario", "check", late.path])
        #expect(
            lateResult.status != 0
                && lateResult.stdout.contains("late.scenario:2: \"catalog\" must come before every other step"),
            "\(lateResult)")
    }
}

/// Copies a program that will then be run. The copy is written by `cp`, a process of its own:
/// while this test process held the new file open for writing, any child another test spawned in
/// that moment inherited the descriptor, and running the copy failed with "Text file busy"
/// (ETXTBSY) for as long as such a child lived.
func copyExecutable(_ source: URL, to destination: URL) async throws {
    let copy = try await runProgram(URL(fileURLWithPath: "/bin/cp"), [source.path, destination.path])
    guard copy.status == 0 else { throw CocoaError(.fileWriteUnknown) }
}

// The command line's `--json` outputs, byte for byte: each is compared with its golden file in
// Tests/Fixtures/golden, after what changes from run to run (transaction, order and app
// transaction ids, UUIDs, signatures, the state folder) is replaced by a placeholder numbered in
// the order it first appears. A change to how an output is written, not only to what it says,
// fails here. STOREFRONT_UPDATE_GOLDEN=1 writes the files anew, to be read as a diff and committed.
import Foundation
import Testing

@Suite("The command line's --json outputs, byte for byte against their golden files")
struct JSONGoldenTests {
    static let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/golden")

    /// Runs each command with `--json` and keeps what it printed, under a name.
    final class Recorder {
        let session: Session
        var outputs: [(name: String, text: String)] = []

        init(_ session: Session) { self.session = session }

        func record(_ name: String, _ arguments: [String], environment: [String: String] = [:]) async throws {
            let result = try await session.run(arguments + ["--json"], environment: environment)
            #expect(result.status == 0, "\(name): \(result)")
            outputs.append((name, Self.normalized(result.stdout, folder: session.stateDirectory.path)))
        }

        /// The output with what differs between runs replaced by numbered placeholders.
        static func normalized(_ text: String, folder: String) -> String {
            var text = text.replacingOccurrences(of: folder, with: "<state>")
            let patterns: [(pattern: String, name: String)] = [
                ("eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+", "jws"),
                // A certificate of the state folder's own chain (a JWS header's x5c).
                ("MII[A-Za-z0-9+/]{200,}={0,2}", "certificate"),
                ("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", "uuid"),
                ("(?<![0-9])[0-9]{16}(?![0-9])", "id"),
                ("(?<=\"orderId\": \")[0-9A-Z]{11}(?=\")", "order"),
            ]
            for (pattern, name) in patterns {
                let expression = try! NSRegularExpression(pattern: pattern)
                var numbers: [String: Int] = [:]
                var result = ""
                var last = text.startIndex
                for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let range = Range(match.range, in: text)!
                    let found = String(text[range])
                    let number = numbers[found] ?? numbers.count + 1
                    numbers[found] = number
                    result += text[last..<range.lowerBound] + "<\(name)-\(number)>"
                    last = range.upperBound
                }
                text = result + text[last...]
            }
            return text
        }
    }

    @Test(
        "every --json output of a purchase, a plan, a price change, a refund request, a family and the settings is what its golden file says, byte for byte"
    )
    func outputs() async throws {
        let comics = Recorder(try await Session())
        let password = ["STOREFRONT_PASSWORD": "pw"]
        try await comics.record("account-signup", ["account", "signup", "ann"], environment: password)
        try await comics.record("account", ["account", "whoami"])
        try await comics.record("products", ["products"])
        try await comics.record("buy-comic", ["buy", "Night Shift"])
        try await comics.session.run(["clock", "advance", "1m"]).expectSuccess()
        try await comics.record("buy-pack", ["buy", "com.storefront.randomviews"])
        try await comics.session.run(["clock", "advance", "1m"]).expectSuccess()
        try await comics.record("buy-subscription", ["buy", "com.storefront.sub.3months"])
        try await comics.session.run(["clock", "advance", "1m"]).expectSuccess()
        try await comics.record("buy-deferred", ["buy", "Cat Judge", "--outcome", "defer"])
        try await comics.record("pending", ["pending"])
        try await comics.record("status", ["status"])
        try await comics.record("history", ["history"])
        try await comics.record("receipt", ["receipt"])
        try await comics.record("restore", ["restore"])
        try await comics.record("clock", ["clock"])
        try await comics.record("policy", ["policy"])
        try await comics.record("errors", ["errors", "show"])
        let pack = try #require(
            try await comics.session.array(["history"]).first {
                $0["product"] as? String == "com.storefront.randomviews"
            }?[
                "id"] as? String)
        try await comics.record("refund-ask", ["refund-request", "ask", pack])
        try await comics.record("refund-list", ["refund-request", "list"])
        try await comics.record("family-create", ["family", "create"])
        try await comics.session.run(["account", "signup", "bo", "--device", "tablet"], environment: password)
            .expectSuccess()
        try await comics.record("family-add", ["family", "add", "bo"])
        try await comics.record("family-accept", ["family", "accept", "--device", "tablet"])
        try await comics.record("notifications", ["notifications", "list"])
        try await comics.record("notifications-deliver", ["notifications", "deliver"])
        try await comics.record("transaction", ["transaction", pack])
        try await comics.record("billing", ["billing"])
        try await comics.record("grace", ["grace"])
        try await comics.record("webhook", ["webhook"])
        try await comics.record("app", ["app"])
        try await comics.record("sessions", ["account", "sessions", "list"])
        try await comics.record("refund-policy", ["refund-request", "policy"])
        try await comics.record("messages", ["messages"])
        try await comics.record("catalog-check", ["catalog", "check"])
        try await comics.record("reset-device", ["reset-device", "--device", "tablet"])
        let points = try await comics.session.run(["crash-points", "--json"])
        comics.outputs.append(("crash-points", points.stdout))

        let selfies = Recorder(try await Session())
        selfies.session.environment["STOREFRONT_CATALOG"] =
            repositoryRoot.appendingPathComponent(
                "assets/selfies.json"
            ).path
        try await selfies.session.signUp("cy")
        let monthly = "com.storefront.selfies.sub.allaccess.monthly"
        try await selfies.record("selfies-buy", ["buy", monthly])
        try await selfies.record("selfies-price-set", ["price", "set", monthly, "6.99", "--consent-required"])
        try await selfies.record("selfies-price-list", ["price", "list"])
        try await selfies.record("selfies-subscriptions", ["subscriptions"])
        try await selfies.record("selfies-cancel", ["cancel", monthly])
        try await selfies.record("selfies-renew-on", ["renew-on", monthly])
        try await selfies.record("selfies-price-consent", ["price", "consent", monthly])
        try await selfies.record(
            "selfies-codes-create", ["offer-codes", "create", "SPRING-PROMO", "--custom", "SPRING", "--limit", "3"])
        try await selfies.record("selfies-codes", ["offer-codes", "list"])

        let yearly = Recorder(try await Session.yearly(signedUp: "cy"))
        try await yearly.record("yearly-products", ["products"])
        try await yearly.record("yearly-buy", ["buy", "y.all", "--billing", "monthly"])
        try await yearly.record("yearly-price-set", ["price", "set", "y.all", "5.49", "--billing", "monthly"])
        try await yearly.record("yearly-subscriptions", ["subscriptions"])

        let all = comics.outputs + selfies.outputs + yearly.outputs
        let update = ProcessInfo.processInfo.environment["STOREFRONT_UPDATE_GOLDEN"] == "1"
        if update { try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true) }
        for (name, text) in all {
            let file = Self.folder.appendingPathComponent("\(name).json")
            if update {
                try Data(text.utf8).write(to: file)
                continue
            }
            let golden = try? String(contentsOf: file, encoding: .utf8)
            #expect(golden != nil, "no golden file \(file.path) (STOREFRONT_UPDATE_GOLDEN=1 writes it)")
            if let golden, golden != text {
                Issue.record(
                    "\(name): the output differs from Tests/Fixtures/golden/\(name).json at line \(Self.firstDifference(golden, text))\n--- golden\n\(golden)\n--- now\n\(text)"
                )
            }
        }
        // A golden file no output is compared with is a check that no longer runs.
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            $0.hasSuffix(".json")
        }
        let names = Set(all.map { "\($0.name).json" })
        #expect(Set(files) == names, "golden files without an output: \(Set(files).subtracting(names).sorted())")
    }

    static func firstDifference(_ a: String, _ b: String) -> Int {
        let (left, right) = (
            a.split(separator: "\n", omittingEmptySubsequences: false),
            b.split(separator: "\n", omittingEmptySubsequences: false)
        )
        for index in 0..<max(left.count, right.count)
        where index >= left.count || index >= right.count || left[index] != right[index] {
            return index + 1
        }
        return 0
    }

    @Test(
        "the placeholders: ids, UUIDs, signatures and order ids are numbered by first appearance, the rest is untouched"
    )
    func normalization() {
        let text = """
            {"id": "1234567890123456", "original": "1234567890123456", "other": "6543210987654321",
             "uuid": "0F8FAD5B-D9CB-469F-A165-70867728950E", "orderId": "MABCDEFGHIJ", "price": "0.99",
             "signed": "eyJhbGci.eyJzdWIi.c2lnbmF0dXJl", "in": "/tmp/x/state.sqlite"}
            """
        #expect(
            Recorder.normalized(text, folder: "/tmp/x") == """
                {"id": "<id-1>", "original": "<id-1>", "other": "<id-2>",
                 "uuid": "<uuid-1>", "orderId": "<order-1>", "price": "0.99",
                 "signed": "<jws-1>", "in": "<state>/state.sqlite"}
                """)
    }
}

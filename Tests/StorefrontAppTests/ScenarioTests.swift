// Scenarios: every shipped one passes headless; a wrong expectation fails with its line.
import Foundation
import StoreCore
import StoreModel
import Testing

@testable import StorefrontApp

let shippedFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("assets")

func runScenario(_ text: String, file: String = "test.scenario", catalog catalogFile: String = "catalog.json") throws
    -> ScenarioResult
{
    let catalog = try CatalogLoader.load(contentsOf: shippedFolder.appendingPathComponent(catalogFile)).catalog
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    return try ScenarioRunner(catalog: catalog, stateDirectory: folder).run(
        try ScenarioParser.parse(text, file: file), file: file)
}

@Suite("Scenarios")
struct ScenarioTests {
    static let shipped: [String] =
        (try? FileManager.default.contentsOfDirectory(atPath: shippedFolder.appendingPathComponent("scenarios").path))?
        .filter { $0.hasSuffix(".scenario") }.sorted() ?? []

    @Test("every shipped scenario passes", arguments: shipped)
    func shippedScenario(name: String) throws {
        let text = try String(contentsOf: shippedFolder.appendingPathComponent("scenarios/\(name)"), encoding: .utf8)
        // A scenario that names its catalog runs on it, as `storefront scenario check` runs it.
        let firstStep = text.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty }
        let named = firstStep.flatMap { $0.hasPrefix("catalog ") ? "scenarios/" + $0.dropFirst(8) : nil }
        let result = try runScenario(text, file: name, catalog: named ?? "catalog.json")
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(!result.expectations.isEmpty)
        for expectation in result.expectations where !expectation.passed {
            Issue.record("\(name):\(expectation.line): \(expectation.text) — \(expectation.detail ?? "")")
        }
    }

    static let selfies: [String] =
        (try? FileManager.default.contentsOfDirectory(
            atPath: shippedFolder.appendingPathComponent("scenarios/selfies").path))?
        .filter { $0.hasSuffix(".scenario") }.sorted() ?? []

    @Test("every shipped RW Selfies scenario passes on assets/selfies.json", arguments: selfies)
    func selfiesScenario(name: String) throws {
        let text = try String(
            contentsOf: shippedFolder.appendingPathComponent("scenarios/selfies/\(name)"), encoding: .utf8)
        let result = try runScenario(text, file: name, catalog: "selfies.json")
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.expectations.count >= 5)
        for expectation in result.expectations where !expectation.passed {
            Issue.record("\(name):\(expectation.line): \(expectation.text) — \(expectation.detail ?? "")")
        }
    }

    @Test(
        "M4 the commitment year on assets/yearly.json passes headless: twelve monthly payments, a failed month with no grace, its recovery moving the commitment's end, a rise of the monthly price agreed to for the next commitment, a cancel that lets the months run out"
    )
    func commitmentYear() throws {
        let text = try String(
            contentsOf: shippedFolder.appendingPathComponent("scenarios/yearly/commitment-year.scenario"),
            encoding: .utf8)
        let result = try runScenario(text, file: "commitment-year.scenario", catalog: "yearly.json")
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.expectations.count >= 8)
        for expectation in result.expectations where !expectation.passed {
            Issue.record("\(expectation.line): \(expectation.text) — \(expectation.detail ?? "")")
        }
    }

    @Test("the selfies set is there")
    func selfiesSet() {
        #expect(
            Self.selfies == [
                "billing.scenario", "intro-eligibility.scenario", "notifications.scenario", "offer-codes.scenario",
                "price-increase.scenario", "promotional-offer.scenario", "receipt-upload.scenario",
                "retention.scenario",
                "trial-and-renewals.scenario", "upgrade.scenario", "win-back.scenario",
            ])
    }

    @Test("the shipped set tells the whole story")
    func shippedSet() {
        for name in [
            "in-app-rage", "ask-to-buy", "failures", "interrupted", "slow-card", "expiry", "second-device",
            "two-devices", "delete-and-restore", "crash-after-payment",
        ] {
            #expect(Self.shipped.contains("\(name).scenario"), "\(name) is missing")
        }
    }

    @Test(
        "RESCIND_CONSENT in a scenario: family consent NAME withdraw tells the developer; give sends nothing more; a word other than withdraw or give is refused at its line"
    )
    func consentSteps() throws {
        let result = try runScenario(
            """
            sign up theo password secret
            sign out
            sign up mia password secret
            family create
            family add theo
            sign out
            sign in theo password secret
            family accept
            sign out
            sign in mia password secret
            family consent theo withdraw
            family consent theo give
            sign out
            sign in theo password secret
            expect notification RESCIND_CONSENT
            """)
        #expect(result.error == nil && result.passed, "\(result.expectations.map { "\($0.text): \($0.detail ?? "")" })")
        #expect(throws: ScenarioError(file: "s.scenario", line: 1, message: "\"maybe\" is not withdraw or give")) {
            try ScenarioParser.parse("family consent theo maybe", file: "s.scenario")
        }
    }

    @Test(
        "M4 buy PRODUCT monthly: the step buys the monthly billing plan; the screen's purchase of it is recorded as that step and reads back the same; a plan without one fails at its line"
    )
    func monthlyStep() throws {
        let result = try runScenario(
            """
            sign up cy password secret
            buy "All Access (Yearly)" monthly
            expect plan "month 1 of 12 of a commitment that renews"
            """, catalog: "yearly.json")
        #expect(result.error == nil && result.passed, "\(result.expectations.map { "\($0.text): \($0.detail ?? "")" })")
        let refused = try runScenario(
            "sign up cy password secret\nbuy y.lite monthly\nexpect plan \"month 1\"", catalog: "yearly.json")
        #expect(!refused.passed, "Lite (Yearly) has no monthly plan")
        let catalog = try CatalogLoader.load(contentsOf: shippedFolder.appendingPathComponent("yearly.json")).catalog
        let recorder = ScenarioRecorder(catalog: catalog, title: "t")
        recorder.record(.buyBilled("y.all", .monthly))
        recorder.record(.buyBilled("y.all", .billedUpfront))
        #expect(
            recorder.lines.suffix(2) == ["buy \"All Access (Yearly)\" monthly", "buy \"All Access (Yearly)\" upfront"])
        let steps = try ScenarioParser.parse(recorder.lines.joined(separator: "\n"), file: "r.scenario")
        #expect(
            steps.suffix(2).map(\.kind) == [
                .buyBilled("All Access (Yearly)", .monthly), .buyBilled("All Access (Yearly)", .billedUpfront),
            ])
    }

    @Test(
        "M4 in retention messaging: the endpoint's alternate product with a billing plan (the plan one has, billed monthly) is shown and, accepted, switches the billing plan at the next renewal; the same plan with no billing plan, or a monthly plan a product does not have, is no choice and the default shows"
    )
    func retentionBillingPlan() throws {
        let result = try runScenario(
            """
            sign up cy password secret
            buy "All Access (Yearly)"
            retention message "Pay monthly" "Keep it, twelve payments."
            retention answer switch "All Access (Yearly)"
            cancel "All Access (Yearly)"
            expect retention message none
            expect plan "cancelled"
            retention answer switch "Lite (Yearly)" monthly
            accept retention "All Access (Yearly)"
            expect retention message none
            retention answer switch "All Access (Yearly)" monthly
            accept retention "All Access (Yearly)"
            expect retention message "Pay monthly"
            expect plan "renews 15/01/2027, then monthly with a 12-month commitment"
            advance 1y
            expect plan "month 1 of 12 of a commitment that renews"
            """, catalog: "yearly.json")
        #expect(
            result.error == nil && result.passed,
            "\(String(describing: result.error)) \(result.expectations.map { "\($0.text): \($0.passed) \($0.detail ?? "")" })"
        )
        #expect(throws: ScenarioError.self) {
            try ScenarioParser.parse("retention answer switch y.all weekly", file: "s.scenario")
        }
        #expect(throws: ScenarioError.self) {
            try ScenarioParser.parse("price set y.all 5.49 weekly", file: "s.scenario")
        }
    }

    @Test("a deliberately wrong expectation fails with its line number and what was seen")
    func wrongExpectation() throws {
        let result = try runScenario(
            """
            # a comment
            buy "Night Shift"
            expect row "Night Shift" shows ✓

            expect views 3
            expect header "Subscribed! Expires: 01/01/2030 (9 Days)"
            """)
        #expect(!result.passed)
        #expect(result.expectations.map(\.passed) == [true, false, false])
        #expect(result.expectations[1].line == 5)
        #expect(result.expectations[1].detail == "0 views left")
        #expect(result.expectations[2].detail == "the header says \"Not Subscribed\"")
    }

    @Test("errors in a scenario name the file, the line and what was expected")
    func parseErrors() {
        #expect(
            throws: ScenarioError(
                file: "s.scenario", line: 2,
                message: "\"fly away\" is not a step I know (docs/scenarios.md lists the steps)")
        ) {
            try ScenarioParser.parse("sign out\nfly away", file: "s.scenario")
        }
        // The command line's words for an account get the step's own.
        #expect(
            throws: ScenarioError(
                file: "s.scenario", line: 1,
                message:
                    "\"signup ann\" is not a step I know: did you mean \"sign up NAME password P\"? (docs/scenarios.md lists the steps)"
            )
        ) {
            try ScenarioParser.parse("signup ann", file: "s.scenario")
        }
        #expect(
            throws: ScenarioError(
                file: "s.scenario", line: 1,
                message:
                    "\"account logout\" is not a step I know: did you mean \"sign out\"? (docs/scenarios.md lists the steps)"
            )
        ) {
            try ScenarioParser.parse("account logout", file: "s.scenario")
        }
        #expect(throws: ScenarioError.self) { try ScenarioParser.parse("advance soon", file: "s.scenario") }
        #expect(throws: ScenarioError.self) { try ScenarioParser.parse("advance 2 weeks later", file: "s.scenario") }
        #expect(throws: ScenarioError.self) { try ScenarioParser.parse("clock advance", file: "s.scenario") }
        // A duration in words is the rest of the line, as on the command line.
        let steps = try? ScenarioParser.parse(
            "advance 2 weeks\nclock advance 1 month 2 days\nadvance 3mo", file: "s.scenario")
        #expect(
            steps?.map(\.kind) == [
                .advance(.days(14)), .advance(StoreDuration(months: 1, days: 2)), .advance(.months(3)),
            ])
        #expect(throws: ScenarioError.self) {
            try ScenarioParser.parse("expect row \"X\" says Buy", file: "s.scenario")
        }
        // O1: the developer's word on the introductory offer is allow or withhold.
        #expect(
            throws: ScenarioError(
                file: "s.scenario", line: 1, message: "buy … intro takes allow or withhold, not \"maybe\"")
        ) {
            try ScenarioParser.parse("buy \"All Access (Monthly)\" intro maybe", file: "s.scenario")
        }
        let intro = try? ScenarioParser.parse("buy \"All Access (Monthly)\" intro withhold", file: "s.scenario")
        #expect(intro?.map(\.kind) == [.buyIntro("All Access (Monthly)", allow: false)])
    }

    @Test("O1 the screen's introductory offer again is recorded as a step that parses back to the same purchase")
    func introRecorded() throws {
        let catalog = try CatalogLoader.load(contentsOf: shippedFolder.appendingPathComponent("selfies.json")).catalog
        let recorder = ScenarioRecorder(catalog: catalog, title: "intro")
        recorder.record(.buyIntro(productID: "com.storefront.selfies.sub.allaccess.monthly", allow: true))
        let line = try #require(recorder.lines.last)
        #expect(line == "buy \"All Access (Monthly)\" intro allow")
        #expect(
            try ScenarioParser.parse(line, file: "r.scenario").map(\.kind) == [
                .buyIntro("All Access (Monthly)", allow: true)
            ])
    }

    @Test("an unknown product stops the scenario at its line")
    func unknownProduct() throws {
        let result = try runScenario("buy \"Nope\"\nexpect views 0")
        #expect(
            result.error
                == ScenarioError(
                    file: "test.scenario", line: 1,
                    message: "no product \"Nope\" in the catalog (use its id or its title)"))
    }
}

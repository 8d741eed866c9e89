// Reads a scenario file: one step a line, comments and blank lines skipped, each line's words
// parsed into a step or refused with the file, the line and why.
import Foundation
import StoreCore
import StoreModel

public enum ScenarioParser {
    public static func parse(_ text: String, file: String) throws(ScenarioError) -> [ScenarioStep] {
        var steps: [ScenarioStep] = []
        for (index, rawLine) in text.components(separatedBy: "\n").enumerated() {
            let line = strip(rawLine)
            guard !line.isEmpty else { continue }
            let number = index + 1
            let step: ScenarioStep
            do {
                step = ScenarioStep(line: number, text: line, kind: try kind(of: line))
            } catch {
                throw ScenarioError(file: file, line: number, message: error.message)
            }
            if case .catalog = step.kind, !steps.isEmpty {
                throw ScenarioError(file: file, line: number, message: "\"catalog\" must come before every other step")
            }
            steps.append(step)
        }
        return steps
    }

    struct Problem: Error { let message: String }

    /// The line without its comment (a `#` outside quotes).
    static func strip(_ line: String) -> String {
        var inQuotes = false
        var result = ""
        for character in line {
            if character == "\"" { inQuotes.toggle() }
            if character == "#", !inQuotes { break }
            result.append(character)
        }
        return result.trimmingCharacters(in: .whitespaces)
    }

    /// Splits into words, keeping "quoted phrases" whole.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inQuotes = false
        for character in line {
            if character == "\"" {
                if inQuotes {
                    words.append(current)
                    current = ""
                }
                inQuotes.toggle()
            } else if character == " ", !inQuotes {
                if !current.isEmpty {
                    words.append(current)
                    current = ""
                }
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static func kind(of line: String) throws(Problem) -> ScenarioStep.Kind {
        let w = words(line)
        func word(_ index: Int, _ what: String) throws(Problem) -> String {
            guard index < w.count else { throw Problem(message: "\"\(line)\": expected \(what)") }
            return w[index]
        }
        func outcome(_ text: String) throws(Problem) -> PurchaseOutcome {
            do { return try PurchaseOutcome(parsing: text) } catch { throw Problem(message: error.description) }
        }
        func password(after index: Int) -> String {
            w.count > index + 1 && w[index] == "password" ? w[index + 1] : "secret"
        }
        let lower = w.map { $0.lowercased() }
        switch (lower.first ?? "", lower.count > 1 ? lower[1] : "") {
        case ("catalog", _): return .catalog(try word(1, "a catalog file"))
        case ("device", _): return .device(try word(1, "a device name"))
        case ("sign", "up"): return .signUp(try word(2, "an account name"), password: password(after: 3))
        case ("sign", "in"): return .signIn(try word(2, "an account name"), password: password(after: 3))
        case ("sign", "out"): return .signOut
        case ("policy", _): return .policy(try outcome(try word(1, "an outcome")))
        case ("buy", _):
            let product = try word(1, "a product (its id or \"its title\")")
            if w.count >= 4, lower[2] == "with" { return .buy(product, outcome: try outcome(w[3])) }
            if w.count >= 4, lower[2] == "win-back" { return .buyWinBack(product, offer: w[3]) }
            if w.count >= 3, lower[2] == "intro" {
                let word = w.count > 3 ? lower[3] : ""
                guard w.count == 4, ["allow", "withhold"].contains(word) else {
                    throw Problem(
                        message: "buy … intro takes allow or withhold, not \"\(w.dropFirst(3).joined(separator: " "))\""
                    )
                }
                return .buyIntro(product, allow: word == "allow")
            }
            if w.count == 3, lower[2] == "monthly" { return .buyBilled(product, .monthly) }
            if w.count == 3, lower[2] == "upfront" { return .buyBilled(product, .billedUpfront) }
            if w.count >= 3, lower[2] == "offer" {
                let offer = try word(3, "a promotional offer id")
                let styleText = w.count > 4 ? lower[4] : "signed"
                guard let style = ScenarioStep.OfferSignatureStyle(rawValue: styleText) else {
                    throw Problem(
                        message:
                            "\"\(styleText)\" is not a signature (\(ScenarioStep.OfferSignatureStyle.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                return .buyOffer(product, offer: offer, signature: style)
            }
            return .buy(product, outcome: nil)
        case ("refund-request", _):
            let what = try word(1, "a product, or approve, decline, reverse")
            if let answer = ScenarioStep.RefundAnswer(rawValue: what.lowercased()) { return .refundAnswer(answer) }
            let reasonText = w.count > 2 ? w[2] : "other"
            guard let reason = RefundReason(argument: reasonText) else {
                throw Problem(
                    message:
                        "\"\(reasonText)\" is not a reason (\(RefundReason.allCases.map(\.argument).joined(separator: ", ")))"
                )
            }
            return .refundRequest(what, reason: reason)
        case ("family", "create"): return .family(.create)
        case ("family", "add"): return .family(.add(try word(2, "an account")))
        case ("family", "accept"): return .family(.accept)
        case ("family", "leave"): return .family(.leave(try word(2, "a member")))
        case ("family", "share"):
            let product = try word(2, "a product")
            let state = try word(3, SharingWord.choices)
            guard let sharing = SharingWord(word: state) else {
                throw Problem(message: "\"\(state)\" is not \(SharingWord.choices)")
            }
            return .family(.share(product, on: sharing == .on))
        case ("family", "consent"):
            let member = try word(2, "a member")
            let state = try word(3, ConsentWord.choices)
            guard let consent = ConsentWord(word: state) else {
                throw Problem(message: "\"\(state)\" is not \(ConsentWord.choices)")
            }
            return .family(.consent(member, withdrawn: consent == .withdraw))
        case ("refund-policy", _):
            let text = try word(1, "manual, approve or decline")
            guard let policy = RefundPolicy(rawValue: text.lowercased()) else {
                throw Problem(message: "\"\(text)\" is not manual, approve or decline")
            }
            return .refundPolicy(policy)
        case ("offer", "code"):
            guard w.count >= 7, lower[3] == "custom", lower[5] == "limit", let limit = Int(w[6]), limit > 0 else {
                throw Problem(message: "\"\(line)\": expected offer code OFFER custom CODE limit N")
            }
            return .makeCustomCode(offer: w[2], code: w[4], limit: limit)
        case ("redeem", _): return .redeem(try word(1, "a code offer, a code, or last"))
        case ("approve", _): return .approve(w.count > 1 && lower[1] != "last" ? w[1] : nil)
        case ("decline", _): return .decline(w.count > 1 && lower[1] != "last" ? w[1] : nil)
        case ("resolve", _): return .resolve(w.count > 1 && lower[1] != "last" ? w[1] : nil)
        case ("restore", _): return .restore
        case ("reset", "device"): return .resetDevice
        case ("advance", _), ("clock", "advance"):
            // The rest of the line: `advance 3mo`, or in words, `advance 2 weeks`.
            let first = lower[0] == "clock" ? 2 : 1
            _ = try word(first, "a duration like 1d or 3mo")
            let text = w[first...].joined(separator: " ")
            do { return .advance(try StoreDuration(parsing: text)) } catch { throw Problem(message: error.description) }
        case ("clock", "set"), ("clock", "freeze"):
            let text = try word(2, "an ISO 8601 time")
            let formatter = ISO8601DateFormatter()
            guard let date = formatter.date(from: text) else {
                throw Problem(message: "\"\(text)\" is not an ISO 8601 time like 2026-01-15T12:00:00Z")
            }
            return .setClock(date)
        case ("random", _): return .random
        case ("crash", _): return .crashAfterPayment
        case ("restart", _): return .restart
        case ("caption", _): return .caption(w.dropFirst().joined(separator: " "))
        case ("pause", _): return .pause
        case ("open", _): return .open(try word(1, "a screen (list, random, transactions) or a product in quotes"))
        case ("expect", "header"): return .expectHeader(try word(2, "the header text in quotes"))
        case ("expect", "row"):
            guard w.count >= 5, lower[3] == "shows" else {
                throw Problem(message: "\"\(line)\": expected expect row \"TITLE\" shows TEXT")
            }
            return .expectRow(w[2], shows: w[4...].joined(separator: " "))
        case ("expect", "transaction"):
            let what = try word(2, "state or reason")
            let value = try word(3, "a value")
            if what == "state" {
                guard let state = TransactionState(rawValue: value) else {
                    throw Problem(message: "unknown state \"\(value)\"")
                }
                return .expectState(state)
            }
            guard let reason = FailureReason(rawValue: value) else {
                throw Problem(message: "unknown reason \"\(value)\"")
            }
            return .expectReason(reason)
        case ("expect", "views"):
            guard let count = Int(try word(2, "a number")) else {
                throw Problem(message: "\"\(w[2])\" is not a number")
            }
            return .expectViews(count)
        case ("expect", "owned"): return .expectOwned(try word(2, "a product"), true)
        case ("expect", "not"): return .expectOwned(try word(3, "a product"), false)
        case ("expect", "user"):
            let name = try word(2, "a name or guest")
            return .expectUser(name == "guest" ? nil : name)
        case ("expect", "error"): return .expectError(try word(2, "part of the message"))
        case ("expect", "plan"): return .expectPlan(try word(2, "part of the plan's summary in quotes"))
        case ("retention", _): return .retention(try RetentionStep.parse(w))
        case ("accept", "retention"): return .retention(.accept(try word(2, "a plan's product")))
        case ("expect", "retention"): return .expectRetention(try word(3, "the message's header in quotes, or none"))
        case ("upload", "receipt"): return .uploadReceipt
        case ("expect", "upload"): return .expectUpload(try word(2, "part of SelfieService's answer in quotes"))
        case ("expect", "storefront"): return .expectStorefront(try word(2, "a storefront's alpha-3 code").uppercased())
        case ("cancel", _), ("renew-on", _), ("expire", _), ("force-renew", _), ("refund", _):
            let command = PlanCommand(rawValue: lower[0])!
            return .plan(command, try word(1, "a product of the plan's group"))
        case ("price", "consent"): return .plan(.acceptPrice, try word(2, "a product of the plan's group"))
        case ("price", "decline"): return .plan(.declinePrice, try word(2, "a product of the plan's group"))
        case ("price", "set"):
            let product = try word(2, "a product")
            let text = try word(3, "a price such as 7.99")
            guard PriceText.isPlainDecimal(text), let price = Decimal(string: text) else {
                throw Problem(message: "\"\(text)\" is not a price like 7.99")
            }
            let options = lower.dropFirst(4)
            if let unknown = options.first(where: { $0 != "consent-required" && $0 != "monthly" }) {
                throw Problem(message: "\"\(unknown)\" is not monthly or consent-required")
            }
            return .setPrice(
                product, price, billingPlan: options.contains("monthly") ? .monthly : .billedUpfront,
                consentRequired: options.contains("consent-required"))
        case ("billing", _):
            let text = try word(1, "ok or fail")
            do { return .billing(failing: try BillingSetting.failing(parsing: text)) } catch {
                throw Problem(message: error.description)
            }
        case ("error", _):
            let name = try word(1, "a StoreKit API such as purchase or load-products")
            guard let api = StoreKitAPI(argument: name) else {
                throw Problem(
                    message:
                        "\"\(name)\" is not a StoreKit API (\(StoreKitAPI.allCases.map(\.argument).joined(separator: ", ")))"
                )
            }
            let text = try word(2, "an error such as networkError, or off")
            if text.lowercased() == "off" { return .simulatedError(api, nil) }
            guard let error = SimulatedError(parsing: text, for: api) else {
                throw Problem(message: "\"\(text)\" is not an error \(api.rawValue) can have")
            }
            return .simulatedError(api, error)
        case ("errors", "clear"): return .clearSimulatedErrors
        case ("storefront", _): return .storefront(try word(1, "a storefront's alpha-3 code such as GBR"))
        case ("on-storefront-change", _):
            let text = try word(1, "continue or cancel")
            guard let choice = StorefrontChangeChoice(rawValue: text.lowercased()) else {
                throw Problem(message: "\"\(text)\" is not continue or cancel")
            }
            return .onStorefrontChange(choice)
        case ("webhook", _):
            let url = try word(1, "a URL, or off")
            if url.lowercased() == "off" { return .webhook(nil) }
            guard let url = Webhook.url(from: url) else {
                throw Problem(message: "\"\(url)\" is not an http:// or https:// URL with a host")
            }
            return .webhook(url)
        case ("expect", "notification"):
            let type = try word(2, "a notification type such as DID_RENEW")
            guard type.allSatisfy({ $0.isUppercase || $0 == "_" }) else {
                throw Problem(message: "\"\(type)\" is not a notification type (SUBSCRIBED, DID_RENEW, …)")
            }
            return .expectNotification(type, subtype: w.count > 3 ? w[3] : nil)
        case ("grace", _):
            let text = try word(1, "off, on or a number of days like 16d")
            do { return .grace(days: try BillingSetting.graceDays(parsing: text)) } catch {
                throw Problem(message: error.description)
            }
        default:
            // The command line's words for an account (`account signup ann`) are one step here.
            let head = lower.first == "account" && lower.count > 1 ? lower[1] : lower.first ?? ""
            let steps = [
                "signup": "sign up NAME password P", "signin": "sign in NAME password P",
                "login": "sign in NAME password P",
                "logout": "sign out", "signout": "sign out",
            ]
            let guess = steps[head].map { ": did you mean \"\($0)\"?" } ?? ""
            throw Problem(message: "\"\(line)\" is not a step I know\(guess) (docs/scenarios.md lists the steps)")
        }
    }
}

// Tried as an attacker would: a stranger signs up on a team server (`storefront serve`,
// on SQLite and on PostgreSQL) and tries every hole an outside tester found, through the command
// line and as raw calls on the wire; each is refused and the victim's data is unchanged. The same
// actions with the developer's token succeed.
import Foundation
import StoreCore
import StoreModel
import StorefrontServer
import TestSupport
import Testing

@Suite(
    "a signed-up stranger on a team server, refused; the developer, allowed", .serialized, .tags(.postgres, .python),
    .notInFastRun)
struct StrangerTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// One raw call on the account server's wire, as any HTTP client can send it.
    struct Wire {
        let base: String

        struct Envelope<Request: Encodable>: Encodable {
            var method: String
            var request: Request
        }

        func call(_ method: String, _ request: some Encodable, session: String? = nil, developer: String? = nil) throws
            -> (status: Int, body: [String: Any])
        {
            var headers: [String: String] = [:]
            if let session { headers["Authorization"] = "Session \(session)" }
            if let developer { headers[AccountWire.developerHeader] = developer }
            let url = try #require(URL(string: base + AccountWire.path))
            let body = try JSONEncoder().encode(Envelope(method: method, request: request))
            switch HTTPCall.post(url, headers: headers, body: body, timeout: 30) {
            case .success(let answer):
                return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) ?? [:])
            case .failure(let problem):
                Issue.record("\(method): \(problem)")
                return (0, [:])
            }
        }

        /// A session of `name`'s, as a sign-in on the wire gives it.
        func session(_ name: String, password: String) throws -> String {
            struct Credentials: Encodable { var name, password, device: String }
            let answer = try call("signIn", Credentials(name: name, password: password, device: "raw"))
            let value = try #require(answer.body["value"] as? [String: Any], "\(answer)")
            return try #require(value["token"] as? String)
        }

        func families(session: String) throws -> [Family] {
            struct None: Encodable {}
            let answer = try call("families", None(), session: session)
            let data = try JSONSerialization.data(withJSONObject: answer.body["value"] ?? [])
            return try JSONDecoder().decode([Family].self, from: data)
        }
    }

    /// What an attack may not touch: the victim's receipt, family and notifications, the member's
    /// comics, and the settings every device shares.
    func victimState(vic: Session, mem: Session, developer: Session) async throws -> [String] {
        [
            String(
                decoding: try JSONSerialization.data(
                    withJSONObject: try await vic.object(["receipt", "--json"]), options: .sortedKeys), as: UTF8.self),
            try await vic.run(["family", "show"]).stdout,
            try await vic.run(["notifications"]).stdout,
            "\(try await mem.object(["status"])["owned"] ?? "")",
            try await developer.run(["webhook"]).stdout,
            try await developer.run(["clock"]).stdout,
            try await developer.run(["billing"]).stdout,
            try await developer.run(["offer-codes", "list"]).stdout,
            try await vic.run(["storefront"]).stdout,
        ]
    }

    @Test(
        "W9 W11 every hole tried by a stranger through the real server is refused and the victim's data is unchanged; the developer's token does the same things",
        arguments: Backend.allCases)
    func strangerRefused(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let (server, token) = (team.server, team.token)
        func machine() async throws -> Session { try await team.machine() }
        let vic = try await machine()
        let mem = try await machine()
        let eve = try await machine()
        let developer = try await machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = token
        let wire = Wire(base: server.base)

        // The victim's world: a family with a member who gets the organizer's shared plan, a
        // webhook, and an offer code the developer made.
        try await developer.run(["clock", "freeze", "2026-05-04T12:00:00Z"]).expectSuccess()
        try await developer.run(["webhook", "set", "http://127.0.0.1:9/team"]).expectSuccess()
        try await developer.run(["offer-codes", "create", "SPRING-PROMO", "--count", "1"]).expectSuccess()
        try await mem.signUp("mem")
        try await vic.signUp("vic")
        try await vic.run(["buy", "com.storefront.selfies.sub.allaccess"]).expectSuccess()
        try await vic.run(["family", "create"]).expectSuccess()
        try await vic.run(["family", "add", "mem"]).expectSuccess()
        try await mem.run(["family", "accept"]).expectSuccess()
        let planned = try await vic.object(["subscriptions"])["plans"] as? [[String: Any]] ?? []
        let purchase = try #require(planned.first?["transaction"] as? String)
        try await eve.signUp("eve")
        let before = try await victimState(vic: vic, mem: mem, developer: developer)

        // The developer's settings, from the command line: each one line, exit 1, naming the action.
        let attempts: [([String], String)] = [
            (["webhook", "set", "http://127.0.0.1:9/eve"], "set the webhook"),
            (["clock", "advance", "1y"], "move the store clock"),
            (["billing", "fail"], "change billing"),
            (["offer-codes", "list"], "list offer codes"),
            (["offer-codes", "create", "SPRING-PROMO", "--count", "5"], "make offer codes"),
            (["errors", "set", "purchase", "networkError"], "set simulated StoreKit errors"),
            (["price", "set", "com.storefront.selfies.sub.allaccess", "0.01"], "change prices"),
        ]
        for (arguments, action) in attempts {
            let refused = try await eve.run(arguments)
            #expect(refused.status == 1, "\(arguments): \(refused)")
            #expect(
                refused.stderr.split(separator: "\n").count == 1
                    && refused.stderr.contains("only the developer may \(action)"), "\(arguments): \(refused.stderr)")
        }
        // The webhook's path may hold the developer's secret: a customer sees only where it goes.
        #expect(try await eve.object(["webhook"])["url"] as? String == "http://127.0.0.1:9/…")
        #expect(try await developer.object(["webhook"])["url"] as? String == "http://127.0.0.1:9/team")
        // A refund answer is the developer's: not of the victim's purchase, nor of the stranger's own.
        let notHers = try await eve.run(["refund-request", "approve", purchase])
        #expect(notHers.status != 0, "\(notHers)")
        try await eve.run(["buy", "com.storefront.selfies.sub.oneaweek"]).expectSuccess()
        let own = try #require(
            (try await eve.object(["subscriptions"])["plans"] as? [[String: Any]])?.first?["transaction"] as? String)
        try await eve.run(["refund-request", own]).expectSuccess()
        let selfApproved = try await eve.run(["refund-request", "approve", own])
        #expect(
            selfApproved.status == 1 && selfApproved.stderr.contains("only the developer may answer refund requests"),
            "\(selfApproved)")
        let policy = try await eve.run(["refund-request", "policy", "approve"])
        #expect(
            policy.status == 1 && policy.stderr.contains("only the developer may answer refund requests"), "\(policy)")
        // A payment's outcome is the App Store's: she neither chooses hers nor sets the policy.
        for (arguments, action) in [
            (["policy", "set", "approve"], "set the payment outcome policy"),
            (["buy", "com.storefront.selfies.sub.allaccess", "--outcome", "approve"], "choose a payment's outcome"),
        ] {
            let chosen = try await eve.run(arguments)
            #expect(chosen.status == 1 && chosen.stderr.contains("only the developer may \(action)"), "\(chosen)")
        }
        let answered = try await eve.run(["approve", purchase, "--account", "vic"])
        #expect(answered.status != 0 && answered.stdout.isEmpty, "nor answers another's payment: \(answered)")
        let refundNow = try await eve.run(["refund", own])
        #expect(refundNow.status == 1 && refundNow.stderr.contains("only the developer may"), "\(refundNow)")

        // Raw calls on the wire with the stranger's own session.
        let eveSession = try wire.session("eve", password: "pw-eve")
        // W6: the stranger reads no one's family; the attacks below use the family as it is (the
        // victim's own session reads it), as if guessed.
        #expect(try wire.families(session: eveSession).isEmpty, "the stranger reads no one's family")
        let vicSession = try wire.session("vic", password: "pw-vic")
        let family = try #require(try wire.families(session: vicSession).first { $0.organizer == "vic" })
        #expect(family.members == ["mem"])
        var joined = family
        joined.members.append("eve")
        var emptied = family
        emptied.members = []
        for (change, what) in [
            (FamilyChange(organizer: "vic", expected: family, new: joined), "joins the victim's family"),
            (FamilyChange(organizer: "vic", expected: family, new: emptied), "empties it"),
            (FamilyChange(organizer: "vic", expected: family, new: nil), "deletes it"),
            (
                FamilyChange(organizer: "vic", expected: family, new: Family(organizer: "eve", members: ["mem"])),
                "takes it over"
            ),
        ] {
            let answer = try wire.call("changeFamily", change, session: eveSession)
            #expect(answer.status == 403, "the stranger \(what): \(answer)")
        }
        // A notification under the victim's name, or anything recorded on the victim's receipt.
        let forged = ServerNotification(key: "expired:vic:selfies", account: "vic", type: "EXPIRED", createdAt: Date())
        #expect(try wire.call("enqueue", [forged], session: eveSession).status == 401)
        struct Record: Encodable {
            var entry: ReceiptEntry
            var timeZone: String
        }
        let refundLine = ReceiptEntry(
            transactionID: "9\(Int.random(in: 100_000_000...999_999_999))", account: "eve",
            productID: "com.storefront.selfies.sub.oneaweek",
            kind: .autoRenewableSubscription, purchaseDate: Date(), device: "raw", event: .refund, reference: own
        )
        #expect(try wire.call("record", Record(entry: refundLine, timeZone: "UTC"), session: eveSession).status == 403)
        var onVictim = refundLine
        onVictim.account = "vic"
        onVictim.event = .purchase
        #expect(try wire.call("record", Record(entry: onVictim, timeZone: "UTC"), session: eveSession).status == 401)
        // F3: the victim's storefront is the victim's to read and move.
        struct Move: Encodable { var account, storefront: String }
        #expect(try wire.call("storefront", "vic", session: eveSession).status == 401)
        #expect(
            try wire.call("setStorefront", Move(account: "vic", storefront: "GBR"), session: eveSession).status == 401)
        struct None: Encodable {}
        #expect(
            try wire.call("retentionSetup", None()).status == 401,
            "the developer's retention setup is not a stranger's to read")
        #expect(try wire.call("retentionImage", "00000000-0000-4000-8000-000000000000").status == 401)
        #expect(try wire.call("replaceRetentionSetup", RetentionSetup(), session: eveSession).status == 403)
        #expect(try wire.call("offerCodes", None()).status == 403, "no token at all")
        #expect(try wire.call("offerCodes", None(), session: eveSession).status == 403)
        #expect(try wire.call("setWebhook", Webhook(url: "http://127.0.0.1:9/eve"), session: eveSession).status == 403)
        // Guessing the victim's password: the same answer as a name nobody has.
        struct Credentials: Encodable { var name, password, device: String }
        let wrong = try wire.call("signIn", Credentials(name: "vic", password: "guess", device: "raw"))
        let nobody = try wire.call(
            "signIn", Credentials(name: "nobody-\(Int.random(in: 0...999_999))", password: "guess", device: "raw"))
        #expect(wrong.status == 401 && nobody.status == 401)
        #expect(
            (wrong.body["error"] as? [String: Any])?["kind"] as? String == (nobody.body["error"] as? [String: Any])?[
                "kind"] as? String)

        let after = try await victimState(vic: vic, mem: mem, developer: developer)
        for (was, now) in zip(before, after) { #expect(was == now, "nothing of the victim's changed") }

        // The developer does the same things.
        try await developer.run(["webhook", "set", "http://127.0.0.1:9/moved"]).expectSuccess()
        try await developer.run(["billing", "fail"]).expectSuccess()
        try await developer.run(["billing", "ok"]).expectSuccess()
        try await developer.run(["offer-codes", "create", "SPRING-PROMO", "--count", "2"]).expectSuccess()
        #expect((try await developer.object(["offer-codes", "list"])["codes"] as? [Any])?.count == 3)
        try await developer.run(["refund-request", "approve", own]).expectSuccess()
        let requests = try await eve.object(["refund-request", "list"])["requests"] as? [[String: Any]] ?? []
        #expect(requests.map { $0["state"] as? String } == ["approved"], "\(requests)")
        #expect(try wire.call("offerCodes", None(), developer: token).status == 200)
        let moved = try wire.call(
            "changeFamily", FamilyChange(organizer: "vic", expected: family, new: emptied), developer: token)
        #expect(moved.status == 200 && moved.body["value"] as? Bool == true, "\(moved)")
        #expect(try wire.families(session: vicSession).first { $0.organizer == "vic" }?.members == [])
        try await developer.run(["clock", "advance", "1d"]).expectSuccess()

        // A hundred guesses of vic's password at once, then 200 names sprayed from one client: the
        // passwords checked (the server's log names each checked failure) are bounded by the waits
        // that could pass while the guesses ran; every answer is the one a wrong password gets.
        for (names, free) in [
            (Array(repeating: "vic", count: 100), 1),
            ((0..<200).map { "name\($0)" }, SignInLimits.addressInFlight + SignInLimits.addressFreeFailures),
        ] {
            let kinds = Locked<[String]>([])
            let before = server.checkedSignInFailures
            let started = Date()
            DispatchQueue.concurrentPerform(iterations: names.count) { index in
                let answer = try? wire.call("signIn", Credentials(name: names[index], password: "guess", device: "raw"))
                kinds.withLock { $0.append((answer?.body["error"] as? [String: Any])?["kind"] as? String ?? "none") }
            }
            let elapsed = Date().timeIntervalSince(started)
            var bound = free
            var waited = 0.0
            while waited <= elapsed {
                waited += SignInLimits.shortWait(after: bound)
                bound += 1
            }
            let checked = server.checkedSignInFailures - before
            #expect(checked >= 1 && checked <= bound, "\(checked) passwords checked in \(elapsed) s (at most \(bound))")
            #expect(kinds.withLock { $0 }.allSatisfy { $0 == "signInRefused" }, "\(Set(kinds.withLock { $0 }))")
        }
        #expect(try await server.stop().status == 0, "\(server.errorsTail)")
    }

    @Test(
        "W9 offers through the raw wire: no device takes a use itself; a stranger is neither granted nor counts another account's win-back offer, and a code is granted no more than its limit",
        arguments: Backend.allCases)
    func claimsAreTheServers(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let developer = try await team.machine()
        let vic = try await team.machine()
        let eve = try await team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        try await vic.signUp("vic")
        try await eve.signUp("eve")
        let made = try await developer.object(["offer-codes", "create", "SPRING-PROMO"])["codes"] as? [String]
        let code = try #require(made?.first)
        let wire = Wire(base: team.server.base)
        let vicSession = try wire.session("vic", password: "pw-vic")
        let eveSession = try wire.session("eve", password: "pw-eve")
        let codes = try await developer.object(["offer-codes", "list"])["codes"] as? [[String: Any]] ?? []
        let product = try #require(codes.first?["product"] as? String)
        func count(_ key: String, session: String) throws -> Int? {
            let answer = try wire.call("claims", key, session: session)
            #expect(answer.status == 200, "\(answer)")
            return answer.body["value"] as? Int
        }
        func grant(_ ask: OfferAsk, session: String) throws -> (status: Int, body: [String: Any]) {
            try wire.call("grantOffer", ask, session: session)
        }

        // No device takes a use itself: the method is gone, whoever calls it.
        for session in [eveSession, vicSession] {
            let taken = try wire.call("claim", ["key": "offer-code:" + code, "account": "eve"], session: session)
            #expect(taken.status == 400 || taken.status == 404, "\(taken)")
        }

        // The victim's win-back offer (O4: once per account): the stranger is granted it neither
        // under her own account nor under his, and cannot count it (which would say that he exists).
        let winBack = "win-back:welcome-back:vic"
        let asked = try grant(
            OfferAsk(
                transactionID: "9100000000000001", account: "vic", productID: product, winBackOfferID: "welcome-back"),
            session: eveSession)
        #expect(asked.status == 401, "the stranger asks the victim's win-back offer: \(asked)")
        let own = try grant(
            OfferAsk(
                transactionID: "9100000000000002", account: "eve", productID: product, winBackOfferID: "welcome-back"),
            session: eveSession)
        #expect(own.status == 400, "a win-back offer for one who never subscribed: \(own)")
        #expect(try wire.call("claims", winBack, session: eveSession).status == 401)
        #expect(try wire.call("claims", winBack).status == 401)
        #expect(try count(winBack, session: vicSession) == 0, "the victim's win-back offer is still his")

        // A one-time code: its one use is granted to whoever redeems it first, and to no one after.
        let first = try grant(
            OfferAsk(transactionID: "9100000000000003", account: "eve", productID: product, code: code),
            session: eveSession)
        let offer = (first.body["value"] as? [String: Any])?["offer"] as? [String: Any]
        #expect(first.status == 200 && offer?["type"] as? Int == OfferType.code.rawValue, "\(first)")
        let past = try grant(
            OfferAsk(transactionID: "9100000000000004", account: "vic", productID: product, code: code.lowercased()),
            session: vicSession)
        #expect(past.status == 400, "a use past the code's limit: \(past)")
        let again = try grant(
            OfferAsk(transactionID: "9100000000000003", account: "eve", productID: product, code: code),
            session: eveSession)
        #expect(again.status == 400, "the same code for the same transaction again: \(again)")
        let none = try grant(
            OfferAsk(transactionID: "9100000000000005", account: "eve", productID: product), session: eveSession)
        #expect(none.status == 400, "an ask that names no offer: \(none)")
        #expect(try count("offer-code:" + code, session: vicSession) == 1)
        let listed = try await developer.object(["offer-codes", "list"])["codes"] as? [[String: Any]] ?? []
        #expect(listed.map { [$0["used"] as? Int, $0["limit"] as? Int] } == [[1, 1]], "\(listed)")
        let redeemed = try await vic.run(["redeem", code])
        #expect(redeemed.status != 0 && redeemed.stderr.contains("used"), "\(redeemed)")
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }

    /// Idle connections held open by a Python process (Tests/Python/idle_sockets.py).
    final class IdleSockets {
        let process = Process()
        let input = Pipe(), output = Pipe()
        let opened: Int
        /// Why it opened fewer than asked ("stopped at N: …"), nil when it opened them all.
        let stopped: String?

        init(port: Int, count: Int, partial: Bool = false, body: Bool = false) async throws {
            process.executableURL = try AppleVerifier.python()
            process.arguments =
                [
                    repositoryRoot.appendingPathComponent("Tests/Python/idle_sockets.py").path, "127.0.0.1",
                    String(port), String(count),
                ]
                + (partial ? ["--partial"] : []) + (body ? ["--body"] : [])
            process.standardInput = input
            process.standardOutput = output
            let errors = FileManager.default.temporaryDirectory.appendingPathComponent("idle-\(UUID().uuidString).err")
            FileManager.default.createFile(atPath: errors.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: errors) }
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            let line = try await firstLine(output)
            opened = Int(line.split(separator: " ").last ?? "") ?? 0
            // The script writes its reason before the line above, and flushes it.
            let reason = (try? String(contentsOf: errors, encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines)
            stopped = reason?.isEmpty == false ? reason : nil
        }

        /// How many of its connections the server has not closed.
        func stillOpen() async throws -> Int {
            input.fileHandleForWriting.write(Data("open\n".utf8))
            return Int(try await firstLine(output)) ?? -1
        }

        /// SIGTERM, not waited for: Foundation reaps the process when it ends.
        deinit {
            try? input.fileHandleForWriting.close()
            process.terminate()
        }
    }

    @Test(
        "W9 retention messaging through the raw wire: a customer's device reads only what the moment of cancel may show (no drafts, no review, no performance test naming another customer's transaction) and still shows the approved message when it cancels; the developer reads it all",
        arguments: Backend.allCases)
    func retentionShownToCustomers(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let developer = try await team.machine()
        let vic = try await team.machine()
        let eve = try await team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        try await developer.run(["clock", "freeze", "2026-05-04T12:00:00Z"]).expectSuccess()
        try await vic.signUp("vic")
        try await eve.signUp("eve")
        let plan = "com.storefront.selfies.sub.allaccess"
        let vicPurchase = try #require(try await vic.object(["buy", plan])["id"] as? String)
        try await eve.run(["buy", plan]).expectSuccess()
        let wire = Wire(base: team.server.base)
        let eveSession = try wire.session("eve", password: "pw-eve")
        let answerFile = team.host.stateDirectory.appendingPathComponent("answer.json")
        func answer(_ object: [String: Any]) throws {
            try JSONSerialization.data(withJSONObject: object).write(to: answerFile)
        }
        let endpoint = try await Receiver(script: "retention_endpoint.py", arguments: [answerFile.path])

        // The developer's setup, written whole with the developer's token: an approved message with
        // its approved picture (shown), a draft, an approved message whose picture is still in
        // review (not shown), default messages naming each, and a performance test of vic's plan.
        func id() -> String { UUID().uuidString.lowercased() }
        let picture = id()
        let reviewedLater = id()
        let shown = id()
        let draft = id()
        let waiting = id()
        var setup = RetentionSetup()
        setup.images = [
            RetentionImage(id: picture, size: "FULL_SIZE", state: .approved, width: 3_840, height: 320),
            RetentionImage(id: reviewedLater, size: "FULL_SIZE", state: .pending, width: 3_840, height: 320),
        ]
        setup.messages = [
            RetentionMessage(
                id: shown, header: "Stay for the selfies", body: "Your team posts every day.", imageID: picture,
                altText: "A camera", state: .approved),
            RetentionMessage(id: draft, header: "Half price forever", body: "An unreviewed draft.", state: .pending),
            RetentionMessage(
                id: waiting, header: "Waiting", body: "Its picture is in review.", imageID: reviewedLater,
                altText: "Later", state: .approved),
        ]
        setup.defaults = [
            RetentionSetup.defaultKey(product: plan, locale: "en-US"): shown,
            RetentionSetup.defaultKey(product: "com.storefront.selfies.sub.oneaweek.monthly", locale: "en-US"): draft,
        ]
        setup.realtimeURLs = ["Sandbox": endpoint.url]
        setup.approvesAtOnce = true
        setup.performanceTests = [
            PerformanceTestRun(
                requestID: id(), originalTransactionID: vicPurchase, target: endpoint.url, startedAt: Date())
        ]
        #expect(try wire.call("replaceRetentionSetup", setup, developer: team.token).status == 200)
        struct Image: Encodable {
            var id: String
            var png: Data?
        }
        let png = try testPNG(width: 3_840, height: 320)
        for image in [picture, reviewedLater] {
            #expect(try wire.call("setRetentionImage", Image(id: image, png: png), developer: team.token).status == 200)
        }

        struct None: Encodable {}
        func read(session: String? = nil, developer: String? = nil) throws -> (setup: RetentionSetup, text: String) {
            let answer = try wire.call("retentionSetup", None(), session: session, developer: developer)
            #expect(answer.status == 200, "\(answer)")
            let value = try JSONSerialization.data(withJSONObject: answer.body["value"] ?? [:])
            return (try JSONDecoder().decode(RetentionSetup.self, from: value), String(decoding: value, as: UTF8.self))
        }
        let seen = try read(session: eveSession)
        #expect(seen.setup.messages.map(\.id) == [shown] && seen.setup.images.map(\.id) == [picture], "\(seen.text)")
        #expect(
            seen.setup.defaults == [RetentionSetup.defaultKey(product: plan, locale: "en-US"): shown], "\(seen.text)")
        #expect(seen.setup.performanceTests.isEmpty && !seen.setup.approvesAtOnce, "\(seen.text)")
        #expect(seen.setup.realtimeURLs == setup.realtimeURLs, "the device asks the endpoint itself: \(seen.text)")
        for secret in [vicPurchase, draft, reviewedLater, waiting, "Half price forever"] {
            #expect(!seen.text.contains(secret), "a customer reads \(secret): \(seen.text)")
        }
        func image(_ id: String, session: String? = nil, developer: String? = nil) throws -> Any? {
            let answer = try wire.call("retentionImage", id, session: session, developer: developer)
            #expect(answer.status == 200, "\(answer)")
            return answer.body["value"]
        }
        #expect(
            try image(picture, session: eveSession) is String, "the shown message's picture is the customer's to draw")
        #expect(try image(reviewedLater, session: eveSession) is NSNull, "a picture in review is not")
        let whole = try read(developer: team.token)
        #expect(
            whole.setup.messages.count == 3
                && whole.setup.performanceTests.map(\.originalTransactionID) == [vicPurchase]
                && whole.setup.approvesAtOnce && whole.setup.defaults.count == 2,
            "the developer reads it all: \(whole.text)")
        #expect(try image(reviewedLater, developer: team.token) is String)

        // The customer's moment of cancel, from what she reads: the endpoint's approved message is
        // shown with its picture; the draft it names is not, and the default message is.
        try answer(["body": ["message": ["messageIdentifier": shown]]])
        var retention = try await eve.object(["cancel", plan])["retention"] as? [String: Any] ?? [:]
        var card = retention["shown"] as? [String: Any] ?? [:]
        #expect(
            card["source"] as? String == "endpoint" && card["header"] as? String == "Stay for the selfies"
                && card["imageIdentifier"] as? String == picture, "\(retention)")
        try await eve.run(["renew-on", plan]).expectSuccess()
        try answer(["body": ["message": ["messageIdentifier": draft]]])
        retention = try await eve.object(["cancel", plan])["retention"] as? [String: Any] ?? [:]
        card = retention["shown"] as? [String: Any] ?? [:]
        #expect(
            card["source"] as? String == "default" && card["header"] as? String == "Stay for the selfies",
            "\(retention)")
        #expect(endpoint.payloads.count == 2, "the device asked the endpoint at each cancel")
    }

    @Test(
        "S1 W6 signing through the raw wire: the server signs an account's data only for that account's session, only from its own records; a stranger gets nothing signed of another's, with her own session or none",
        arguments: Backend.allCases)
    func signingForOthers(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let vic = try await team.machine()
        let eve = try await team.machine()
        try await vic.signUp("vic")
        try await eve.signUp("eve")
        let plan = "com.storefront.selfies.sub.allaccess"
        let vicPurchase = try #require(try await vic.object(["buy", plan])["id"] as? String)
        let evePurchase = try #require(try await eve.object(["buy", plan])["id"] as? String)
        let wire = Wire(base: team.server.base)
        let eveSession = try wire.session("eve", password: "pw-eve")
        let vicSession = try wire.session("vic", password: "pw-vic")
        struct Signing: Encodable {
            var account: String
            var items: [SigningRequest]
        }
        func everything(_ id: String) -> [SigningRequest] {
            [
                .transaction(id: id, verificationError: nil), .renewalInfo(originalTransactionID: id),
                .appTransaction(device: "raw"),
                .realtimeRequest(originalTransactionID: id, locale: "en-US"),
            ]
        }
        func signed(_ account: String, _ items: [SigningRequest], session: String?) throws -> (
            status: Int, values: [Any]
        ) {
            let answer = try wire.call("signed", Signing(account: account, items: items), session: session)
            return (answer.status, answer.body["value"] as? [Any] ?? [])
        }

        // Vic's session signs vic's four; eve's session signs nothing of vic's, nor does none.
        let vics = try signed("vic", everything(vicPurchase), session: vicSession)
        #expect(vics.status == 200 && vics.values.count == 4 && vics.values.allSatisfy { $0 is String }, "\(vics)")
        for session in [eveSession, nil] {
            let refused = try signed("vic", everything(vicPurchase), session: session)
            #expect(refused.status == 401 && refused.values.isEmpty, "\(refused)")
        }
        // Eve's own account, vic's ids: not eve's records, so nothing is signed (the app
        // transaction is eve's own).
        let mixed = try signed("eve", everything(vicPurchase), session: eveSession)
        #expect(mixed.status == 200 && mixed.values.count == 4, "\(mixed)")
        #expect(mixed.values[0] is NSNull && mixed.values[1] is NSNull && mixed.values[3] is NSNull, "\(mixed)")
        let eveApp = try JWS.decode(try #require(mixed.values[2] as? String)).payload
        let vicApp = try JWS.decode(try #require(vics.values[2] as? String)).payload
        #expect(
            eveApp["appTransactionId"] as? String != vicApp["appTransactionId"] as? String,
            "eve's app transaction is her own")
        // Her own purchase, signed: the server's root verifies it (Apple's verifier).
        let own = try await signed("eve", [.transaction(id: evePurchase, verificationError: nil)], session: eveSession)
        let verified = try await AppleVerifier.verify(
            [("transaction", try #require(own.values.first as? String))], session: team.host,
            bundleID: "com.storefront.selfies")
        #expect(
            verified.first?.ok == true && verified.first?.decoded["transactionId"] as? String == evePurchase,
            "\(verified)")
    }
}

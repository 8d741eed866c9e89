// M1: Apple's Retention Messaging API served by `storefront serve`, judged by Apple's own client,
// with a developer's Get Retention Message endpoint that Apple's verifier checks the requests of.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import TestSupport
import Testing

/// A PNG of `width`×`height`, opaque (`rgb`) or with an alpha channel.
func testPNG(width: Int, height: Int, alpha: Bool = false) throws -> Data {
    // A gradient, so that a picture drawn in the terminal has many colours.
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let at = (y * width + x) * 4
            (pixels[at], pixels[at + 1], pixels[at + 2]) = (UInt8(x * 255 / width), UInt8(y * 255 / height), 140)
        }
    }
    return try PNGCodec.encode(RGBAImage(width: width, height: height, pixels: pixels), layout: alpha ? .rgba : .rgb)
}

@Suite("Retention Messaging API through Apple's client", .serialized, .tags(.postgres, .python, .tmux), .notInFastRun)
struct RetentionTests {
    let serve = ServeTests()

    @Test(
        "M1 images, messages, default messages, the realtime URL and performance tests with Apple's paths, states and codes; review by `storefront messages`; the endpoint's requests verify",
        arguments: StrangerTests.Backend.allCases
    )
    func retentionAPI(backend: StrangerTests.Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let (host, server, token) = (team.host, team.server, team.token)
        func machine() async throws -> Session { try await team.machine() }
        let developer = try await machine()
        let customer = try await machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = token
        try await developer.run(["clock", "freeze", "2026-05-04T12:00:00Z"]).expectSuccess()
        try await customer.signUp("ria")
        let plan = "com.storefront.selfies.sub.allaccess"
        let bought = try await customer.object(["buy", plan])
        let original = try #require(bought["id"] as? String)
        try await developer.run(["clock", "advance", "1w1d"]).expectSuccess()
        let renewal = try #require(
            try await customer.array(["history"]).first { $0["transactionReason"] as? String == "RENEWAL" }?["id"]
                as? String)
        let key = try await serve.makeKey(developer)
        let endpoint = try await Receiver(
            script: "retention_endpoint.py", arguments: [host.stateDirectory.appendingPathComponent("answer.json").path]
        )
        let answerFile = host.stateDirectory.appendingPathComponent("answer.json")
        func answer(_ object: [String: Any]) throws {
            try JSONSerialization.data(withJSONObject: object).write(to: answerFile)
        }
        let image = UUID().uuidString.lowercased()
        let message = UUID().uuidString.lowercased()
        let spare = UUID().uuidString.lowercased()
        let png = try testPNG(width: 3_840, height: 320).base64EncodedString()
        func raw(_ method: String, _ path: String, _ body: [String: Any]) -> [String: Any] {
            let text = String(decoding: (try? JSONSerialization.data(withJSONObject: body)) ?? Data(), as: UTF8.self)
            return [
                "call": "raw", "method": method, "path": path, "body": text, "auth": true,
                "headers": ["Content-Type": "application/json"],
            ]
        }
        func calls(_ list: [[String: Any]]) async throws -> [[String: Any]] {
            try await serve.call(server, key, bundleID: "com.storefront.selfies", list)
        }

        var results = try await calls([
            ["call": "realtime_url", "get": true],
            ["call": "realtime_url", "url": endpoint.url],
            ["call": "realtime_url", "get": true],
            ["call": "realtime_url", "url": "ftp://example.com/nope"],
            ["call": "upload_image", "id": image, "png": png, "size": "FULL_SIZE"],
            ["call": "upload_image", "id": image, "png": png, "size": "FULL_SIZE"],
            [
                "call": "upload_image", "id": spare,
                "png": try testPNG(width: 3_840, height: 320, alpha: true).base64EncodedString(),
            ],
            [
                "call": "upload_image", "id": spare, "png": try testPNG(width: 100, height: 100).base64EncodedString(),
                "size": "FULL_SIZE",
            ],
            ["call": "image_list"],
            [
                "call": "upload_message", "id": message, "header": "Before you go",
                "body": "Your selfies stay sharp with All Access.", "image": image, "altText": "A camera",
            ],
            // Apple's client refuses these lengths itself: sent raw, with its token.
            raw(
                "PUT", "/inApps/v1/messaging/message/\(spare)",
                ["header": String(repeating: "h", count: 67), "body": "b"]),
            ["call": "upload_message", "id": spare, "header": "h", "body": "b", "headerPosition": "ABOVE_IMAGE"],
            ["call": "upload_message", "id": spare, "header": "h", "body": "b", "image": spare, "altText": "none"],
            ["call": "message_list"],
            ["call": "default_message", "product": plan, "locale": "en-US", "message": message],
            ["call": "delete_image", "id": image],
            ["call": "performance_result", "id": UUID().uuidString],
            ["call": "default_message", "product": plan, "locale": "en-US", "get": true],
            ["call": "default_message", "product": plan, "locale": "english", "message": message],
            ["call": "performance_test", "id": renewal],
            raw(
                "PUT", "/inApps/v1/messaging/message/\(spare)",
                ["header": "h", "body": String(repeating: "b", count: 145)]),
        ])
        let codes: [(Int, Int)] = [
            (0, 4_040_021), (3, 4_000_215), (5, 4_090_000), (6, 4_000_161), (7, 4_000_161), (10, 4_000_162),
            (11, 4_000_224), (12, 4_040_014),
            (14, 4_030_017), (15, 4_030_019), (16, 4_040_018), (17, 4_040_020), (18, 4_000_164), (19, 4_000_211),
            (20, 4_000_163),
        ]
        for (index, code) in codes {
            #expect(results[index]["errorCode"] as? Int == code, "call \(index): \(results[index])")
        }
        for index in [1, 4, 9] { #expect(results[index]["ok"] as? Bool == true, "call \(index): \(results[index])") }
        #expect(serve.result(results[2])["realtimeURL"] as? String == endpoint.url)
        let images = serve.result(results[8])["imageIdentifiers"] as? [[String: Any]] ?? []
        #expect(
            images.count == 1 && images.first?["imageIdentifier"] as? String == image
                && images.first?["imageState"] as? String == "PENDING"
                && images.first?["imageSize"] as? String == "FULL_SIZE", "\(images)")
        let messages = serve.result(results[13])["messageIdentifiers"] as? [[String: Any]] ?? []
        #expect(messages.count == 1 && messages.first?["messageState"] as? String == "PENDING", "\(messages)")

        // One URL per environment: the app's environment says which is configured and asked.
        try await developer.run(["app", "set", "--environment", "Production"]).expectSuccess()
        let production = try await calls([["call": "realtime_url", "get": true]])
        #expect(production[0]["errorCode"] as? Int == 4_040_021, "Production has no URL yet: \(production)")
        try await developer.run(["app", "set", "--environment", "Sandbox"]).expectSuccess()

        // App Review, played by the developer: only the developer may, and the image must pass too.
        let refused = try await customer.run(["messages", "approve", message])
        #expect(refused.status != 0 && refused.stderr.contains("change retention messages"), "\(refused)")
        try await developer.run(["messages", "approve", message]).expectSuccess()
        results = try await calls([["call": "default_message", "product": plan, "locale": "en-US", "message": message]])
        #expect(results[0]["errorCode"] as? Int == 4_030_018, "the image is still PENDING: \(results[0])")
        try await developer.run(["messages", "approve", image]).expectSuccess()
        let listed = try await developer.run(["messages"]).stdout
        #expect(
            listed.contains("message \(message)  APPROVED") && listed.contains("image   \(image)  APPROVED"),
            "\(listed)")

        // The endpoint picks the message; the performance test calls it as Apple's test does.
        try answer(["body": ["message": ["messageIdentifier": message]]])
        results = try await calls([
            ["call": "default_message", "product": plan, "locale": "en-US", "message": message],
            ["call": "default_message", "product": plan, "locale": "en-US", "get": true],
            ["call": "image_list"], ["call": "message_list"],
            ["call": "performance_test", "id": original],
        ])
        #expect(results[0]["ok"] as? Bool == true, "\(results[0])")
        #expect(serve.result(results[1])["messageIdentifier"] as? String == message, "\(results[1])")
        #expect(
            (serve.result(results[2])["imageIdentifiers"] as? [[String: Any]])?.first?["imageState"] as? String
                == "APPROVED")
        #expect(
            (serve.result(results[3])["messageIdentifiers"] as? [[String: Any]])?.first?["messageState"] as? String
                == "APPROVED")
        let started = serve.result(results[4])
        let requestID = try #require(started["requestId"] as? String, "\(results[4])")
        #expect((started["config"] as? [String: Any])?["responseTimeThreshold"] as? Int == 700, "\(started)")
        func finished(_ id: String) async throws -> [String: Any] {
            var last: [String: Any] = [:]
            let done = try await waitUntil(seconds: 120) {
                last = serve.result(try await calls([["call": "performance_result", "id": id]])[0])
                return last["result"] as? String != "PENDING"
            }
            #expect(done, "the test finished: \(last)")
            return last
        }
        let passed = try await finished(requestID)
        #expect(
            passed["result"] as? String == "PASS" && passed["successRate"] as? Int == 100
                && passed["numPending"] as? Int == 0, "\(passed)")
        #expect((passed["responseTimes"] as? [String: Any])?["p90"] is Int, "\(passed)")
        #expect(passed["target"] as? String == endpoint.url)
        // Every request the endpoint received is one Apple's verifier accepts, about the plan.
        let requests = endpoint.payloads
        #expect(requests.count == 20, "\(requests.count)")
        let verified = try await AppleVerifier.verify(
            requests.prefix(3).map { ("realtime", $0) }, session: host, bundleID: "com.storefront.selfies")
        for item in verified {
            let decoded = item.decoded
            #expect(
                item.ok && decoded["originalTransactionId"] as? String == original
                    && decoded["productId"] as? String == plan && decoded["environment"] as? String == "Sandbox"
                    && decoded["userLocale"] as? String == "en-US", "\(item)")
        }

        // An endpoint slower than Apple's budget fails the test, with the reason counted.
        try answer(["body": ["message": ["messageIdentifier": message]], "sleep": 1.2])
        // Its 20 requests take at least five rounds of 700 ms: the call right after it finds it running.
        let twice = try await calls([
            ["call": "performance_test", "id": original], ["call": "performance_test", "id": original],
        ])
        let slow = try #require(serve.result(twice[0])["requestId"] as? String, "\(twice)")
        #expect(twice[1]["errorCode"] as? Int == 4_000_213, "one test at a time: \(twice[1])")
        let failed = try await finished(slow)
        #expect(
            failed["result"] as? String == "FAIL" && (failed["failures"] as? [String: Any])?["TIMED_OUT"] as? Int == 20,
            "\(failed)")

        // Deleting: the message takes its default with it; then the image is free to go.
        results = try await calls([
            ["call": "delete_message", "id": message],
            ["call": "default_message", "product": plan, "locale": "en-US", "get": true],
            ["call": "delete_image", "id": image], ["call": "image_list"], ["call": "realtime_url", "delete": true],
            ["call": "realtime_url", "get": true],
        ])
        #expect(
            results[1]["errorCode"] as? Int == 4_040_020 && results[5]["errorCode"] as? Int == 4_040_021, "\(results)")
        #expect((serve.result(results[3])["imageIdentifiers"] as? [[String: Any]])?.isEmpty == true, "\(results[3])")
    }
}

extension RetentionTests {
    /// The fields of a JWS's payload, unverified (the verifier judges elsewhere).
    func payload(_ jws: String) -> [String: Any] {
        guard let part = jws.split(separator: ".").dropFirst().first else { return [:] }
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            ?? [:]
    }

    @Test(
        "M2 the moment of cancel on the command line: the endpoint's message is shown; a slow endpoint or an unapproved message gives the default message; accepting a promotional offer (V2 or V1) applies it at the next renewal (offerType 2); accepting an alternate plan switches (DID_CHANGE_RENEWAL_PREF)"
    )
    func momentOfCancel() async throws {
        let (session, receiver) = try await serve.selfiesCustomer(frozen: false)
        let monthly = PromotionalOfferTests.monthly
        let smaller = "com.storefront.selfies.sub.oneaweek.monthly"
        try await session.run(["buy", monthly]).expectSuccess()
        let original = try #require(
            (try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first?["originalTransaction"]
                as? String)
        let server = try await Server(session)
        let key = try await serve.makeKey(session)
        let answerFile = session.stateDirectory.appendingPathComponent("answer.json")
        func answer(_ object: [String: Any]) throws {
            try JSONSerialization.data(withJSONObject: object).write(to: answerFile)
        }
        let endpoint = try await Receiver(script: "retention_endpoint.py", arguments: [answerFile.path])
        let image = UUID().uuidString.lowercased()
        let stay = UUID().uuidString.lowercased()
        let missYou = UUID().uuidString.lowercased()
        let unreviewed = UUID().uuidString.lowercased()
        let results = try await serve.call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "realtime_url", "url": endpoint.url],
                [
                    "call": "upload_image", "id": image,
                    "png": try testPNG(width: 3_840, height: 480).base64EncodedString(), "size": "FULL_SIZE",
                ],
                [
                    "call": "upload_message", "id": stay, "header": "Stay for the selfies",
                    "body": "Your team posts every day.", "image": image, "altText": "Selfies",
                ],
                ["call": "upload_message", "id": missYou, "header": "We will miss you", "body": "Come back any time."],
                ["call": "upload_message", "id": unreviewed, "header": "Not reviewed", "body": "Never shown."],
            ])
        #expect(results.allSatisfy { $0["ok"] as? Bool == true }, "\(results)")
        for id in [image, stay, missYou] { try await session.run(["messages", "approve", id]).expectSuccess() }
        let configured = try await serve.call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "default_message", "product": monthly, "locale": "en-US", "message": missYou]
            ])
        #expect(configured.first?["ok"] as? Bool == true, "\(configured)")

        func cancel(_ extra: [String] = []) async throws -> (shown: [String: Any], chosen: String?, plan: [String: Any])
        {
            let object = try await session.object(["cancel", monthly] + extra)
            let retention = object["retention"] as? [String: Any] ?? [:]
            return (retention["shown"] as? [String: Any] ?? [:], retention["chosen"] as? String, object)
        }
        // The endpoint chooses a message: it is shown, and the customer cancels.
        try answer(["body": ["message": ["messageIdentifier": stay]]])
        var seen = try await cancel()
        #expect(
            seen.shown["source"] as? String == "endpoint" && seen.shown["header"] as? String == "Stay for the selfies"
                && seen.shown["imageIdentifier"] as? String == image && seen.chosen == "cancel"
                && seen.plan["autoRenew"] as? Bool == false, "\(seen)")
        let asked = try #require(endpoint.payloads.first)
        let verified = try #require(
            try await AppleVerifier.verify([("realtime", asked)], session: session, bundleID: "com.storefront.selfies")
                .first)
        #expect(
            verified.ok && verified.decoded["originalTransactionId"] as? String == original
                && verified.decoded["productId"] as? String == monthly,
            "\(verified.decoded)")
        try await session.run(["renew-on", monthly]).expectSuccess()

        // Slower than Apple's budget, or a message not approved: the default message.
        try answer(["body": ["message": ["messageIdentifier": stay]], "sleep": 1.5])
        seen = try await cancel()
        #expect(
            seen.shown["source"] as? String == "default" && seen.shown["header"] as? String == "We will miss you"
                && (seen.shown["fallbackReason"] as? String)?.contains("TIMED_OUT") == true && seen.chosen == "cancel",
            "\(seen)")
        try await session.run(["renew-on", monthly]).expectSuccess()
        try answer(["body": ["message": ["messageIdentifier": unreviewed]]])
        let words = try await session.run(["cancel", monthly])
        #expect(
            words.stdout.contains("the default retention message") && words.stdout.contains("We will miss you"),
            "\(words)")
        try await session.run(["renew-on", monthly]).expectSuccess()

        // A promotional offer, signed by Apple's library: accepted, it applies at the next renewal.
        let signer = try await AppleOfferSigner.make(session, type: "subscription-offer")
        let jws = try await signer.jws(product: monthly, offer: "thankyou.freemonth")
        try answer(["body": ["promotionalOffer": ["messageIdentifier": stay, "promotionalOfferSignatureV2": jws]]])
        seen = try await cancel(["--accept-retention"])
        #expect(
            seen.chosen == "promotionalOffer" && seen.shown["promotionalOffer"] as? String == "thankyou.freemonth"
                && seen.plan["autoRenew"] as? Bool == true, "\(seen)")
        try await session.run(["clock", "advance", "1w1d"]).expectSuccess()
        let renewal = try #require(
            try await session.array(["history"]).last { $0["transactionReason"] as? String == "RENEWAL" }, "a renewal")
        let signed = payload(renewal["signedTransaction"] as? String ?? "")
        #expect(
            signed["offerType"] as? Int == 2 && signed["offerIdentifier"] as? String == "thankyou.freemonth",
            "\(signed)")
        // The original (V1) signature, made by Apple's library and carried as its RealtimeResponseBody
        // writes it: accepted, which a nonce, timestamp or key id read wrong would refuse.
        let v1 = try await signer.signatureV1(
            product: monthly, offer: "thankyou.freemonth", at: try await storeMilliseconds(session))
        try answer(["body": ["promotionalOffer": ["messageIdentifier": stay, "promotionalOfferSignatureV1": v1]]])
        seen = try await cancel(["--accept-retention"])
        #expect(
            seen.chosen == "promotionalOffer" && seen.shown["promotionalOffer"] as? String == "thankyou.freemonth"
                && seen.plan["autoRenew"] as? Bool == true, "\(seen)")

        // An alternate plan: accepted, the plan switches at its renewal, and the developer hears of it.
        try answer(["body": ["alternateProduct": ["messageIdentifier": stay, "productId": smaller]]])
        seen = try await cancel(["--accept-retention"])
        #expect(
            seen.chosen == "alternateProduct" && seen.shown["alternateProduct"] as? String == smaller
                && seen.plan["autoRenew"] as? Bool == true, "\(seen)")
        let told = await waitUntil(seconds: 60) {
            receiver.payloads.map(payload).contains { $0["notificationType"] as? String == "DID_CHANGE_RENEWAL_PREF" }
        }
        #expect(told, "DID_CHANGE_RENEWAL_PREF reached the webhook")
        // Nothing to accept when the endpoint offers only words.
        try answer(["body": ["message": ["messageIdentifier": stay]]])
        let nothing = try await session.run(["cancel", monthly, "--accept-retention"])
        #expect(nothing.status == 1 && nothing.stderr.contains("nothing to accept"), "\(nothing)")
    }
}

extension RetentionTests {
    @Test(
        "M2 on the screen in tmux: `c` in the transaction manager shows the endpoint's message with its picture drawn in colour; Esc keeps the plan; with an endpoint past Apple's budget the default message shows, and `c` cancels anyway"
    )
    func retentionOnScreen() async throws {
        let (session, _) = try await serve.selfiesCustomer()
        let monthly = PromotionalOfferTests.monthly
        try await session.run(["buy", monthly]).expectSuccess()
        let server = try await Server(session)
        let key = try await serve.makeKey(session)
        let answerFile = session.stateDirectory.appendingPathComponent("answer.json")
        func answer(_ object: [String: Any]) throws {
            try JSONSerialization.data(withJSONObject: object).write(to: answerFile)
        }
        let endpoint = try await Receiver(script: "retention_endpoint.py", arguments: [answerFile.path])
        let image = UUID().uuidString.lowercased()
        let stay = UUID().uuidString.lowercased()
        let missYou = UUID().uuidString.lowercased()
        try await session.run(["messages", "review", "at-once"]).expectSuccess()
        let results = try await serve.call(
            server, key, bundleID: "com.storefront.selfies",
            [
                ["call": "realtime_url", "url": endpoint.url],
                [
                    "call": "upload_image", "id": image,
                    "png": try testPNG(width: 3_840, height: 1_080).base64EncodedString(),
                ],
                [
                    "call": "upload_message", "id": stay, "header": "Stay for the selfies",
                    "body": "Your team posts every day.", "image": image, "altText": "Selfies",
                ],
                ["call": "upload_message", "id": missYou, "header": "We will miss you", "body": "Come back any time."],
                ["call": "default_message", "product": monthly, "locale": "en-US", "message": missYou],
            ])
        #expect(results.allSatisfy { $0["ok"] as? Bool == true }, "\(results)")
        try answer(["body": ["message": ["messageIdentifier": stay]]])
        let tmux = try await TmuxSession(command: session.screenCommand(), columns: 100, rows: 32)
        try await tmux.waitFor("All Access")
        try await tmux.send("t")
        try await tmux.waitFor("Transactions")
        try await tmux.send("c")
        let sheet = try await tmux.waitFor("Stay for the selfies", colors: true)
        #expect(sheet.contains("Before you cancel"), "\(sheet)")
        let plain = try await tmux.capture()
        #expect(
            plain.contains("Your team posts every day.") && plain.contains("c cancel anyway")
                && plain.contains("Esc keep the plan"), "\(plain)")
        let lines = plain.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("▀") }.count >= 3, "the picture is drawn: \(plain)")
        let colours = Set(
            sheet.components(separatedBy: "48;5;").dropFirst().compactMap {
                $0.split(separator: "m").first.flatMap { Int($0) }
            })
        #expect(colours.count >= 4, "the message's picture in colour, not a blank: \(colours.count)")
        #expect(endpoint.payloads.count == 1)
        try await tmux.send("Escape")
        try await tmux.waitFor("Kept: the plan renews as before")
        #expect(
            (try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first?["autoRenew"] as? Bool
                == true)
        // Past Apple's budget: the default message, and the customer may still cancel.
        try answer(["body": ["message": ["messageIdentifier": stay]], "sleep": 1.5])
        try await tmux.send("c")
        let fallback = try await tmux.waitFor("We will miss you")
        #expect(fallback.contains("default message") && fallback.contains("TIMED_OUT"), "\(fallback)")
        try await tmux.send("c")
        try await tmux.waitUntil(description: "the plan cancelled") { _ in
            (try? await session.object(["subscriptions"])["plans"] as? [[String: Any]])??.first?["autoRenew"] as? Bool
                == false
        }
        try await tmux.send("q", "q")
    }
}

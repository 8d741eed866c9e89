// Xcode StoreKit files through the real binary: `storefront --catalog Products.storekit`, headless and on the
// screen, and bad `.storekit` files refused with one line that leaves the state as it was.
import Foundation
import TerminalUI
import TestSupport
import Testing

let storeKitFolder = repositoryRoot.appendingPathComponent("Tests/Fixtures/storekit")

@Suite("storefront with .storekit files", .serialized)
struct StoreKitCommandTests {
    @Test(
        "products --json lists every product of every sample and fixture with its kind, price, currency and period",
        arguments: [
            ("samples/skdemo.storekit", 10, "USD"), ("samples/food-truck.storekit", 3, "USD"),
            ("samples/backyard-birds.storekit", 9, "USD"), ("v1.storekit", 4, "USD"), ("v4-japan.storekit", 2, "JPY"),
            ("v5-settings.storekit", 4, "GBP"), ("arabic.storekit", 1, "SAR"), ("chinese.storekit", 2, "CNY"),
            ("Folder.storekit", 1, "USD"), ("sidefile.storekit", 4, "USD"),
        ] as [(String, Int, String)])
    func products(file: String, count: Int, currency: String) async throws {
        let session = try await Session()
        let result = try await session.run([
            "products", "--json", "--catalog", storeKitFolder.appendingPathComponent(file).path,
        ])
        #expect(result.status == 0, "\(result)")
        let rows = try result.array()
        #expect(rows.count == count)
        for row in rows {
            #expect(row["currency"] as? String == currency)
            #expect((row["price"] as? String)?.range(of: #"^[0-9]+\.[0-9]{2,}$"#, options: .regularExpression) != nil)
            let kind = row["kind"] as? String
            #expect(
                ["nonConsumable", "consumable", "nonRenewingSubscription", "autoRenewableSubscription"].contains(kind))
            if kind == "autoRenewableSubscription" { #expect((row["period"] as? String)?.hasPrefix("P") == true) }
            if kind == "nonRenewingSubscription" { #expect(row["durationSource"] is String) }
        }
    }

    @Test("the exact rows of Apple's Food Truck sample")
    func foodTruckExactly() async throws {
        let session = try await Session()
        let rows = try await session.array([
            "products", "--catalog", storeKitFolder.appendingPathComponent("samples/food-truck.storekit").path,
        ])
        let monthly = try #require(rows.first { $0["id"] as? String == "socialfeedplus.monthly" })
        #expect(monthly["price"] as? String == "4.99" && monthly["displayPrice"] as? String == "$4.99")
        #expect(monthly["period"] as? String == "P1M" && monthly["rank"] as? Int == 1)
        let offer = try #require(monthly["introOffer"] as? [String: Any])
        #expect(
            offer["mode"] as? String == "payAsYouGo" && offer["periods"] as? Int == 3
                && offer["price"] as? String == "2.49")
    }

    @Test("--months gives a duration; buying one without is refused with advice; the trial of a .storekit plan works")
    func monthsAndBuying() async throws {
        let session = try await Session()
        let catalog = storeKitFolder.appendingPathComponent("v5-settings.storekit").path
        session.environment["STOREFRONT_CATALOG"] = catalog
        try await session.signUp("ann")
        let refused = try await session.run(["buy", "com.example.weekend"])
        #expect(refused.status == 1 && refused.stderr.contains("--duration com.example.weekend=P1M"), "\(refused)")
        let bought = try await session.run([
            "buy", "com.example.weekend", "--months", "com.example.weekend=1", "--outcome", "approve", "--json",
        ])
        #expect(bought.status == 0, "\(bought)")
        #expect(try await session.object(["status"])["expires"] as? String == "2026-02-15T12:00:00Z")
        let bad = try await session.run(["products", "--months", "weekend"])
        #expect(bad.status == 2 && bad.stderr.contains("PRODUCT=3"))
        // R5 for days: a weekend pass of P2D on top of what is left adds two days exactly.
        let days = try await session.run([
            "buy", "com.example.weekend", "--duration", "com.example.weekend=P2D", "--outcome", "approve",
        ])
        #expect(days.status == 0, "\(days)")
        #expect(try await session.object(["status"])["expires"] as? String == "2026-02-17T12:00:00Z")
        let badPeriod = try await session.run(["products", "--duration", "com.example.weekend=7days"])
        #expect(badPeriod.status == 2 && badPeriod.stderr.contains("PRODUCT=P7D"), "\(badPeriod)")
        try await session.run(["buy", "com.example.plus.yearly", "--outcome", "approve"]).expectSuccess()
        let plan = try #require((try await session.object(["subscriptions"])["plans"] as? [[String: Any]])?.first)
        #expect(plan["phase"] as? String == "trial" && plan["expires"] as? String == "2026-01-29T12:00:00Z")
    }

    @Test("C6 an empty configuration: products --json is [], the text says there are none, status works; exit 0")
    func emptyConfiguration() async throws {
        let session = try await Session()
        let file = storeKitFolder.appendingPathComponent("empty.storekit").path
        let json = try await session.run(["products", "--json", "--catalog", file])
        #expect(json.status == 0 && json.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(json)")
        let text = try await session.run(["products", "--catalog", file])
        #expect(text.status == 0 && text.stdout.hasPrefix("No products yet.") && text.stderr.isEmpty, "\(text)")
        #expect(try await session.run(["status", "--catalog", file]).status == 0)
        let buy = try await session.run(["buy", "anything", "--catalog", file])
        #expect(buy.status == 2 && buy.stderr.contains("anything"), "\(buy)")
    }

    @Test("C6 a property-list .storekit and an offer with an empty price open, warning once per path on stderr")
    func propertyListAndOfferWarnings() async throws {
        let session = try await Session()
        let plist = try await session.run([
            "products", "--json", "--catalog", storeKitFolder.appendingPathComponent("plist.storekit").path,
        ])
        #expect(plist.status == 0 && plist.stdout.contains("\"plus.monthly\""), "\(plist)")
        let offers = try await session.run([
            "products", "--catalog", storeKitFolder.appendingPathComponent("offer-keys.storekit").path,
        ])
        #expect(offers.status == 0, "\(offers)")
        let warnings = offers.stderr.split(separator: "\n")
        #expect(
            warnings.count == 3 && warnings[0].contains("introductoryOffer.displayPrice: \"displayPrice\" is empty"),
            "\(offers.stderr)")
    }

    @Test("a fresh state folder takes the file's settings: Ask to Buy, billing trouble, the time rate")
    func settingsAdopted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-fresh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try Session(
            existing: folder,
            environment: [
                "STOREFRONT_STATE_DIR": folder.path, "TZ": "UTC", "PATH": "/usr/bin:/bin", "HOME": folder.path,
                "STOREFRONT_CATALOG": storeKitFolder.appendingPathComponent("v5-settings.storekit").path,
            ])
        #expect(try await session.object(["policy"])["policy"] as? String == "defer")
        #expect(try await session.object(["billing"])["billing"] as? String == "fail")
        #expect(try await session.object(["grace"])["graceDays"] as? Int == 16)
        #expect((try await session.object(["clock"])["mode"] as? String) == "rate")
    }

    @Test("bad .storekit files: one line naming the file and the JSON path, exit 2, the databases byte-identical")
    func badFiles() async throws {
        let session = try await Session()
        try await session.signUp("alice")
        try await session.run(["buy", "com.storefront.randomviews"]).expectSuccess()
        let before = try await BadInputTests().databases(session)
        let folder = session.stateDirectory.appendingPathComponent("bad")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cases: [(String, String, String)] = [
            (
                "period.storekit",
                #"{"subscriptionGroups": [{"subscriptions": [{"productID": "s", "recurringSubscriptionPeriod": "P5Q"}]}]}"#,
                #"period.storekit: subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod: "P5Q" is not a period"#
            ),
            ("truncated.storekit", #"{"products": [{"productID": "a", "#, "truncated.storekit: is not valid JSON"),
            ("empty.storekit", "", "empty.storekit: is not valid JSON"),
            (
                "price.storekit", #"{"products": [{"productID": "a", "type": "Consumable", "displayPrice": "free"}]}"#,
                #"price.storekit: products[0].displayPrice: "free" is not a price"#
            ),
            (
                "binary.storekit", String(decoding: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10], as: UTF8.self),
                "binary.storekit: is not valid JSON"
            ),
            (
                "broken-plist.storekit", #"<?xml version="1.0"?><plist><dict><key>products</key>"#,
                "broken-plist.storekit: is not a valid property list"
            ),
            (
                "offer.storekit",
                #"{"subscriptionGroups": [{"subscriptions": [{"productID": "s", "recurringSubscriptionPeriod": "P1M", "introductoryOffer": {"numberOfPeriods": 0}}]}]}"#,
                "offer.storekit: subscriptionGroups[0].subscriptions[0].introductoryOffer.numberOfPeriods: 0 periods"
            ),
        ]
        for (name, text, message) in cases {
            let file = folder.appendingPathComponent(name)
            try text.write(to: file, atomically: true, encoding: .utf8)
            for arguments in [["products"], ["buy", "a"], ["status"]] {
                let result = try await session.run(arguments + ["--catalog", file.path])
                #expect(result.status == 2, "\(name) \(arguments): \(result)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains(message), "\(name): \(result.stderr)")
            }
        }
        let missing = try await session.run([
            "products", "--catalog", folder.appendingPathComponent("Missing.storekit").path,
        ])
        #expect(missing.status == 2 && missing.stderr.contains("Missing.storekit: cannot be read"), "\(missing)")
        let after = try await BadInputTests().databases(session)
        #expect(before == after)
    }
}

@Suite("storefront screen with a .storekit file", .serialized, .tags(.tmux), .notInFastRun)
struct StoreKitScreenTests {
    @Test("Apple's SKDemo on the screen: its products, and a bought car shows its generated picture")
    func skDemo() async throws {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] =
            storeKitFolder.appendingPathComponent("samples/skdemo.storekit").path
        let tmux = try await TmuxSession(command: session.screenCommand())
        try await tmux.waitFor("Sign in")
        try await tmux.send("Escape")
        let list = try await tmux.waitFor("Sport Utility Vehicle")
        for name in ["Car", "Race Car", "Fuel87", "Standard 1 Year Service Access", "Premium", "Pro"] {
            #expect(list.contains(name), "\(name) missing")
        }
        #expect(list.contains("skdemo"))
        try await tmux.send("Enter")
        try await tmux.waitFor("Purchase to see comic!")
        try await tmux.send("b")
        let bought = try await tmux.waitFor("Purchased Car ✓")
        #expect(bought.split(separator: "\n").filter { $0.contains("▀") }.count >= 8, "\(bought)")
        try await tmux.send("q")
    }

    @Test("an Arabic storefront on the screen: names and digits line up by column width")
    func arabic() async throws {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = storeKitFolder.appendingPathComponent("arabic.storekit").path
        let tmux = try await TmuxSession(command: session.screenCommand())
        try await tmux.waitFor("Sign in")
        try await tmux.send("Escape")
        let list = try await tmux.waitFor("بومة الليل")
        let row = try #require(list.split(separator: "\n").first { $0.contains("بومة الليل") })
        // The locale puts a no-break space between the number and the currency.
        #expect(row.hasSuffix("٣٫٩٩\u{A0}ر.س. Buy"), "\(row)")
        let header = try #require(list.split(separator: "\n").first)
        #expect(row.count == header.count, "the row fills the width as the title bar does: one column per letter")
        try await tmux.send("q")
    }

    @Test("products pads names by terminal cells: Chinese names line up with Latin ones")
    func wideNamesLineUp() async throws {
        let session = try await Session()
        let result = try await session.run([
            "products", "--catalog", storeKitFolder.appendingPathComponent("chinese.storekit").path,
        ])
        result.expectSuccess()
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2)
        // Where the price starts, in cells: the same on every line.
        let starts = lines.map { line in TextWidth.of(String(line.prefix { $0 != "¥" })) }
        #expect(Set(starts).count == 1, "\(starts)\n\(result.stdout)")
    }
}

// A1–A7: accounts, devices, sync, restore and the receipt.
import Foundation
import Testing

@testable import StoreCore
@testable import StoreModel

@Suite("Accounts and devices")
struct AccountTests {
    @Test("A1 passwords are stored only as salted slow hashes; a wrong one is refused")
    func passwords() throws {
        let state = TemporaryState()
        let store = try state.store()
        try store.accounts.signUp("ann", password: "correct horse")
        try store.accounts.signUp("bob", password: "correct horse")
        let annHash = try #require(try (store.server as! ServerDatabase).passwordHash(account: "ann")?.hash)
        let bobHash = try #require(try (store.server as! ServerDatabase).passwordHash(account: "bob")?.hash)
        #expect(annHash.hasPrefix("scrypt$"))
        #expect(!annHash.contains("correct"))
        #expect(annHash != bobHash)  // salted
        try store.accounts.signOut()
        #expect(error { try store.accounts.signIn("ann", password: "wrong") } == .wrongPassword("ann"))
        #expect(try store.accounts.currentUser() == nil)
        #expect(error { try store.accounts.signIn("nobody", password: "x") } == .unknownAccount("nobody"))
        #expect(error { try store.accounts.signUp("ANN", password: "x") } == .accountExists("ANN"))
        #expect(error { try store.accounts.signUp("a b", password: "x") } == .invalidAccountName("a b"))
        #expect(error { try store.accounts.signUp("carol", password: "") } == .emptyPassword)
        try store.accounts.signIn("Ann", password: "correct horse")
        #expect(try store.accounts.currentUser() == "ann")
    }

    @Test("A1 the real hasher is slow and verifies")
    func realHasher() throws {
        let hasher = PasswordHasher()
        let hash = try hasher.hash("pw")
        #expect(hash.hasPrefix("scrypt$32768$8$1$"))
        #expect(hasher.verify("pw", against: hash))
        #expect(!hasher.verify("pW", against: hash))
        #expect(!hasher.verify("pw", against: "garbage"))
    }

    @Test("A2 A4 a renewal on device B after one on device A never loses A's months")
    func renewalOnSecondDevice() throws {
        let state = TemporaryState()
        let phone = try state.signedIn("ann", device: "phone")
        let tablet = try state.signedIn("ann", device: "tablet")
        try phone.queue.buy("sub3")
        state.clock.advance(.days(10), calendar: utcCalendar)
        try tablet.queue.buy("sub6")
        // Phone's 16 Apr + 6 months + 1 day.
        let expected = utc(2026, 10, 17, 12)
        #expect(try tablet.entitlements.status().expiry == expected)
        #expect(try phone.server.storedExpiry(account: "ann") == expected)
        // The phone still knows its own until it restores (A5).
        #expect(try phone.entitlements.status().expiry == utc(2026, 4, 16, 12))
        #expect(try phone.queue.restore().expiry == expected)
    }

    @Test("A5 restore on a reset device brings comics and expiry back, not consumables")
    func restoreAfterReset() throws {
        let state = TemporaryState()
        let phone = try state.signedIn("ann")
        try phone.queue.buy("comic.b")
        try phone.queue.buy("comic.a")
        try phone.queue.buy("pack")
        try phone.queue.buy("sub3")
        try state.directory.removeDevice("phone")
        let fresh = try state.signedIn("ann")
        #expect(try fresh.entitlements.status().owned.isEmpty)
        var seen: [TransactionState] = []
        fresh.queue.observe { seen.append($0.state) }
        let result = try fresh.queue.restore()
        #expect(result.restored == ["comic.b", "comic.a"])
        #expect(seen == [.restored, .restored])
        #expect(result.expiry == utc(2026, 4, 16, 12))
        let status = try fresh.entitlements.status()
        #expect(status.owned == ["comic.b", "comic.a"])
        #expect(status.randomViewsRemaining == 0)
        #expect(try fresh.queue.history().allSatisfy { $0.state == .restored && $0.isFinished && $0.originalID != nil })
        #expect(error { try state.store(device: "guest-device").queue.restore() } == .notSignedIn)
    }

    @Test("A3 deleting the app wipes one device and nothing else")
    func resetOneDevice() throws {
        let state = TemporaryState()
        let phone = try state.store(device: "phone")
        let tablet = try state.store(device: "tablet")
        try phone.queue.buy("pack")
        try tablet.queue.buy("pack")
        try state.directory.removeDevice("phone")
        #expect(try state.store(device: "phone").entitlements.status().randomViewsRemaining == 0)
        #expect(try tablet.entitlements.status().randomViewsRemaining == 5)
        #expect(state.directory.devices() == ["phone", "tablet"])
        #expect(error { try state.directory.removeDevice("../server") } == .invalidDeviceName("../server"))
    }

    @Test("A7 signing in as another user shows that user's store, never the previous one's")
    func separateProfiles() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        try store.queue.buy("comic.a")
        try store.queue.buy("pack")
        try store.queue.buy("sub3")
        try store.accounts.signUp("bob", password: "pw")
        let bob = try store.entitlements.status()
        #expect(bob.user == "bob")
        #expect(bob.owned.isEmpty && bob.randomViewsRemaining == 0 && !bob.isSubscribed)
        #expect(try store.queue.history().isEmpty)
        try store.accounts.signOut()
        #expect(try store.entitlements.status().owned.isEmpty)
        try store.accounts.signIn("ann", password: "secret")
        #expect(try store.entitlements.status().owned == ["comic.a"])
        #expect(try store.entitlements.receipt().entries.count == 3)
    }

    @Test(
        "W2 a device's name that a server of an earlier build kept as sent is listed with its control characters as \"?\": it cannot move the owner's cursor, rewrite a line or set the clipboard"
    )
    func sessionNamesShown() throws {
        let state = TemporaryState()
        let store = try state.signedIn("ann")
        let server = try #require(store.server as? ServerDatabase)
        _ = try server.createSession(
            account: "ann", device: "\u{1B}[2K\u{1B}[1Aphone\n\u{9B}31m\u{7F}", at: utc(2026, 1, 15),
            expiresAt: utc(2026, 2, 15))
        _ = try server.createSession(
            account: "ann", device: "tablet", at: utc(2026, 1, 16), expiresAt: utc(2026, 2, 16))
        #expect(try store.accounts.deviceSessions().map(\.device).sorted() == ["?[2K?[1Aphone??31m?", "tablet"])
    }

    @Test("A7 state folders and database files are readable by their owner only")
    func permissions() throws {
        let state = TemporaryState()
        _ = try state.store()
        func mode(_ url: URL) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? -1) & 0o777
        }
        #expect(try mode(state.url) == 0o700)
        #expect(try mode(state.directory.devicesFolder) == 0o700)
        #expect(try mode(state.directory.serverDatabase) == 0o600)
        #expect(try mode(state.directory.deviceDatabase("phone")) == 0o600)
    }

    @Test("A6 the stored expiry equals the receipt's recomputation, over random histories", arguments: 0..<25)
    func receiptProperty(seed: Int) throws {
        var generator = SeededGenerator(seed: UInt64(seed + 1))
        let state = TemporaryState(start: utc(2026, 1, 31, 9))
        let devices = try ["phone", "tablet", "laptop"].map { try state.signedIn("ann", device: $0) }
        for _ in 0..<30 {
            let store = devices[Int.random(in: 0..<devices.count, using: &generator)]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...3:
                try store.queue.buy(Bool.random(using: &generator) ? "sub3" : "sub6")
            case 4:
                try store.queue.buy("sub3", outcome: .defer)
            case 5:
                if let waiting = try store.queue.pending().first { try store.queue.approve(waiting.id) }
            case 6:
                try store.queue.buy(
                    "sub6", outcome: .delayed(after: .days(Int.random(in: 1...60, using: &generator)), approve: true))
            case 7:
                try store.queue.restore()
            default:
                try store.queue.buy("pack")
            }
            // Jumps from minutes to most of a year, so that renewals are sometimes early, sometimes late.
            state.clock.advance(seconds: TimeInterval(Int.random(in: 60...(300 * 86_400), using: &generator)))
            for device in devices { try device.queue.recover() }
            let report = try store.entitlements.receipt()
            #expect(report.storedExpiry == report.recomputedExpiry, "seed \(seed)")
        }
        for device in devices {
            try device.queue.restore()
            let report = try device.entitlements.receipt()
            #expect(report.isConsistent)
            #expect(report.deviceExpiry == report.storedExpiry)
        }
    }
}

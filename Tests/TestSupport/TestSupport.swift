// Helpers the test targets share: a temporary state folder, a manual clock, a UTC calendar, a small catalog.
import Crypto
import Foundation
import StoreCore
import StoreModel

#if canImport(Glibc)
    import Glibc
#endif

/// 2026-01-15 12:00:00 UTC: a fixed start so that month ends and leap years are where tests expect.
public let startDate = utc(2026, 1, 15, 12)

public func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    var components = DateComponents()
    (components.year, components.month, components.day) = (year, month, day)
    (components.hour, components.minute, components.second) = (hour, minute, second)
    return utcCalendar.date(from: components)!
}

public let utcCalendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()

public let testCatalog = Catalog(
    name: "Test", bonusDays: 1,
    products: [
        Product(
            id: "comic.a", kind: .nonConsumable, title: "Comic A", description: "", price: Decimal(string: "0.99")!,
            image: "a.png"),
        Product(
            id: "comic.b", kind: .nonConsumable, title: "Comic B", description: "", price: Decimal(string: "0.99")!,
            image: "b.png"),
        Product(
            id: "comic.c", kind: .nonConsumable, title: "Comic C", description: "", price: Decimal(string: "0.99")!,
            image: "c.png"),
        Product(
            id: "pack", kind: .consumable, title: "Pack", description: "", price: Decimal(string: "0.99")!, quantity: 5),
        Product(
            id: "sub3", kind: .nonRenewingSubscription, title: "3 Months", description: "",
            price: Decimal(string: "2.99")!, months: 3),
        Product(
            id: "sub6", kind: .nonRenewingSubscription, title: "6 Months", description: "",
            price: Decimal(string: "4.99")!, months: 6),
    ]
)

/// RW Selfies' four auto-renewable plans in one group, plus a comic and a plan of
/// another group that unlocks every comic.
public let selfiesCatalog = familyShared(
    Catalog(
        name: "Selfies",
        products: [
            Product(
                id: "allaccess", kind: .autoRenewableSubscription, title: "All Access (Weekly)", description: "",
                price: Decimal(string: "1.99")!,
                autoRenew: AutoRenewTerms(period: .week, group: "selfies", rank: 1, unlocks: ["all-selfies"])),
            Product(
                id: "allaccess.monthly", kind: .autoRenewableSubscription, title: "All Access (Monthly)",
                description: "",
                price: Decimal(string: "5.99")!,
                autoRenew: AutoRenewTerms(
                    period: .month, group: "selfies", rank: 1,
                    introductoryOffer: IntroductoryOffer(mode: .freeTrial, period: .week), unlocks: ["all-selfies"],
                    offers: [
                        SubscriptionOffer(
                            id: "comeback", type: .promotional,
                            terms: IntroductoryOffer(
                                mode: .payAsYouGo, period: .month, periods: 3, price: Decimal(string: "2.99")!)),
                        SubscriptionOffer(
                            id: "free.month", type: .promotional,
                            terms: IntroductoryOffer(mode: .freeTrial, period: .month)),
                        SubscriptionOffer(
                            id: "WELCOME", type: .code, terms: IntroductoryOffer(mode: .freeTrial, period: .month),
                            eligibility: [.new]),
                        SubscriptionOffer(
                            id: "COMEBACK", type: .code,
                            terms: IntroductoryOffer(
                                mode: .payAsYouGo, period: .month, periods: 2, price: Decimal(string: "1.99")!),
                            eligibility: [.expired]
                        ),
                        SubscriptionOffer(
                            id: "ANYONE", type: .code,
                            terms: IntroductoryOffer(
                                mode: .payUpFront, period: .month, periods: 3, price: Decimal(string: "9.99")!)),
                        SubscriptionOffer(
                            id: "winback", type: .winBack,
                            terms: IntroductoryOffer(
                                mode: .payUpFront, period: .month, periods: 2, price: Decimal(string: "4.99")!),
                            winBack: WinBackEligibility(paidMonths: 1, lapsedMonths: 0...12)
                        ),
                    ])),
            Product(
                id: "oneaweek", kind: .autoRenewableSubscription, title: "One a Week (Weekly)", description: "",
                price: Decimal(string: "0.99")!,
                autoRenew: AutoRenewTerms(
                    period: .week, group: "selfies", rank: 2, unlocks: ["one-selfie-a-week"],
                    offers: [
                        SubscriptionOffer(
                            id: "upfront", type: .promotional,
                            terms: IntroductoryOffer(
                                mode: .payUpFront, period: .week, periods: 4, price: Decimal(string: "2.00")!))
                    ])),
            Product(
                id: "oneaweek.monthly", kind: .autoRenewableSubscription, title: "One a Week (Monthly)",
                description: "",
                price: Decimal(string: "2.99")!,
                autoRenew: AutoRenewTerms(
                    period: .month, group: "selfies", rank: 2,
                    introductoryOffer: IntroductoryOffer(mode: .freeTrial, period: .week),
                    unlocks: ["one-selfie-a-week"])),
            Product(
                id: "comics.yearly", kind: .autoRenewableSubscription, title: "Comics (Yearly)", description: "",
                price: Decimal(string: "9.99")!,
                autoRenew: AutoRenewTerms(
                    period: .year, group: "comics",
                    introductoryOffer: IntroductoryOffer(
                        mode: .payAsYouGo, period: .year, periods: 2, price: Decimal(string: "4.99")!),
                    unlocks: [AutoRenewTerms.allComics])),
            Product(
                id: "comic.a", kind: .nonConsumable, title: "Comic A", description: "", price: Decimal(string: "0.99")!,
                image: "a.png"),
        ]
    ))

/// A state folder in the system's temporary folder, removed when the value goes.
public final class TemporaryState {
    public let url: URL
    public let directory: StateDirectory
    public let clock: ManualClock

    public init(start: Date = startDate) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-tests-\(UUID().uuidString)")
        directory = StateDirectory(url)
        clock = ManualClock(start)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Ids from a seeded generator, for screens that must look the same every run.
    public var transactionIDs: (() -> String)?
    /// The account server every store of this folder uses, when not the folder's SQLite file.
    public var server: (any AccountServer)?

    public func store(
        device: String = "phone", catalog: Catalog = testCatalog,
        randomIndex: @escaping (Int) -> Int = { Int.random(in: 0..<$0) }
    ) throws -> Store {
        let factory = try StoreFactory(
            stateDirectory: directory, catalog: catalog, calendar: utcCalendar, time: .manual(clock), server: server)
        factory.passwordHasher = .fastForTests
        factory.randomIndex = randomIndex
        factory.makeTransactionID = transactionIDs
        return try factory.open(device: device)
    }

    /// Makes every store of this folder take its ids from a generator seeded with `seed`.
    public func seedTransactionIDs(_ seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        transactionIDs = { TransactionID.make(generator.next()) }
    }

    /// A store on `device` signed in as `user` (created if need be).
    public func signedIn(_ user: String, device: String = "phone", catalog: Catalog = testCatalog) throws -> Store {
        let store = try self.store(device: device, catalog: catalog)
        do {
            try store.accounts.signUp(user, password: "secret")
        } catch StoreError.accountExists {
            try store.accounts.signIn(user, password: "secret")
        }
        return store
    }
}

/// The error a throwing call ends with, or nil.
public func error<T>(_ body: () throws -> T) -> StoreError? {
    do {
        _ = try body()
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        return nil
    }
}

/// A small deterministic generator (SplitMix64) so that a failing history can be replayed.
public struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What the tests need from outside Swift, made ready on first use, so that `swift test` alone
/// works on a machine that has the packages: Apple's Python library in `.venv` (scripts/venv) and a
/// private PostgreSQL cluster (scripts/postgres-start, left running for the next run;
/// scripts/postgres-stop stops it). scripts/test installs the packages, prepares both and stops
/// the cluster after. Anything missing is one line naming scripts/test, never a skip.
public enum TestTools {
    public struct Missing: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Python with Apple's app-store-server-library: `STOREFRONT_PYTHON`, else the repository's .venv.
    public static func python() throws -> URL { try preparedPython.get() }

    /// The URL of the cluster's database: `STOREFRONT_TEST_POSTGRES`, else the private cluster.
    public static func postgres() throws -> String { try preparedPostgres.get() }

    private static let preparedPython: Result<URL, Missing> = {
        if let given = ProcessInfo.processInfo.environment["STOREFRONT_PYTHON"] {
            return .success(URL(fileURLWithPath: given))
        }
        return script("venv", what: "Apple's app-store-server-library (.venv)").map { URL(fileURLWithPath: $0) }
    }()

    private static let preparedPostgres: Result<String, Missing> = {
        if let given = ProcessInfo.processInfo.environment["STOREFRONT_TEST_POSTGRES"], !given.isEmpty {
            return .success(given)
        }
        return script("postgres-start", what: "a PostgreSQL cluster")
    }()

    /// Runs scripts/NAME: the last line it prints, or its last complaint.
    private static func script(_ name: String, what: String) -> Result<String, Missing> {
        let process = Process()
        process.executableURL = repositoryRoot.appendingPathComponent("scripts/\(name)")
        let output = Pipe()
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storefront-\(name)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardOutput = output
        process.standardError = try? FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            return .failure(Missing(description: "scripts/\(name) could not run (\(error)): run scripts/test"))
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        let complaint = errors.split(separator: "\n").last.map(String.init) ?? "exit \(process.terminationStatus)"
        guard process.terminationStatus == 0, let line = printed.split(separator: "\n").last.map(String.init) else {
            return .failure(
                Missing(
                    description:
                        "\(what) is not ready and scripts/\(name) failed (\(complaint)): run scripts/test, which installs what is missing"
                ))
        }
        return .success(line)
    }
}

/// The PostgreSQL cluster the server tests run against too (W5): see TestTools.
public enum TestPostgres {
    public typealias Missing = TestTools.Missing

    /// A new empty database on the cluster, for one test: its URL.
    public static func freshDatabase() throws -> String {
        let base = try TestTools.postgres()
        guard let url = URL(string: base) else { throw Missing(description: "not a PostgreSQL URL: \(base)") }
        let name =
            "storefront_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let psql = Process()
        psql.executableURL = URL(
            fileURLWithPath: ["/usr/bin/psql", "/usr/local/bin/psql"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            } ?? "/usr/bin/psql")
        psql.arguments = [base, "-qc", "CREATE DATABASE \(name)"]
        psql.standardOutput = FileHandle.nullDevice
        try psql.run()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else {
            throw Missing(
                description: "cannot create a database on \(base) (is the cluster running? scripts/postgres-start)")
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.path = "/\(name)"
        return components?.string ?? base
    }
}

/// A listening socket on 127.0.0.1 that never answers: a server that accepts and stays silent (W4),
/// or a port held on another IPv4 address (`port` 0 picks a free one).
public final class SilentListener {
    public struct Failed: Error {}

    private let descriptor: Int32
    public let port: Int

    public init(address host: String = "127.0.0.1", port wanted: Int = 0) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(wanted).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = descriptor
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        // No close here: a class whose initializer throws once it is whole is deinitialized, and
        // a second close could take a descriptor number another thread has been given since.
        guard descriptor >= 0, bound, listen(descriptor, 16) == 0 else { throw Failed() }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// How many connections wait in the backlog (each is taken and closed).
    public func takeConnections() -> Int {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL, 0) | O_NONBLOCK)
        var taken = 0
        while true {
            let connection = accept(descriptor, nil, nil)
            if connection < 0 { return taken }
            close(connection)
            taken += 1
        }
    }
}

/// A subscription-offer key installed in a store's keyring, and promotional offers signed with it
/// at the store's time (the original form), as a developer's server would (O2).
public struct TestOfferKey: Sendable {
    public let privateKey = P256.Signing.PrivateKey()
    public let keyID = "TESTOFFER1"

    public init(installedIn store: Store) throws {
        var keyring = try store.server.apiKeyring() ?? APIKeyring()
        keyring.keys.append(
            APIKey(
                keyID: keyID, publicKey: privateKey.publicKey.x963Representation, createdAt: store.now(),
                type: .subscriptionOffer))
        try store.server.setAPIKeyring(keyring)
    }

    public func request(_ store: Store, product: String, offer: String) throws -> PromotionalOfferRequest {
        let signature = try PromotionalOfferCheck.signOriginal(
            key: privateKey, keyID: keyID, bundleID: try store.signed.identity().bundleID, productID: product,
            offerID: offer,
            timestamp: Int64(store.now().timeIntervalSince1970 * 1000)
        )
        return PromotionalOfferRequest(offerID: offer, signature: signature)
    }
}

/// O5: the two All Access plans and the comic of a catalog are family-shareable, as in the shipped ones.
func familyShared(_ catalog: Catalog) -> Catalog {
    var shared = catalog
    shared.products = catalog.products.map { product in
        var product = product
        product.isFamilyShareable = product.id.hasPrefix("allaccess") || product.id == "comic.a"
        return product
    }
    return shared
}

extension Store {
    /// The records this store keeps: every test's store but a team device's.
    public var records: any RecordKeeping {
        guard let keeper = server.keeper.here else { preconditionFailure("a team device keeps no records") }
        return keeper
    }
}

/// Runs blocking work (reading a long-running process's pipe, waiting for its end, a device's
/// synchronous call) on a Dispatch thread, not on one of the cooperative pool's: the test waits
/// without holding a thread.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

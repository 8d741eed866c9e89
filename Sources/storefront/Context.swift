// Options every subcommand takes (L2) and the wiring from them to a Store.
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import StorefrontApp

#if canImport(Glibc)
    import Glibc
#endif

struct CommonOptions: ParsableArguments {
    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "Where state is kept (default: $STOREFRONT_STATE_DIR, else $XDG_STATE_HOME/storefront).", valueName: "dir"))
    var stateDirectory: String?

    @Option(help: ArgumentHelp("The device: a named local profile (A3).", valueName: "name"))
    var device: String = "default"

    /// The catalog and how to read it: the options every command that reads one takes.
    @OptionGroup var catalogOptions: CatalogOptions

    var catalog: String? {
        get { catalogOptions.catalog }
        set { catalogOptions.catalog = newValue }
    }
    var months: [MonthsArgument] { catalogOptions.months }
    var durations: [ProductDurationArgument] { catalogOptions.durations }
    var locale: String? { catalogOptions.locale }
    var assets: String? { catalogOptions.assets }

    @Option(
        help: ArgumentHelp(
            "Act as this account for this command only; the password comes from $STOREFRONT_PASSWORD or standard input.",
            valueName: "name"))
    var user: String?

    @Option(
        help: ArgumentHelp(
            "The outcome of purchases made by this command: approve, defer, fail=REASON, delay=DURATION:approve|decline, interrupt.",
            valueName: "outcome"), transform: OutcomeArgument.parse)
    var outcome: OutcomeArgument?

    @Option(help: "If the account's storefront changes before a purchase settles: continue (the default) or cancel.")
    var onStorefrontChange: StorefrontChangeChoice?

    @Option(
        help: ArgumentHelp(
            "The clock for this command only: real, offset=DURATION, at=ISO8601 or rate=N (the stored timeline is not changed).",
            valueName: "clock"), transform: ClockArgument.parse)
    var clock: ClockArgument?

    @Option(
        help: ArgumentHelp(
            "The account server: `storefront serve` at http://HOST:PORT or https://HOST:PORT (default: $STOREFRONT_SERVER, else the state folder's own).",
            valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "For https:// (the account server, webhooks): trust this PEM certificate authority beside the system's (default: $STOREFRONT_CA_FILE).",
            valueName: "pem"))
    var caFile: String?

    @Option(
        name: .customLong("developer-token-file"),
        help: ArgumentHelp(
            "With --server: act as the developer, with the token in this file (default: $STOREFRONT_DEVELOPER_TOKEN).",
            valueName: "file"))
    var developerTokenFile: String?

    @Flag(help: "Print JSON for scripts.")
    var json = false
}

/// The options of a command that reads a catalog and nothing else (scenarios, catalog check):
/// its `--help` lists only these.
struct CatalogOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A catalog file (default: $STOREFRONT_CATALOG, else the shipped assets/catalog.json).", valueName: "file"))
    var catalog: String?

    @Option(
        name: .customLong("months"),
        help: ArgumentHelp(
            "How many months a non-renewing subscription of a .storekit file lasts (repeatable).",
            valueName: "product=N"), transform: MonthsArgument.parse)
    var months: [MonthsArgument] = []

    @Option(
        name: .customLong("duration"),
        help: ArgumentHelp(
            "How long a non-renewing subscription of a .storekit file lasts, as P7D, P2W, P1M or P1Y (repeatable).",
            valueName: "product=period"), transform: ProductDurationArgument.parse)
    var durations: [ProductDurationArgument] = []

    @Option(
        help: ArgumentHelp(
            "The storefront's locale for names and prices (default: the catalog's), such as ar_SA or zh_CN.",
            valueName: "locale"))
    var locale: String?

    @Option(
        help: ArgumentHelp(
            "The folder of shipped assets (default: $STOREFRONT_ASSETS, else found beside the program).",
            valueName: "dir"))
    var assets: String?

    /// The same choices as the options every store command takes, the rest at their defaults.
    var common: CommonOptions {
        var options = try! CommonOptions.parse([])
        options.catalogOptions = self
        return options
    }
}

/// A failure the command line reports as one line on standard error, with an exit status:
/// 1 the request could not be done (a failed purchase, no views left), 2 bad input, 3 storage.
struct CommandFailure: Error {
    let message: String
    let status: Int32
}

/// Everything a subcommand needs, opened from the common options.
struct Context {
    let options: CommonOptions
    let store: Store
    let stateDirectory: StateDirectory
    let loaded: LoadedCatalog
    let calendar: Calendar
    let iso: ISO8601DateFormatter

    var json: Bool { options.json }

    static func open(_ options: CommonOptions, recover: Bool = true) throws -> Context {
        let loaded = try loadCatalog(options)
        reportWarnings(loaded.warnings)
        return try open(
            options, loaded: loaded, password: try options.user.map { _ in try readPassword() }, recover: recover)
    }

    /// Opens the store for a catalog already loaded; `password` is for `--user`.
    static func open(_ options: CommonOptions, loaded: LoadedCatalog, password: String?, recover: Bool = true) throws
        -> Context
    {
        let stateDirectory = StateDirectory(try resolveStateDirectory(options))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        calendar.locale = Locale(identifier: "en_US_POSIX")
        let override = options.clock?.setting(real: Date(), calendar: calendar)
        // Refused before anything is created.
        try StateDirectory.validate(device: options.device)
        let factory = try StoreFactory(
            stateDirectory: stateDirectory, catalog: loaded.catalog, calendar: calendar,
            time: .shared(override: override), server: try remoteServer(options)
        )
        let server = factory.server
        let store = try factory.open(device: options.device)
        // A .storekit file's time rate and billing settings start a fresh state folder. A device's
        // catalog does not set a team server's: the server's own did when it started, and after
        // that only the developer changes them (W9).
        try server.keeper.here?.adoptDefaults(
            clockRate: loaded.catalog.clockRate, billing: loaded.catalog.billing, real: Date())
        store.queue.outcomeOverride = options.outcome?.outcome
        store.queue.onStorefrontChange = options.onStorefrontChange ?? .continue
        store.crashPoints = try crashHook()
        if let user = options.user {
            try store.accounts.actAs(user, password: password ?? "")
        }
        let context = Context(
            options: options, store: store, stateDirectory: stateDirectory, loaded: loaded, calendar: calendar,
            iso: isoFormatter(calendar.timeZone)
        )
        if recover { try context.recover() }
        return context
    }

    /// The account server named by `--server` or $STOREFRONT_SERVER (W1), nil for the state
    /// folder's own. $STOREFRONT_SERVER_TIMEOUT is how long a call may take, in seconds (10).
    static func remoteServer(_ options: CommonOptions) throws -> RemoteAccountServer? {
        let environment = ProcessInfo.processInfo.environment
        try applyCAFile(options)
        guard let text = options.server ?? environment["STOREFRONT_SERVER"], !text.isEmpty else { return nil }
        // HOST:PORT alone is the plain http:// that `storefront serve` prints by default.
        guard let url = URL(string: text.contains("://") ? text : "http://" + text), HTTPCall.supports(url) else {
            throw CommandFailure(
                message: "--server takes http://HOST:PORT or https://HOST:PORT of `storefront serve`, not \"\(text)\"",
                status: 2)
        }
        let timeout = environment["STOREFRONT_SERVER_TIMEOUT"].flatMap(Double.init).map { max(0.1, $0) } ?? 10
        // W9: the developer's token makes this device the developer; without it, a customer.
        var developer = environment["STOREFRONT_DEVELOPER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let file = options.developerTokenFile {
            guard let token = DeveloperToken.read(URL(fileURLWithPath: file)) else {
                throw CommandFailure(message: "\(file): cannot be read, or holds no developer token", status: 2)
            }
            developer = token
        }
        return try RemoteAccountServer(url: url, timeout: timeout, developerToken: developer)
    }

    /// W13: `--ca-file` (else $STOREFRONT_CA_FILE) is checked now, in one line, and handed to the
    /// TLS client and to any program this one starts (`serve`'s server) in the environment.
    static func applyCAFile(_ options: CommonOptions) throws {
        let variable = "STOREFRONT_CA_FILE"
        guard let path = options.caFile ?? ProcessInfo.processInfo.environment[variable], !path.isEmpty else { return }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandFailure(message: "the CA file \(path) cannot be read", status: 2)
        }
        guard text.contains("-----BEGIN CERTIFICATE-----") else {
            throw CommandFailure(message: "the CA file \(path) holds no PEM certificate", status: 2)
        }
        setenv(variable, path, 1)
    }

    /// Missing images are summed up in one line (the comics issue adds them); the rest are printed.
    static func reportWarnings(_ warnings: [CatalogWarning]) {
        let images = warnings.filter { $0.message.hasPrefix("image ") }
        for warning in warnings where !images.contains(warning) { printError(warning.description) }
        if let first = images.first {
            printError(
                "\(first.file): warning: \(images.count) image(s) missing; `storefront catalog check` lists them")
        }
    }

    /// The id of the product a person named by id or title, or the unknown-product error with a
    /// close suggestion: every subcommand that takes a product takes either.
    func productID(_ name: String) throws -> String { try store.catalog.require(name).id }

    /// Q3 and Q5: finish what an earlier run left and fire delayed outcomes that are due.
    func recover() throws {
        report(try store.queue.recover())
    }

    /// Says on standard error what recovery completed, so that a script's log shows it.
    func report(_ report: RecoveryReport) {
        if !report.redelivered.isEmpty {
            printError(
                "storefront: delivered \(report.redelivered.count) unfinished transaction(s): \(report.redelivered.joined(separator: ", "))"
            )
        }
        if !report.abandoned.isEmpty {
            printError(
                "storefront: \(report.abandoned.count) purchase(s) cut off before the store answered were marked failed (network): \(report.abandoned.joined(separator: ", "))"
            )
        }
    }

    /// A date as the `--json` outputs write it (ISO 8601, below), nil for none.
    func dateText(_ date: Date?) -> String? { date.map(isoText) }

    /// ISO 8601 in the store calendar's zone, with one formatter for the whole command (a history
    /// prints several dates per transaction).
    func isoText(_ date: Date) -> String { iso.string(from: date) }

    static func isoFormatter(_ timeZone: TimeZone) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = timeZone
        return formatter
    }

    // MARK: Resolving paths

    /// The catalog file the options name: --catalog, $STOREFRONT_CATALOG, else the shipped one.
    static func catalogFile(_ options: CommonOptions) throws -> URL {
        if let catalog = options.catalog ?? Environment.current.catalog { return URL(fileURLWithPath: catalog) }
        if let assets = locateAssets(options.assets) { return assets.appendingPathComponent("catalog.json") }
        throw CommandFailure(
            message:
                "cannot find the shipped assets folder: pass --assets DIR or set STOREFRONT_ASSETS (or name a catalog with --catalog FILE)",
            status: 2
        )
    }

    static func loadCatalog(_ options: CommonOptions) throws -> LoadedCatalog {
        let catalogURL = try catalogFile(options)
        if let locale = options.locale,
            locale.range(of: #"^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$"#, options: .regularExpression) == nil
        {
            throw CommandFailure(
                message: "--locale \"\(locale)\" is not a locale such as en_US, ar_SA or zh_Hans_CN", status: 2)
        }
        var storeKit = StoreKitOptions(locale: options.locale)
        for item in options.months { storeKit.durations[item.productID] = SubscriptionPeriod(item.months, .month) }
        for item in options.durations { storeKit.durations[item.productID] = item.period }
        if !storeKit.durations.isEmpty, !StoreKitCatalog.isStoreKit(catalogURL) {
            let flag = options.durations.isEmpty ? "--months" : "--duration"
            throw CommandFailure(
                message: "\(flag) is for .storekit files; \(catalogURL.lastPathComponent) states its durations itself",
                status: 2)
        }
        do {
            let loaded = try CatalogLoader.load(contentsOf: catalogURL, storeKit: storeKit)
            guard let locale = options.locale else { return loaded }
            var catalog = loaded.catalog
            catalog.localeIdentifier = locale
            return LoadedCatalog(
                catalog: catalog, warnings: loaded.warnings, imageRoot: loaded.imageRoot,
                unusedAssets: loaded.unusedAssets)
        } catch {
            throw CommandFailure(message: error.description, status: 2)
        }
    }

    /// --assets, then $STOREFRONT_ASSETS, then an `assets` folder beside the program or above it
    /// (a build tree, or an install's share/storefront/assets), then the current folder's, then
    /// the copy carried inside the program, written out to the cache folder.
    static func locateAssets(_ option: String?) -> URL? {
        if let found = locateAssetsFolder(option) { return found }
        return try? ShippedAssets.materialize(
            in: ShippedAssets.cacheRoot(environment: ProcessInfo.processInfo.environment))
    }

    private static func locateAssetsFolder(_ option: String?) -> URL? {
        if let option { return URL(fileURLWithPath: option) }
        if let variable = Environment.current.assets { return URL(fileURLWithPath: variable) }
        let isAssets = { (url: URL) in
            FileManager.default.fileExists(atPath: url.appendingPathComponent("catalog.json").path)
        }
        if var folder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            for _ in 0..<6 {
                for candidate in [
                    folder.appendingPathComponent("assets"), folder.appendingPathComponent("share/storefront/assets"),
                ]
                where isAssets(candidate) {
                    return candidate
                }
                folder.deleteLastPathComponent()
            }
        }
        let local = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("assets")
        return isAssets(local) ? local : nil
    }

    static func resolveStateDirectory(_ options: CommonOptions) throws -> URL {
        let environment = Environment.current
        if let path = options.stateDirectory { return URL(fileURLWithPath: path) }
        if let path = environment.stateDirectory { return URL(fileURLWithPath: path) }
        if let path = environment.xdgStateHome, path.hasPrefix("/") {
            return URL(fileURLWithPath: path).appendingPathComponent("storefront")
        }
        guard let home = environment.home else {
            throw CommandFailure(
                message: "no state folder: pass --state-dir DIR or set STOREFRONT_STATE_DIR", status: 2)
        }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/storefront")
    }

    // MARK: Environment

    /// STOREFRONT_FAULT=crash-at:POINT: die like `kill -9` at that durability step
    /// (`storefront crash-points` lists them). `crash-before-finish` is the older name of
    /// `crash-at:purchase-marked`.
    static func crashHook() throws -> (CrashPoint) throws(StoreError) -> Void {
        guard let fault = Environment.current.fault else { return { _ in } }
        let name =
            fault == "crash-before-finish"
            ? CrashPoint.purchaseMarked.rawValue
            : fault.hasPrefix("crash-at:") ? String(fault.dropFirst("crash-at:".count)) : ""
        guard let target = CrashPoint(rawValue: name) else {
            let names = CrashPoint.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandFailure(
                message: "unknown STOREFRONT_FAULT \"\(fault)\" (expected crash-at:POINT, POINT one of \(names))",
                status: 2)
        }
        return { point in
            if point == target { kill(getpid(), SIGKILL) }
        }
    }

    /// The password: $STOREFRONT_PASSWORD, else typed (without echo on a terminal), else one line
    /// of standard input.
    static func readPassword() throws -> String {
        if let password = Environment.current.password { return password }
        if isatty(STDIN_FILENO) != 0, let typed = getpass("Password: ") {
            return String(cString: typed)
        }
        guard let line = readLine(strippingNewline: true) else {
            throw CommandFailure(
                message: "no password: set STOREFRONT_PASSWORD or pipe it on standard input", status: 2)
        }
        return line
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

// storefront-bench: every figure beside the limit it is measured against, as a ratio.
//   swift build -c release && .build/release/storefront-bench
// Medians of repeated runs; wall-clock time on this machine, so re-run for a fair comparison.
import CImageCodecs
import Crypto
import Foundation
import GRDB
import StoreCore
import StoreModel
import StorefrontApp
import StorefrontServer
import TerminalUI
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
let repository = binaries.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-bench-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs { times.append(try seconds(body)) }
    times.sort()
    return times[times.count / 2]
}

func ms(_ value: Double) -> String { String(format: "%.3f ms", value * 1000) }
func ratio(_ value: Double, _ limit: Double) -> String { String(format: "%.2f×", value / limit) }
func row(_ name: String, _ figure: String, _ against: String, _ ratio: String, _ target: String) {
    print("| \(name) | \(figure) | \(against) | \(ratio) | \(target) |")
}

// `storefront-bench --targets`: every target's name and goal, nothing measured.
if CommandLine.arguments.dropFirst().first == "--targets" {
    for target in targets { print("\(target.name)\t\(target.goal)") }
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "before-after" {
    guard CommandLine.arguments.count >= 3 else {
        FileHandle.standardError.write(
            Data("usage: storefront-bench before-after DIR [ROUNDS] [SECTION …] (DIR: an earlier release build)\n".utf8)
        )
        exit(2)
    }
    let before = URL(fileURLWithPath: CommandLine.arguments[2]).appendingPathComponent("storefront-bench")
    let rounds = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 3 : 3
    let named = Array(CommandLine.arguments.dropFirst(4))
    let within = try beforeAfter(
        before: before, after: binaries.appendingPathComponent("storefront-bench"), rounds: rounds,
        sections: named.isEmpty ? ["remote", "serve", "start"] : named
    )
    try? FileManager.default.removeItem(at: scratch)
    exit(within ? 0 : 1)
}

/// `storefront-bench [SECTION …]` runs only the sections named (images, screen, start, durable,
/// receipt, plans, signing, remote, serve, seam): for profiling one of them.
let sections = Set(CommandLine.arguments.dropFirst())
func wants(_ section: String) -> Bool { sections.isEmpty || sections.contains(section) }

print("| measure | figure | limit it is measured against | ratio | target |")
print("|---|---|---|---|---|")

// MARK: Images: decode + scale + draw, against the decoder's own full-size decode alone.

if wants("images") || sections.contains("images-once") {
    let comic = try PNGCodec.decode(contentsOf: repository.appendingPathComponent("assets/comics/cat-judge.png"))
    let big = Scaler.scale(comic, toWidth: 1024, height: 1024)
    let pngFile = scratch.appendingPathComponent("big.png")
    try PNGCodec.encode(big, layout: .rgba).write(to: pngFile)
    let jpegFile = scratch.appendingPathComponent("big.jpg")
    try JPEGCodec.encode(big, layout: .baseline, quality: 90).write(to: jpegFile)

    /// libpng's simplified API, the whole picture into one RGBA buffer: its own fastest path.
    func libpngDecodeAlone() {
        var image = png_image()
        image.version = sf_png_image_version
        guard png_image_begin_read_from_file(&image, pngFile.path) != 0 else { fatalError("libpng") }
        image.format = sf_png_format_rgba
        var buffer = [UInt8](repeating: 0, count: Int(image.width * image.height * 4))
        buffer.withUnsafeMutableBytes { _ = png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
    }
    /// TurboJPEG, the whole picture at full size into one RGBA buffer, from the file.
    func turbojpegDecodeAlone() {
        guard let data = try? Data(contentsOf: jpegFile), let handle = tjInitDecompress() else { fatalError("jpeg") }
        defer { tjDestroy(handle) }
        var buffer = [UInt8](repeating: 0, count: 1024 * 1024 * 4)
        let status = data.withUnsafeBytes { bytes in
            buffer.withUnsafeMutableBytes { out in
                tjDecompress2(
                    handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                    out.baseAddress?.assumingMemoryBound(to: UInt8.self), 1024, 0, 1024, Int32(TJPF_RGBA.rawValue), 0)
            }
        }
        guard status == 0 else { fatalError("jpeg") }
    }

    // `storefront-bench images-once`: each step once, for callgrind (BENCHMARKS.md at 8a86700, the breakdown).
    if sections.contains("images-once") {
        libpngDecodeAlone()
        turbojpegDecodeAlone()
        for (columns, rows) in [(80, 24), (200, 60)] {
            var screen = Screen(size: Size(columns: columns, rows: rows))
            for file in [pngFile, jpegFile] {
                screen.draw(
                    try Picture(contentsOf: file, columns: columns, rows: rows), in: screen.bounds, depth: .palette256)
            }
        }
        exit(0)
    }
    let pngAlone = median(15) { libpngDecodeAlone() }
    let jpegAlone = median(15) { turbojpegDecodeAlone() }
    for (columns, rows) in [(80, 24), (200, 60)] {
        var screen = Screen(size: Size(columns: columns, rows: rows))
        for (format, file, alone) in [("PNG", pngFile, pngAlone), ("JPEG", jpegFile, jpegAlone)] {
            let pipeline = try median(15) {
                let picture = try Picture(contentsOf: file, columns: columns, rows: rows)
                screen.draw(picture, in: screen.bounds, depth: .palette256)
            }
            judge(
                "\(format.lowercased())-\(columns)x\(rows)",
                row: "\(format) pipeline 1024² → \(columns)×\(rows) (read+decode+scale+draw)", figure: pipeline,
                shown: ms(pipeline), limit: alone,
                against: "\(format == "PNG" ? "libpng" : "libjpeg-turbo")'s full-size decode alone \(ms(alone))")
        }
        let picture = try Picture(contentsOf: pngFile, columns: columns, rows: rows)
        screen.draw(picture, in: screen.bounds, depth: .palette256)
        let redraw = median(50) { screen.draw(picture, in: screen.bounds, depth: .palette256) }
        judge(
            "redraw-\(columns)x\(rows)", row: "redraw from the cache at \(columns)×\(rows)", figure: redraw,
            shown: ms(redraw), limit: 0.001, against: "1 ms")
    }
}

// MARK: The screen: one arrow key, against a full repaint.

setenv("LINES", "24", 1)
setenv("COLUMNS", "80", 1)
let terminalOutput = scratch.appendingPathComponent("terminal.out")
_ = FileManager.default.createFile(atPath: terminalOutput.path, contents: nil)
let catalog = try CatalogLoader.load(contentsOf: repository.appendingPathComponent("assets/catalog.json")).catalog
var utc = Calendar(identifier: .gregorian)
utc.timeZone = TimeZone(identifier: "UTC")!

/// A store built as every program builds one: through StoreFactory.
func makeStore(
    stateDirectory: StateDirectory, device: String, catalog: Catalog, clock: any StoreClock, calendar: Calendar,
    passwordHasher: PasswordHasher = PasswordHasher()
) throws(StoreError) -> Store {
    let factory = try StoreFactory(
        stateDirectory: stateDirectory, catalog: catalog, calendar: calendar, time: .given(clock))
    factory.passwordHasher = passwordHasher
    return try factory.open(device: device)
}
if wants("screen") {
    let store = try makeStore(
        stateDirectory: StateDirectory(scratch.appendingPathComponent("screen")), device: "bench", catalog: catalog,
        clock: ManualClock(Date(timeIntervalSince1970: 1_780_000_000)), calendar: utc
    )
    let terminal = try CursesTerminal(terminalType: "xterm-256color", output: terminalOutput.path, input: "/dev/null")
    let app = App(
        store: LiveStore(store: store), terminal: terminal,
        pictures: PictureCache(root: repository.appendingPathComponent("assets")), route: .products)
    app.load()
    app.draw()
    func written() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: terminalOutput.path)[.size] as? Int) ?? 0
    }
    var keyBytes: [Int] = []
    var downward = true
    let keyTime = median(201) {
        let before = written()
        app.handle(.key(downward ? .down : .up))
        app.draw()
        downward.toggle()
        fflush(nil)
        keyBytes.append(written() - before)
    }
    keyBytes.sort()
    var fullBytes: [Int] = []
    let fullTime = median(21) {
        let before = written()
        terminal.invalidate()
        app.draw()
        fflush(nil)
        fullBytes.append(written() - before)
    }
    fullBytes.sort()
    judge(
        "arrow-key", row: "one arrow key in the product list (80×24)", figure: keyTime, shown: ms(keyTime),
        limit: fullTime, against: "full repaint \(ms(fullTime))")
    let (keyMedian, fullMedian) = (keyBytes[keyBytes.count / 2], fullBytes[fullBytes.count / 2])
    judge(
        "arrow-key-bytes", row: "bytes written for one arrow key", figure: Double(keyMedian), shown: "\(keyMedian) B",
        limit: Double(fullMedian), against: "full repaint \(fullMedian) B")
    // Issue 70: the same key while the screen's store waits on a team server that accepts and
    // never answers, its effects off the loop as the screen program runs them.
    let silent = try SilentListener()
    let stalledDirectory = StateDirectory(scratch.appendingPathComponent("stalled"))
    let stalled = App(
        store: OpeningStore(catalog: catalog, server: "http://127.0.0.1:\(silent.port)") {
            let remote = try RemoteAccountServer(
                url: URL(string: "http://127.0.0.1:\(silent.port)")!, timeout: 3600)
            return try StoreFactory(
                stateDirectory: stalledDirectory, catalog: catalog, calendar: utc,
                time: .given(ManualClock(Date(timeIntervalSince1970: 1_780_000_000))), server: remote
            ).open(device: "bench")
        }, terminal: terminal, pictures: PictureCache(root: repository.appendingPathComponent("assets")),
        route: .products)
    stalled.patience = 0.1
    stalled.startBackground()
    stalled.load()
    let deadline = Date().addingTimeInterval(60)
    while stalled.state.serverProblem == nil && Date() < deadline {
        stalled.collect()
        usleep(10_000)
    }
    terminal.invalidate()
    stalled.draw()
    var stalledDown = true
    let stalledTime = median(201) {
        stalled.collect()
        stalled.handle(.key(stalledDown ? .down : .up))
        stalled.draw()
        stalledDown.toggle()
        fflush(nil)
    }
    let waiting = stalled.state.serverProblem != nil && stalled.isWaitingOnStore
    if waiting {
        judge(
            "arrow-key-stalled", row: "one arrow key while a team call is stalled", figure: stalledTime,
            shown: ms(stalledTime), limit: keyTime, against: "the same key idle \(ms(keyTime))")
    } else {
        row("one arrow key while a team call is stalled", "not run", "the call did not stall", "", "")
    }
    stalled.stopBackground()
    terminal.restore()
}

// MARK: Start to first full frame, against a minimal C ncurses program; peak memory.

/// Runs `command` on a pseudo-terminal (script(1)); returns the wall time and the peak RSS of the
/// processes it waited for.
func onTerminal(_ command: String, environment: [String: String]) -> (Double, Int) {
    var pid: pid_t = 0
    let arguments: [String] = ["/usr/bin/script", "-qfec", command, "/dev/null"]
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for pointer in argv + envp { free(pointer) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let start = DispatchTime.now().uptimeNanoseconds
    posix_spawn(&pid, "/usr/bin/script", &actions, nil, argv, envp)
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    posix_spawn_file_actions_destroy(&actions)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    var children = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &children)
    return (elapsed, children.ru_maxrss * 1024)
}

if wants("start") {
    let screenEnvironment = [
        "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "HOME": scratch.path,
        "STOREFRONT_STATE_DIR": scratch.appendingPathComponent("start").path,
        "STOREFRONT_ASSETS": repository.appendingPathComponent("assets").path,
        "STOREFRONT_EXIT_AFTER_FIRST_FRAME": "1", "STOREFRONT_PASSWORD": "bench",
    ]
    _ = onTerminal(
        "'\(binaries.appendingPathComponent("storefront").path)' account signup bench", environment: screenEnvironment)
    let floorTimes = (0..<15).map { _ in
        onTerminal(binaries.appendingPathComponent("ncurses-floor").path, environment: screenEnvironment).0
    }.sorted()
    // Timed as the floor is, with nothing between script(1) and the program.
    let screenTimes = (0..<15).map { _ in
        onTerminal("'\(binaries.appendingPathComponent("storefront").path)'", environment: screenEnvironment).0
    }.sorted()
    var peak = 0
    for _ in 0..<5 {
        // GNU time reports the screen program's own peak (the sign-up above ran scrypt's 32 MiB); it
        // runs apart from the timed runs, since starting it costs milliseconds of its own.
        let report = scratch.appendingPathComponent("peak.txt")
        _ = onTerminal(
            "/usr/bin/time -f %M -o '\(report.path)' '\(binaries.appendingPathComponent("storefront").path)'",
            environment: screenEnvironment)
        let kilobytes =
            Int(
                (try? String(contentsOf: report, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                    ?? "") ?? 0
        peak = max(peak, kilobytes * 1024)
    }
    let floorTime = floorTimes[floorTimes.count / 2]
    let screenTime = screenTimes[screenTimes.count / 2]
    judge(
        "first-frame", row: "start to first full frame (script(1) pty, 80×24)", figure: screenTime,
        shown: ms(screenTime), limit: floorTime, against: "C ncurses one frame \(ms(floorTime))")
    judge(
        "screen-memory", row: "peak memory of the screen program, default catalog", figure: Double(peak),
        shown: String(format: "%.1f MB", Double(peak) / 1e6), limit: 30e6, against: "30 MB")
}

// MARK: Durable purchases, against raw SQLite single-row commits with the same journal settings.

if wants("durable") {
    let folder = StateDirectory(scratch.appendingPathComponent("durable"))
    let store = try makeStore(
        stateDirectory: folder, device: "bench", catalog: catalog,
        clock: ManualClock(Date(timeIntervalSince1970: 1_780_000_000)),
        calendar: utc, passwordHasher: PasswordHasher(cost: 16)
    )
    try store.accounts.signUp("bench", password: "bench")
    let count = 200
    let storeTime = try seconds { for _ in 0..<count { try store.queue.buy("com.storefront.sub.3months") } }
    var configuration = Configuration()
    configuration.journalMode = .wal
    configuration.prepareDatabase { try $0.execute(sql: "PRAGMA synchronous = FULL") }
    let raw = try DatabaseQueue(path: scratch.appendingPathComponent("raw.sqlite").path, configuration: configuration)
    try raw.write { try $0.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, value TEXT)") }
    let rawTime = try seconds {
        for index in 0..<count {
            try raw.write { try $0.execute(sql: "INSERT INTO t(value) VALUES (?)", arguments: ["\(index)"]) }
        }
    }
    let storeRate = Double(count) / storeTime
    let rawRate = Double(count) / rawTime
    judge(
        "durable-purchases", row: "durable subscription purchases per second (account, receipt + device)",
        figure: storeRate, shown: String(format: "%.0f /s", storeRate), limit: rawRate,
        against: String(format: "raw SQLite commits %.0f /s", rawRate))
}

// MARK: The receipt: expiry from 1,000,000 transactions; status with 100,000 in the history.

if wants("receipt") {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let entries = (0..<1_000_000).map { index in
        ReceiptEntry(
            transactionID: String(format: "%016x", index), account: "a", productID: "sub3",
            kind: .nonRenewingSubscription,
            months: index % 2 == 0 ? 3 : 6, bonusDays: 1, purchaseDate: start.addingTimeInterval(Double(index) * 3600),
            device: "d"
        )
    }
    // In purchase order, as the server hands a receipt over; then shuffled, which forces a sort.
    let inOrder = median(5) { _ = SubscriptionMath.recomputeExpiry(from: entries, calendar: utc) }
    judge(
        "expiry-in-order", row: "expiry recomputed from a 1,000,000-transaction receipt (in order, as stored)",
        figure: inOrder, shown: ms(inOrder), limit: 0.2, against: "200 ms")
    let shuffled = entries.shuffled()
    let recompute = median(3) { _ = SubscriptionMath.recomputeExpiry(from: shuffled, calendar: utc) }
    judge(
        "expiry-shuffled", row: "the same receipt shuffled (sorted first)", figure: recompute, shown: ms(recompute),
        limit: 0.2, against: "200 ms")
}

if wants("receipt") {
    func statusTime(history: Int) throws -> Double {
        let folder = StateDirectory(scratch.appendingPathComponent("history-\(history)"))
        _ = try makeStore(stateDirectory: folder, device: "big", catalog: catalog, clock: SystemClock(), calendar: utc)
        let queue = try DatabaseQueue(path: try folder.deviceDatabase("big").path)
        try queue.write { db in
            for index in 0..<history {
                let id = String(format: "%016x", index)
                try db.execute(
                    sql: """
                        INSERT INTO txn (id, user, productID, kind, quantity, months, bonusDays, state, createdAt, purchaseDate, finished)
                        VALUES (?, '', 'com.storefront.randomviews', 'consumable', 5, 0, 0, 'purchased', ?, ?, 1)
                        """,
                    arguments: [id, 1_700_000_000 + index, 1_700_000_000 + index]
                )
                try db.execute(
                    sql: "INSERT INTO event(transactionID, state, at) VALUES (?, 'purchased', ?)",
                    arguments: [id, 1_700_000_000 + index])
            }
        }
        return try median(9) {
            let store = try makeStore(
                stateDirectory: folder, device: "big", catalog: catalog, clock: SystemClock(), calendar: utc)
            try store.queue.recover()
            _ = try store.entitlements.status()
            _ = try store.entitlements.productRows()
        }
    }
    let empty = try statusTime(history: 0)
    let full = try statusTime(history: 100_000)
    judge(
        "start-100k", row: "open + recover + status, 100,000 transactions in the history", figure: full,
        shown: ms(full), limit: empty, against: "the same with none \(ms(empty))")
}

// MARK: Auto-renewable plans: the fold over 1,000,000 plan lines; ten years of weekly renewals
// written by one command; status with a long plan history.

if wants("plans") {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let week = 7 * 86_400.0
    var lines = [
        ReceiptEntry(
            transactionID: "p", account: "a", productID: "weekly", kind: .autoRenewableSubscription,
            purchaseDate: start, device: "d",
            event: .purchase, group: "g", expiresDate: start.addingTimeInterval(week), price: Decimal(string: "1.99")
        )
    ]
    lines += (1..<1_000_000).map { index in
        ReceiptEntry(
            transactionID: String(format: "%016x", index), account: "a", productID: "weekly",
            kind: .autoRenewableSubscription,
            purchaseDate: start.addingTimeInterval(Double(index) * week), device: "d", event: .renewal, group: "g",
            expiresDate: start.addingTimeInterval(Double(index + 1) * week), price: Decimal(string: "1.99"),
            reference: "p"
        )
    }
    let replay = median(5) { _ = PlanState.replay(lines) }
    judge(
        "plans-replay", row: "plans recomputed from 1,000,000 plan lines (A6 for plans)", figure: replay,
        shown: ms(replay), limit: 0.2, against: "200 ms")
}

if wants("plans") {
    let selfies = try CatalogLoader.load(contentsOf: repository.appendingPathComponent("assets/selfies.json")).catalog
    let clock = ManualClock(Date(timeIntervalSince1970: 1_780_000_000))
    func planStore(_ name: String) throws -> Store {
        let store = try makeStore(
            stateDirectory: StateDirectory(scratch.appendingPathComponent(name)), device: "bench", catalog: selfies,
            clock: clock,
            calendar: utc, passwordHasher: PasswordHasher(cost: 16)
        )
        try store.accounts.signUp("bench", password: "bench")
        try store.queue.buy("com.storefront.selfies.sub.allaccess")
        return store
    }
    let one = try planStore("plan-one")
    let purchase = try seconds { try one.queue.buy("com.storefront.selfies.sub.allaccess.monthly") }
    let decade = try planStore("plan-decade")
    clock.advance(StoreDuration(years: 10), calendar: utc)
    let settle = try seconds { _ = try decade.plans.subscriptions() }
    let written = try decade.server.planLines(account: "bench").count
    judge(
        "decade-renewals", row: "ten years of weekly renewals written by one command (\(written) lines)",
        figure: settle, shown: ms(settle), limit: purchase, against: "one durable purchase \(ms(purchase))")
    let folder = StateDirectory(scratch.appendingPathComponent("plan-decade"))
    let status = try median(9) {
        let store = try makeStore(
            stateDirectory: folder, device: "bench", catalog: selfies, clock: clock, calendar: utc)
        try store.queue.recover()
        _ = try store.entitlements.status()
    }
    judge(
        "start-plans", row: "open + recover + status with those \(written) plan lines", figure: status,
        shown: ms(status), limit: 0.2, against: "200 ms")
}

// MARK: Signed data and notifications: signing one transaction against swift-crypto's
// bare P-256 signature; a purchase whose notification is POSTed to a receiver on loopback against
// the same purchase with no webhook.

if wants("signing") {
    let folder = StateDirectory(scratch.appendingPathComponent("signing"))
    let clock = ManualClock(Date(timeIntervalSince1970: 1_768_478_400))
    let store = try makeStore(
        stateDirectory: folder, device: "bench", catalog: catalog, clock: clock, calendar: utc,
        passwordHasher: PasswordHasher(cost: 16))
    try store.accounts.signUp("bench", password: "bench")
    let bought = try store.queue.buy("com.storefront.comic.nightshift")
    let authority = try store.signed.authority()
    // The bare signature: the same signing input a transaction JWS has, signed by a P-256 key.
    let jws = try require(try store.signed.transaction(bought)).jws
    let input = Data(jws.split(separator: ".").prefix(2).joined(separator: ".").utf8)
    let key = P256.Signing.PrivateKey()
    let bare = try median(401) { _ = try key.signature(for: input) }
    let payload = try require(try store.signed.transaction(bought)).payload
    let signing = try median(401) { _ = try authority.sign(payload) }
    judge(
        "jws", row: "one transaction signed as a JWS (payload → JSON → ES256, x5c)", figure: signing,
        shown: ms(signing), limit: bare, against: "a bare P-256 signature \(ms(bare))")
    let fromStore = try median(401) { _ = try store.signed.transaction(bought) }
    judge(
        "jws-from-store", row: "one transaction read from the store and signed", figure: fromStore,
        shown: ms(fromStore), limit: bare, against: "a bare P-256 signature \(ms(bare))")

    let receiver = try LoopbackReceiver()
    func purchases(webhook: Bool) throws -> Double {
        let folder = StateDirectory(scratch.appendingPathComponent("webhook-\(webhook)"))
        let store = try makeStore(
            stateDirectory: folder, device: "bench", catalog: catalog, clock: clock, calendar: utc,
            passwordHasher: PasswordHasher(cost: 16))
        try store.accounts.signUp("bench", password: "bench")
        if webhook { try store.notifications.setWebhook(Webhook(url: "http://127.0.0.1:\(receiver.port)/apple")) }
        // As a command does: the purchase, then what it caused goes out.
        return try median(101) {
            try store.queue.buy("com.storefront.randomviews")
            try store.notifications.deliverDue()
        }
    }
    let without = try purchases(webhook: false)
    let with = try purchases(webhook: true)
    judge(
        "notification", row: "a purchase and its notification POSTed (receiver on loopback)", figure: with,
        shown: ms(with), limit: without, against: "the same purchase, no webhook \(ms(without))")
    row("(notifications the receiver answered 200)", "\(receiver.received)", "", "", "")
}

func require<T>(_ value: T?) throws -> T {
    guard let value else { throw CocoaError(.coderValueNotFound) }
    return value
}

// MARK: Purchases through `storefront serve` from four devices at once, beside the same
// store's purchases in-process, in the same run.

if wants("remote") {
    if FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent("storefront").path) {
        let postgres = ProcessInfo.processInfo.environment["STOREFRONT_TEST_POSTGRES"] != nil
        for onPostgres in [false] + (postgres ? [true] : []) {
            for (count, words) in [(4, "four"), (16, "sixteen")] {
                // A database of its own for each count: each run signs its accounts up.
                let database = onPostgres ? try TestPostgres.freshDatabase() : nil
                let (remote, local, failures) = try remotePurchases(database: database, devices: count)
                let kind = database == nil ? "SQLite" : "PostgreSQL"
                judge(
                    "serve-\(count)-\(database == nil ? "sqlite" : "postgres")",
                    row: "purchases per second through storefront serve, \(words) devices at once (\(kind))",
                    figure: remote, shown: String(format: "%.0f /s", remote), limit: local,
                    against: String(format: "the same store in-process %.0f /s", local))
                if failures > 0 { row("(purchases that failed)", "\(failures)", "", "", "") }
            }
        }
        if !postgres {
            row(
                "purchases through storefront serve on PostgreSQL", "not run",
                "needs STOREFRONT_TEST_POSTGRES (scripts/postgres-start)", "", "")
        }
    } else {
        row("purchases through storefront serve", "not run", "needs storefront beside this program", "", "")
    }
}

// MARK: The App Store Server API under load: wrk against Get Transaction History for a
// customer with 1,000 transactions, beside a Hummingbird server's fixed body (FixedBodies.swift)
// in the same run.

if wants("serve") {
    let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first { FileManager.default.isExecutableFile(atPath: $0) }
    let serverBinary = binaries.appendingPathComponent("storefront")
    if let wrk, FileManager.default.isExecutableFile(atPath: serverBinary.path) {
        let folder = StateDirectory(scratch.appendingPathComponent("serve"))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_768_478_400))
        let store = try makeStore(
            stateDirectory: folder, device: "bench", catalog: catalog, clock: clock, calendar: utc,
            passwordHasher: PasswordHasher(cost: 16))
        try store.accounts.signUp("bench", password: "bench")
        for _ in 0..<1_000 { try store.queue.buy("com.storefront.randomviews") }
        let first = try require(try store.queue.history().first).id
        let key = P256.Signing.PrivateKey()
        try store.server.setAPIKeyring(
            APIKeyring(
                issuerID: "bench",
                keys: [APIKey(keyID: "BENCH00001", publicKey: key.publicKey.x963Representation, createdAt: Date())]))
        let header = JWS.base64URL(Data(#"{"alg":"ES256","kid":"BENCH00001","typ":"JWT"}"#.utf8))
        let claims = JWS.base64URL(
            Data(
                #"{"aud":"appstoreconnect-v1","bid":"com.storefront.comics","exp":\#(Int(Date().timeIntervalSince1970) + 3600),"iss":"bench"}"#
                    .utf8))
        let signature = JWS.base64URL(try key.signature(for: Data("\(header).\(claims)".utf8)).rawRepresentation)
        let token = "\(header).\(claims).\(signature)"
        let (server, base) = try startServer(folder, database: nil)
        let fixedBase = try startFixedBodies()
        func rate(_ path: String, authorized: Bool, base: String = base) throws -> Double {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: wrk)
            process.arguments =
                ["-t2", "-c16", "-d5s"] + (authorized ? ["-H", "Authorization: Bearer \(token)"] : []) + [base + path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let value = text.split(separator: "\n").first { $0.hasPrefix("Requests/sec:") }?.split(separator: " ").last
            return Double(value ?? "0") ?? 0
        }
        func fetch() throws -> Data {
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = ["-s", "-H", "Authorization: Bearer \(token)", base + "/inApps/v2/history/\(first)"]
            let pipe = Pipe()
            curl.standardOutput = pipe
            try curl.run()
            defer { curl.waitUntilExit() }
            return pipe.fileHandleForReading.readDataToEndOfFile()
        }
        // The floor returns a fixed body of the page's own size: what is measured is the work of
        // answering, not the bytes every answer of that size costs to send (a 14-byte floor is
        // shown beside it, for information).
        let page = try fetch()
        let floor = try rate("/fixed?bytes=\(page.count)", authorized: false, base: fixedBase)
        let history = try rate("/inApps/v2/history/\(first)", authorized: true)
        let tiny = try rate("/fixed", authorized: false, base: fixedBase)
        judge(
            "history-wrk", row: "Get Transaction History, 1,000 transactions (wrk, 16 connections)",
            figure: history, shown: String(format: "%.0f req/s", history), limit: max(floor, 1),
            against: String(
                format: "a Hummingbird server's fixed body of the page's size (%d KB) %.0f req/s", page.count / 1024,
                floor))
        judge(
            "history-wrk-tiny", row: "(the same against a 14-byte fixed body)", figure: history,
            shown: String(format: "%.0f req/s", history), limit: max(tiny, 1),
            against: String(format: "a Hummingbird server's 14-byte body %.0f req/s", tiny))
        // Answers under writes: the same page under wrk while four devices of another customer
        // buy without a pause, each commit a new change stamp for the whole file.
        let writers = try (0..<4).map { index in
            try makeStore(
                stateDirectory: folder, device: "writer\(index)", catalog: catalog, clock: clock, calendar: utc,
                passwordHasher: PasswordHasher(cost: 16)
            )
        }
        try writers[0].accounts.signUp("writer", password: "writer")
        for writer in writers.dropFirst() { try writer.accounts.signIn("writer", password: "writer") }
        nonisolated(unsafe) let writing = writers
        let stopWriting = Locked(false)
        let bought = Locked(0)
        let writersDone = DispatchGroup()
        for index in 0..<4 {
            writersDone.enter()
            Thread.detachNewThread {
                while !stopWriting.withLock({ $0 }) {
                    if (try? writing[index].queue.buy("com.storefront.randomviews")) != nil {
                        bought.withLock { $0 += 1 }
                    }
                }
                writersDone.leave()
            }
        }
        let underWrites = try rate("/inApps/v2/history/\(first)", authorized: true)
        stopWriting.withLock { $0 = true }
        writersDone.wait()
        judge(
            "history-wrk-writes",
            row:
                "Get Transaction History under wrk while four devices buy without a pause (\(bought.withLock { $0 }) purchases meanwhile)",
            figure: underWrites, shown: String(format: "%.0f req/s", underWrites), limit: max(floor, 1),
            against: String(format: "a Hummingbird server's fixed body of the page's size %.0f req/s", floor))
        var fresh: [Double] = []
        for _ in 0..<20 {
            try store.queue.buy("com.storefront.randomviews")
            let started = Date()
            _ = try fetch()
            fresh.append(Date().timeIntervalSince(started))
        }
        fresh.sort()
        judge(
            "page-after-write-curl",
            row: "the same page after a purchase (nothing kept, curl's start included), median of 20",
            figure: fresh[10], shown: ms(fresh[10]), limit: 1, against: "", ratioText: "")
        // The page after a write, in process (no curl, no socket): the API's answer right after a
        // purchase, against signing the page's twenty transactions alone.
        guard let records = store.server.keeper.here else {
            throw StoreError.storage(path: "history", reason: "the bench's store keeps no records")
        }
        let api = ServerAPI(
            server: records, catalog: catalog, authority: try store.signed.authority(), clock: clock)
        let pageRequest = APIRequest(
            method: "GET", path: "/inApps/v2/history/\(first)", authorization: "Bearer \(token)")
        var afterWrite: [Double] = []
        for _ in 0..<20 {
            try store.queue.buy("com.storefront.randomviews")
            let started = Date()
            guard try await api.respond(to: pageRequest).status == 200 else {
                throw StoreError.storage(path: "history", reason: "the page was refused")
            }
            afterWrite.append(Date().timeIntervalSince(started))
        }
        afterWrite.sort()
        let twenty = Array(try store.queue.history().prefix(20))
        let signing = try median(20) { _ = try store.signed.transactions(twenty) }
        judge(
            "page-after-write", row: "the page after a purchase, in process (median of 20)", figure: afterWrite[10],
            shown: ms(afterWrite[10]), limit: signing, against: "signing its 20 transactions alone \(ms(signing))")
        server.terminate()
        server.waitUntilExit()
    } else {
        row(
            "Get Transaction History under wrk", "not run",
            "needs wrk (Debian's package) and storefront-server beside this program", "", "")
    }
}

// MARK: The async seam: a quick account call with 64 in flight, while sign-ins at the
// full scrypt cost run one after another, beside the same 64 in flight on an idle server, in the
// same run. Blocking work runs on the server's own thread pool, never on Swift's cooperative
// threads, so a slow sign-in should not hold the other requests up.

/// The quick call's median with 64 in flight while full-cost sign-ins run, the same on an idle
/// server, the sign-ins done and one sign-in's time alone; then the same 64 while a burst of
/// wrong-password sign-ins comes from 64 addresses (Tests/Python/signin_burst.py; nil without
/// python3), with what it sent. `database` names PostgreSQL, where every call waits on a query on
/// the server's blocking pool.
@MainActor func seam(database: String?) throws -> (
    busy: Double, idle: Double, signIns: Int, signIn: Double, failures: Int, burst: (Double, String)?
) {
    let folder = StateDirectory(scratch.appendingPathComponent("seam-\(database == nil ? "sqlite" : "postgres")"))
    let factory = try StoreFactory(
        stateDirectory: folder, catalog: catalog, calendar: utc,
        time: .given(ManualClock(Date(timeIntervalSince1970: 1_768_478_400))),
        server: try database.map { url throws(StoreError) in try PostgresAccountServer.open(url: url) }
    )
    try factory.open(device: "seed").accounts.signUp("slow", password: "slow-password")
    let (server, base) = try startServer(folder, database: database)
    defer {
        server.terminate()
        server.waitUntilExit()
    }
    let url = try require(URL(string: base + AccountWire.path))
    let quick = Data(#"{"method":"clockSetting","request":{}}"#.utf8)
    let slow = Data(#"{"method":"signIn","request":{"name":"slow","password":"slow-password","device":"bench"}}"#.utf8)
    let headers = ["Content-Type": "application/json"]
    /// The quick call's latencies with 64 in flight for `duration` seconds, and the sign-ins done beside them.
    func load(_ duration: Double, signingIn: Bool) -> (times: [Double], signIns: Int, failures: Int) {
        let stop = Date().addingTimeInterval(duration)
        let times = Locked<[Double]>([])
        let signIns = Locked(0)
        let failures = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<64 {
            group.enter()
            Thread.detachNewThread {
                while Date() < stop {
                    let started = Date()
                    if case .success(let answer) = HTTPCall.post(url, headers: headers, body: quick, timeout: 30),
                        answer.status == 200
                    {
                        times.withLock { $0.append(Date().timeIntervalSince(started)) }
                    } else {
                        failures.withLock { $0 += 1 }
                    }
                }
                group.leave()
            }
        }
        if signingIn {
            group.enter()
            Thread.detachNewThread {
                while Date() < stop {
                    if case .success(let answer) = HTTPCall.post(url, headers: headers, body: slow, timeout: 30),
                        answer.status == 200
                    {
                        signIns.withLock { $0 += 1 }
                    }
                }
                group.leave()
            }
        }
        group.wait()
        return (times.withLock { $0.sorted() }, signIns.withLock { $0 }, failures.withLock { $0 })
    }
    _ = load(1, signingIn: false)  // warm up
    let idle = load(4, signingIn: false)
    let busy = load(4, signingIn: true)
    var burst: (Double, String)?
    let sprayer = URL(fileURLWithPath: "Tests/Python/signin_burst.py")
    if let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile),
        FileManager.default.fileExists(atPath: sprayer.path)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [sprayer.path, base, "4", "64"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let during = load(4, signingIn: false)
        let sent = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        burst = (
            during.times.isEmpty ? 0 : during.times[during.times.count / 2],
            sent.trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }
    let signIn = try median(3) {
        guard case .success(let answer) = HTTPCall.post(url, headers: headers, body: slow, timeout: 30),
            answer.status == 200
        else {
            throw StoreError.storage(path: base, reason: "a sign-in failed")
        }
    }
    return (
        busy.times.isEmpty ? 0 : busy.times[busy.times.count / 2],
        idle.times.isEmpty ? 0 : idle.times[idle.times.count / 2],
        busy.signIns, signIn, idle.failures + busy.failures, burst
    )
}

if wants("seam") {
    if FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent("storefront").path) {
        let postgres =
            ProcessInfo.processInfo.environment["STOREFRONT_TEST_POSTGRES"] != nil
            ? try TestPostgres.freshDatabase() : nil
        for database in [nil] + (postgres.map { [$0] } ?? []) {
            let measured = try seam(database: database)
            let kind = database == nil ? "SQLite" : "PostgreSQL"
            let idle = String(format: "the same 64 in flight on an idle server %@", ms(measured.idle))
            let store = database == nil ? "sqlite" : "postgres"
            judge(
                "quick-call-signins-\(store)",
                row:
                    "a quick account call's median, 64 in flight, while full-cost sign-ins run (\(kind); \(measured.signIns) in 4 s, each \(ms(measured.signIn)) alone)",
                figure: measured.busy, shown: ms(measured.busy), limit: measured.idle, against: idle)
            if let (median, sent) = measured.burst {
                judge(
                    "quick-call-burst-\(store)",
                    row:
                        "a quick account call's median, 64 in flight, during a wrong-password sign-in burst from 64 addresses (\(kind); \(sent))",
                    figure: median, shown: ms(median), limit: measured.idle, against: idle)
            } else {
                row("a quick call beside a sign-in burst from 64 addresses", "not run", "needs python3", "", "")
            }
            if measured.failures > 0 { row("(quick calls that failed)", "\(measured.failures)", "", "", "") }
        }
        if postgres == nil {
            row(
                "a quick call beside slow sign-ins on PostgreSQL", "not run",
                "needs STOREFRONT_TEST_POSTGRES (scripts/postgres-start)", "", "")
        }
    } else {
        row("a quick call beside slow sign-ins", "not run", "needs storefront beside this program", "", "")
    }
}

printTargets()

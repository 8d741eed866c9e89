// Every target the bench judges, declared once, by a name that stays. A judged row
// names its target; `storefront-bench --targets` lists them without measuring; a run ends with the
// table of every target: its figure, the limit measured in the same run, the ratio, met or missed.
// BENCHMARKS.md is that table from the newest whole run.
import Foundation

/// What meets a target: the ratio to the same run's limit, or the figure itself (in seconds,
/// bytes, …), or nothing (for information).
enum Bound {
    case ratioAtMost(Double)
    case ratioAtLeast(Double)
    case figureUnder(Double)
    case information

    func meets(figure: Double, limit: Double) -> Bool? {
        switch self {
        case .ratioAtMost(let most): figure / limit <= most
        case .ratioAtLeast(let least): figure / limit >= least
        case .figureUnder(let bound): figure < bound
        case .information: nil
        }
    }
}

struct Target {
    let name: String
    let goal: String
    let bound: Bound
    init(_ name: String, _ goal: String, _ bound: Bound) {
        self.name = name
        self.goal = goal
        self.bound = bound
    }
}

let targets: [Target] = [
    Target("png-80x24", "PNG pipeline ≤ 1.15× libpng's decode (80×24)", .ratioAtMost(1.15)),
    Target("png-200x60", "PNG pipeline ≤ 1.15× libpng's decode (200×60)", .ratioAtMost(1.15)),
    Target("jpeg-80x24", "JPEG pipeline ≤ 0.7× libjpeg-turbo's decode (80×24)", .ratioAtMost(0.7)),
    Target("jpeg-200x60", "JPEG pipeline ≤ 0.7× libjpeg-turbo's decode (200×60)", .ratioAtMost(0.7)),
    Target("redraw-80x24", "redraw from the picture cache < 1 ms (80×24)", .figureUnder(0.001)),
    Target("redraw-200x60", "redraw from the picture cache < 1 ms (200×60)", .figureUnder(0.001)),
    Target("arrow-key", "one arrow key in the product list < 1 ms", .figureUnder(0.001)),
    Target("arrow-key-bytes", "bytes written for one arrow key < 300 B", .figureUnder(300)),
    Target("arrow-key-stalled", "one arrow key while a team call is stalled ≤ 1.1× idle", .ratioAtMost(1.1)),
    Target("first-frame", "first frame ≤ 1.3× a C ncurses program", .ratioAtMost(1.3)),
    Target("screen-memory", "peak memory of the screen < 30 MB", .figureUnder(30e6)),
    Target("durable-purchases", "durable purchases ≥ 0.5× raw SQLite commits", .ratioAtLeast(0.5)),
    Target("expiry-in-order", "expiry from a 1,000,000-line receipt < 200 ms", .figureUnder(0.2)),
    Target("expiry-shuffled", "the same receipt shuffled < 200 ms", .figureUnder(0.2)),
    Target("start-100k", "start with 100,000 transactions ≤ 1.5× none", .ratioAtMost(1.5)),
    Target("plans-replay", "plans from 1,000,000 plan lines < 200 ms", .figureUnder(0.2)),
    Target("decade-renewals", "ten years of weekly renewals: one command", .information),
    Target("start-plans", "start with ten years of plan lines < 200 ms", .figureUnder(0.2)),
    Target("jws", "one transaction signed as a JWS ≤ 2× a bare signature", .ratioAtMost(2)),
    Target("jws-from-store", "one transaction read and signed", .information),
    Target("notification", "a purchase with its notification ≤ 1.5× one without", .ratioAtMost(1.5)),
    Target("serve-4-sqlite", "purchases through serve, four devices ≥ 0.5× in process (SQLite)", .ratioAtLeast(0.5)),
    Target(
        "serve-16-sqlite", "purchases through serve, sixteen devices ≥ 0.9× in process (SQLite)", .ratioAtLeast(0.9)),
    Target(
        "serve-4-postgres", "purchases through serve, four devices ≥ 0.5× in process (PostgreSQL)", .ratioAtLeast(0.5)),
    Target(
        "serve-16-postgres", "purchases through serve, sixteen devices ≥ 0.9× in process (PostgreSQL)",
        .ratioAtLeast(0.9)),
    Target("history-wrk", "Get Transaction History under wrk ≥ 0.9× a fixed body of its size", .ratioAtLeast(0.9)),
    Target("history-wrk-tiny", "the same against a 14-byte body", .information),
    Target(
        "history-wrk-writes", "Get Transaction History under wrk while four devices buy ≥ 0.7× a fixed body",
        .ratioAtLeast(0.7)),
    Target("page-after-write", "the page after a write, in process ≤ 3× signing its transactions", .ratioAtMost(3)),
    Target("page-after-write-curl", "the page after a write through curl", .information),
    Target("quick-call-signins-sqlite", "a quick call beside full-cost sign-ins ≤ 2× idle (SQLite)", .ratioAtMost(2)),
    Target(
        "quick-call-signins-postgres", "a quick call beside full-cost sign-ins ≤ 2× idle (PostgreSQL)", .ratioAtMost(2)),
    Target(
        "quick-call-burst-sqlite", "a quick call during a sign-in burst from 64 addresses ≤ 3× idle (SQLite)",
        .ratioAtMost(3)),
    Target(
        "quick-call-burst-postgres", "a quick call during a sign-in burst from 64 addresses ≤ 3× idle (PostgreSQL)",
        .ratioAtMost(3)),
]

/// What this run measured of each target, in the order measured.
nonisolated(unsafe) var verdicts: [(target: Target, figure: String, limit: String, ratio: String, met: Bool?)] = []

/// Prints a judged row, and keeps its verdict for the table at the end. `figure` and `limit` are
/// in the same unit (seconds, bytes, per second); `shown` and `against` are how the row says them.
func judge(
    _ name: String, row label: String, figure: Double, shown: String, limit: Double, against: String,
    ratioText: String? = nil
) {
    guard let target = targets.first(where: { $0.name == name }) else { fatalError("no target named \(name)") }
    let ratioText = ratioText ?? ratio(figure, limit)
    row(label, shown, against, ratioText, target.goal)
    verdicts.append((target, shown, against, ratioText, target.bound.meets(figure: figure, limit: limit)))
}

/// The table of every target: this run's figure where it was measured, "not run" where not.
func printTargets() {
    print("\n## Every target\n")
    print("| target | figure | limit in the same run | ratio | stands |")
    print("|---|---|---|---|---|")
    for target in targets {
        let measured = verdicts.filter { $0.target.name == target.name }
        guard !measured.isEmpty else {
            print("| \(target.goal) | not run | | | |")
            continue
        }
        for verdict in measured {
            let stands = verdict.met.map { $0 ? "met" : "**missed**" } ?? "for information"
            print("| \(target.goal) | \(verdict.figure) | \(verdict.limit) | \(verdict.ratio) | \(stands) |")
        }
    }
}

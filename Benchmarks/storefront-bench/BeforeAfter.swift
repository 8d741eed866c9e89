// `storefront-bench before-after DIR [ROUNDS] [SECTION …]`: a change measured in one run. DIR holds a
// release build of the commit before it (scripts/bench-before-after makes one); this program and
// that one's bench each run the sections named (by default purchases through serve from four
// devices, Get Transaction History under wrk, the screen's first frame and peak memory) in turn,
// ROUNDS times, alternating which goes first; each figure is the median of its rounds, and none may
// be more than 10% worse than before.
import Foundation

/// A figure of a bench row, and whether more is better.
struct Figure {
    var value: Double
    var moreIsBetter: Bool

    init?(_ text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let value = Double(parts[0]) else { return nil }
        switch parts[1] {
        case "/s", "req/s": moreIsBetter = true
        case "ms", "MB": moreIsBetter = false
        default: return nil
        }
        self.value = value
    }
}

/// The rows of one bench run, by name, in the order printed: each with its figure, or with nil
/// and the bench's reason when it could not measure it (a missing tool).
func figures(of bench: URL, sections: [String]) throws -> [(String, Figure?, String)] {
    let process = Process()
    process.executableURL = bench
    process.arguments = sections
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.split(separator: "\n").compactMap { line -> (String, Figure?, String)? in
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count >= 5, !cells[0].hasPrefix("("), cells[4] != "(for information)" else { return nil }
        if cells[1] == "not run" { return (cells[0], nil, cells[2]) }
        return Figure(cells[1]).map { (cells[0], $0, "") }
    }
}

/// Runs both benches `rounds` times and prints before, after and their ratio for every row both
/// printed; true when none is more than 10% worse and every row was measured (a row a bench could
/// not run, for want of wrk say, is printed with its reason and fails the comparison).
func beforeAfter(before: URL, after: URL, rounds: Int, sections: [String] = ["remote", "serve", "start"]) throws -> Bool
{
    var runs: [Bool: [[(String, Figure)]]] = [true: [], false: []]
    var notRun: [(String, String)] = []
    for round in 0..<rounds {
        for isAfter in round % 2 == 0 ? [false, true] : [true, false] {
            let rows = try figures(of: isAfter ? after : before, sections: sections)
            runs[isAfter, default: []].append(rows.compactMap { name, figure, _ in figure.map { (name, $0) } })
            for (name, figure, reason) in rows where figure == nil && !notRun.contains(where: { $0.0 == name }) {
                notRun.append((name, reason))
            }
        }
    }
    func median(_ name: String, _ isAfter: Bool) -> Figure? {
        let found = runs[isAfter, default: []].compactMap { run in run.first { $0.0 == name }?.1 }
        guard var figure = found.first else { return nil }
        let values = found.map(\.value).sorted()
        figure.value = values[values.count / 2]
        return figure
    }
    print("| measure (median of \(rounds) rounds, alternating) | before | after | after ÷ before | target |")
    print("|---|---|---|---|---|")
    var allWithin = true
    for (name, _) in runs[true, default: []].first ?? [] {
        guard let old = median(name, false), let new = median(name, true) else { continue }
        let ratio = new.value / max(old.value, .leastNonzeroMagnitude)
        let within = old.moreIsBetter ? ratio >= 0.9 : ratio <= 1.1
        allWithin = allWithin && within
        print(
            String(
                format: "| %@ | %.1f | %.1f | %.2f× | %@ |", name, old.value, new.value, ratio,
                old.moreIsBetter ? "≥ 0.90× \(within ? "✓" : "✗")" : "≤ 1.10× \(within ? "✓" : "✗")"))
    }
    for (name, reason) in notRun {
        allWithin = false
        print("| \(name) | not run | not run | | \(reason) ✗ |")
    }
    // Each round's pair, for reading the spread: the figures move together with the machine's
    // load from round to round, and the median ratio of the pairs is printed beside the ratio of
    // the medians (the target reads the latter).
    print("")
    print("| measure: each round, before → after | median of the rounds' ratios |")
    print("|---|---|")
    for (name, _) in runs[true, default: []].first ?? [] {
        let pairs = zip(runs[false, default: []], runs[true, default: []]).compactMap { old, new -> (Double, Double)? in
            guard let before = old.first(where: { $0.0 == name })?.1.value,
                let after = new.first(where: { $0.0 == name })?.1.value
            else { return nil }
            return (before, after)
        }
        guard !pairs.isEmpty else { continue }
        let ratios = pairs.map { $0.1 / max($0.0, .leastNonzeroMagnitude) }.sorted()
        let rounds = pairs.map { String(format: "%.1f → %.1f", $0.0, $0.1) }.joined(separator: "; ")
        print(String(format: "| %@: %@ | %.2f× |", name, rounds, ratios[ratios.count / 2]))
    }
    return allWithin
}

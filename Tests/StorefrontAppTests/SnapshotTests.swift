// T1 T3: every screen at 80×24 and at 40×12, as snapshot files (text, a style layer and its
// legend) under __Snapshots__. A change to a screen shows in review as a change to its file.
// Re-record after a deliberate change with `STOREFRONT_RECORD_SNAPSHOTS=1 swift test --filter Snapshot`.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("Screen snapshots")
struct SnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "__Snapshots__")
    static let recording = ProcessInfo.processInfo.environment["STOREFRONT_RECORD_SNAPSHOTS"] == "1"
    static let sizes = [Size(columns: 80, rows: 24), Size(columns: 40, rows: 12)]

    /// The placeholder picture of a product: made from its id, the same every run.
    static func picture(_ path: String?) -> PictureResult {
        guard let path else { return .none }
        return .picture(Picture(PlaceholderPicture.image(title: path, id: path)))
    }

    enum Shot: String, CaseIterable, CustomTestStringConvertible {
        /// The first frame, drawn from the catalog before the store is open.
        case opening
        case productsGuest = "products-guest"
        case productsSubscribed = "products-subscribed"
        case detailLocked = "detail-locked"
        case detailUnlocked = "detail-unlocked"
        case random
        case randomEmpty = "random-empty"
        case transactions
        case transactionsPlans = "transactions-plans"
        case productsPlans = "products-plans"
        /// O2 O3: the offer sheet of the monthly plan, with a code being typed.
        case offers
        case signIn = "sign-in"
        case help
        case helpTransactions = "help-transactions"

        var testDescription: String { rawValue }

        /// The screen in this state, at `size`.
        func harness(_ size: Size) throws -> Harness {
            switch self {
            case .opening:
                let harness = try Harness(size: size, seed: 1)
                harness.state.snapshot = .opening(appCatalog)
                return harness
            case .productsGuest:
                return try Harness(size: size, seed: 1)
            case .productsSubscribed:
                let harness = try Harness(size: size, user: "ann", seed: 1)
                try harness.store.queue.buy("comic.owl")
                try harness.store.queue.buy("sub3")
                try harness.refresh()
                return harness
            case .detailLocked:
                let harness = try Harness(size: size, seed: 1)
                harness.press(.down, .enter)
                return harness
            case .detailUnlocked:
                let harness = try Harness(size: size, user: "ann", seed: 1)
                harness.pictures = SnapshotTests.picture
                try harness.store.queue.buy("comic.owl")
                try harness.refresh()
                harness.press(.enter)
                return harness
            case .random:
                let harness = try Harness(size: size, user: "ann", seed: 1)
                harness.pictures = SnapshotTests.picture
                try harness.store.queue.buy("pack")
                try harness.refresh()
                harness.press(.character("n"))
                return harness
            case .randomEmpty:
                let harness = try Harness(size: size, seed: 1)
                harness.press(.character("n"))
                return harness
            case .transactions:
                let harness = try Harness(size: size, user: "ann", seed: 1)
                try harness.store.queue.setPolicy(.defer)
                try harness.store.queue.buy("pack")
                try harness.store.queue.buy("comic.cat", outcome: .fail(.paymentInvalid))
                harness.tick()
                harness.press(.character("t"))
                return harness
            case .transactionsPlans, .productsPlans:
                let harness = try Harness(size: size, catalog: selfiesCatalog, user: "ann", seed: 1)
                try harness.store.queue.buy("allaccess.monthly")
                harness.tick()
                if self == .transactionsPlans { harness.press(.character("t")) }
                return harness
            case .offers:
                let harness = try Harness(size: size, catalog: selfiesCatalog, user: "ann", seed: 1)
                harness.press(.down, .character("o"), .down)
                harness.type("SPRING")
                return harness
            case .signIn:
                let harness = try Harness(size: size, route: .signIn, seed: 1)
                harness.type("ann")
                return harness
            case .help:
                let harness = try Harness(size: size, seed: 1)
                harness.press(.character("?"))
                return harness
            case .helpTransactions:
                let harness = try Harness(size: size, seed: 1)
                harness.press(.character("t"), .character("?"))
                return harness
            }
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let shot: Shot
        let size: Size
        var name: String { "\(shot.rawValue)-\(size.columns)x\(size.rows)" }
        var testDescription: String { name }
    }

    static let cases = Shot.allCases.flatMap { shot in sizes.map { Case(shot: shot, size: $0) } }

    @Test("T1 every screen, as its snapshot file says", arguments: cases)
    func screen(_ example: Case) throws {
        let harness = try example.shot.harness(example.size)
        try Self.assertSnapshot(harness.screen(depth: .eight).snapshot, named: example.name)
    }

    @Test("T3 a window too small says so, at any size under 20×6")
    func tooSmall() throws {
        let harness = try Harness(size: Size(columns: 19, rows: 5), seed: 1)
        try Self.assertSnapshot(harness.screen(depth: .eight).snapshot, named: "too-small-19x5")
    }

    static func assertSnapshot(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let file = folder.appendingPathComponent(name + ".txt")
        let expected = try? String(contentsOf: file, encoding: .utf8)
        if recording || expected == nil {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            if !recording {
                Issue.record(
                    "recorded a new snapshot \(file.lastPathComponent); check it and run again",
                    sourceLocation: sourceLocation)
            }
            return
        }
        guard actual != expected else { return }
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected!.split(separator: "\n", omittingEmptySubsequences: false)
        let first =
            zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actualLines.count, expectedLines.count)
        Issue.record(
            """
            \(file.lastPathComponent) differs from line \(first + 1) (STOREFRONT_RECORD_SNAPSHOTS=1 re-records):
            expected: \(first < expectedLines.count ? String(expectedLines[first]) : "(end)")
            actual:   \(first < actualLines.count ? String(actualLines[first]) : "(end)")

            \(actual)
            """,
            sourceLocation: sourceLocation
        )
    }
}

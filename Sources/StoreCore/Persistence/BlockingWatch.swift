// The server's promise: the store's synchronous work (SQLite through GRDB, PostgreSQL's
// waits, scrypt) never runs on a thread of Swift's cooperative pool, where it would stall every
// other request; it runs on `storefront serve`'s blocking pool. The store's protocols are
// synchronous, so a grep cannot prove it: every such call asks here whether it is inside a Swift
// task, and the server reports (or, with STOREFRONT_STRICT_THREADS=1, dies of) the first that is.
import Foundation
import StoreModel

public enum BlockingWatch {
    /// What a blocking call was, and where: "SQLite write /path/server.sqlite".
    public typealias Report = @Sendable (String) -> Void

    /// The reporter, in a property of its own type. Kept in `Locked<Report?>`, a generic value, the
    /// closure was re-wrapped in two reabstraction thunks by every `withLock` that read it (an inout
    /// of a function type at another abstraction level is written back): a server that checked on
    /// every query grew the chain without end, and calling it after ~100,000 checks overflowed the
    /// stack.
    private final class Reporter: @unchecked Sendable {
        let lock = NSLock()
        var report: Report?
    }

    private static let reporter = Reporter()

    /// Starts (or, with nil, stops) watching this process's blocking calls.
    public static func report(to given: Report?) {
        reporter.lock.lock()
        defer { reporter.lock.unlock() }
        reporter.report = given
    }

    /// True in a task whose jobs run on the blocking pool (the server's routes, by its task
    /// executor): there, a blocking call waits on a thread of the pool, as it should.
    @TaskLocal public static var onBlockingPool = false

    /// Called by each blocking call before it blocks: reported when it runs inside a Swift task
    /// that is not on the blocking pool.
    @inline(__always)
    public static func check(_ what: @autoclosure () -> String) {
        reporter.lock.lock()
        let report = reporter.report
        reporter.lock.unlock()
        guard let report else { return }
        if withUnsafeCurrentTask(body: { $0 != nil }), !onBlockingPool { report(what()) }
    }
}

// The server's promise (issue 23): the store's synchronous work (SQLite through GRDB, PostgreSQL's
// waits, scrypt) never runs on a thread of Swift's cooperative pool, where it would stall every
// other request; it runs on `storefront serve`'s blocking pool. The store's protocols are
// synchronous, so a grep cannot prove it: every such call asks here whether it is inside a Swift
// task, and the server reports (or, with STOREFRONT_STRICT_THREADS=1, dies of) the first that is.
import Foundation

public enum BlockingWatch {
    /// What a blocking call was, and where: "SQLite write /path/server.sqlite".
    public typealias Report = @Sendable (String) -> Void

    private static let reporter = Locked<Report?>(nil)

    /// Starts (or, with nil, stops) watching this process's blocking calls.
    public static func report(to report: Report?) {
        reporter.withLock { $0 = report }
    }

    /// Called by each blocking call before it blocks: reported when it runs inside a Swift task.
    @inline(__always)
    public static func check(_ what: @autoclosure () -> String) {
        guard let report = reporter.withLock({ $0 }) else { return }
        if withUnsafeCurrentTask(body: { $0 != nil }) { report(what()) }
    }
}

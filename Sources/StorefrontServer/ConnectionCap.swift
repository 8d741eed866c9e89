// W11: what a client can hold of `storefront serve`. A connection with no request in progress is
// closed after the idle timeout (Hummingbird's, which also ends a request head that never
// completes); and the connections open at once are capped below the process's file limit, so that
// the server never runs out of descriptors (at its file limit, accepting failed and libdispatch,
// unable to make a descriptor of its own, trapped). At the cap the server does not stop accepting,
// which would lock every new client out until idle ones time out: it closes its longest-idle
// connection to admit the new one, so 20,000 idle sockets cost their holders their connections, not
// other clients their requests.
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import StoreCore
import StoreModel

#if canImport(Glibc)
    import Glibc
#endif

public final class ConnectionCap: Sendable {
    public let limit: Int

    /// The open connections, each with the stamp of its going idle (nil while a request is in
    /// progress), and the idle ones in the order they went idle: a stamp in `order` that no longer
    /// matches its connection's is passed over. Closing the longest-idle costs O(1) on average.
    struct Book {
        var open: [ObjectIdentifier: (channel: any Channel, idle: UInt64?)] = [:]
        var order: [(key: ObjectIdentifier, stamp: UInt64)] = []
        var head = 0
        var stamps: UInt64 = 0

        mutating func markIdle(_ key: ObjectIdentifier) {
            stamps += 1
            open[key]?.idle = stamps
            order.append((key, stamps))
        }

        /// Takes the longest-idle connection other than `except` out of the book.
        mutating func takeLongestIdle(except: ObjectIdentifier) -> (any Channel)? {
            defer {
                if head > 4_096, head * 2 > order.count {
                    order.removeFirst(head)
                    head = 0
                }
            }
            while head < order.count {
                let (key, stamp) = order[head]
                head += 1
                guard key != except, let entry = open[key], entry.idle == stamp else { continue }
                open[key] = nil
                return entry.channel
            }
            return nil
        }
    }

    private let book = Locked(Book())

    public init(limit: Int) { self.limit = max(1, limit) }

    /// The cap for this process: its file limit, raised to the hard limit first, less room for
    /// the database, the webhook's sockets and the runtime's own descriptors.
    public static func forThisProcess() -> ConnectionCap {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return ConnectionCap(limit: 768) }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        let files = Int(min(limits.rlim_cur, 1 << 20))
        return ConnectionCap(limit: files - min(1_024, files / 4))
    }

    public var count: Int { book.withLock { $0.open.count } }

    func opened(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let evicted: (any Channel)? = book.withLock { book in
            book.open[key] = (channel, nil)
            book.markIdle(key)
            return book.open.count > limit ? book.takeLongestIdle(except: key) : nil
        }
        evicted?.close(promise: nil)
    }

    func busy(_ channel: any Channel) { book.withLock { $0.open[ObjectIdentifier(channel)]?.idle = nil } }

    func idle(_ channel: any Channel) { book.withLock { $0.markIdle(ObjectIdentifier(channel)) } }

    func closed(_ channel: any Channel) { _ = book.withLock { $0.open.removeValue(forKey: ObjectIdentifier(channel)) } }

    /// The handler each connection's pipeline gets (after HTTP decoding).
    func handler() -> any RemovableChannelHandler { Handler(cap: self) }

    final class Handler: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        let cap: ConnectionCap

        init(cap: ConnectionCap) { self.cap = cap }

        func handlerAdded(context: ChannelHandlerContext) { cap.opened(context.channel) }

        func handlerRemoved(context: ChannelHandlerContext) { cap.closed(context.channel) }

        func channelInactive(context: ChannelHandlerContext) {
            cap.closed(context.channel)
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) { cap.busy(context.channel) }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) { cap.idle(context.channel) }
            context.write(data, promise: promise)
        }
    }
}

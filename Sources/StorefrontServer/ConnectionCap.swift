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
#if canImport(Glibc)
import Glibc
#endif

public final class ConnectionCap: Sendable {
    public let limit: Int
    /// Each open connection, and since when it has been idle (nil while a request is in progress).
    private let open = Locked<[ObjectIdentifier: (channel: any Channel, idleSince: UInt64?)]>([:])

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

    public var count: Int { open.withLock { $0.count } }

    func opened(_ channel: any Channel) {
        let evicted: (any Channel)? = open.withLock { open in
            open[ObjectIdentifier(channel)] = (channel, DispatchTime.now().uptimeNanoseconds)
            guard open.count > limit else { return nil }
            var oldest: (key: ObjectIdentifier, since: UInt64)?
            for (key, entry) in open where key != ObjectIdentifier(channel) {
                if let since = entry.idleSince, since < oldest?.since ?? .max { oldest = (key, since) }
            }
            guard let oldest else { return nil }
            return open.removeValue(forKey: oldest.key)?.channel
        }
        evicted?.close(promise: nil)
    }

    func busy(_ channel: any Channel) { open.withLock { $0[ObjectIdentifier(channel)]?.idleSince = nil } }

    func idle(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)]?.idleSince = DispatchTime.now().uptimeNanoseconds }
    }

    func closed(_ channel: any Channel) { _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }

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

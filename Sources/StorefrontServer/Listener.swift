// Where `storefront serve` listens: an address, or every address a name resolves to, so that
// `localhost` is served on ::1 and 127.0.0.1 alike, whichever a client's resolver gives first.
// One Hummingbird application per address, all on one port: with port 0 the first picks it and
// the others take the same. The kernel picks that port free on the first address only; on
// another it may be taken already, and then the whole set starts again on a new port.
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import StoreCore
import StoreModel

extension ServerApplication {
    /// The addresses to listen on for `host`: itself when it is an address, else each address its
    /// name resolves to, IPv6 first as the resolver orders them, once each.
    public static func addresses(of host: String) throws(StoreError) -> [String] {
        if (try? SocketAddress(ipAddress: host, port: 0)) != nil { return [host] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &found)
        guard status == 0, found != nil else {
            throw StoreError.storage(
                path: "--host \(host)", reason: "resolves to no address (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(found) }
        var addresses: [String] = []
        var entry = found
        while let current = entry {
            if let ip = numeric(current.pointee), !addresses.contains(ip) { addresses.append(ip) }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// An address of getaddrinfo's as text (127.0.0.1, ::1), as SwiftNIO writes it.
    static func numeric(_ entry: addrinfo) -> String? {
        switch entry.ai_family {
        case AF_INET:
            entry.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee).ipAddress }
        case AF_INET6:
            entry.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee).ipAddress }
        default: nil
        }
    }

    /// The server for `served` on every address of `host` at `port` (0 picks a free one), over
    /// HTTPS when `tls` is given, within `limits`; `onRunning` gets the URL to give clients.
    public static func listener(
        served: ServedStore, host: String, port: Int, logger: Logger, tls: TLSFiles? = nil, limits: Limits = Limits(),
        onRunning: @escaping @Sendable (String) async -> Void = { _ in }
    ) throws(StoreError) -> some Service {
        let addresses = try addresses(of: host)
        // A certificate or key that cannot be used is said before anything listens.
        _ = try tls?.configuration()
        let scheme = tls == nil ? "http" : "https"
        let named = addresses.contains(host) ? (host.contains(":") ? "[\(host)]" : host) : host
        return Listener(addresses: addresses, port: port, logger: logger) { address, port, running throws(StoreError) in
            try make(
                served: served, host: address, port: port, logger: logger, tls: tls, limits: limits, onRunning: running)
        } onRunning: { port in
            await onRunning("\(scheme)://\(named):\(port)")
        }
    }
}

/// Runs one application per address; the first binds the port, the rest bind the same one.
struct Listener: Service {
    typealias Make =
        @Sendable (String, Int, @escaping @Sendable (Int) async -> Void) throws(StoreError) -> any ApplicationProtocol

    let addresses: [String]
    let port: Int
    let logger: Logger
    let make: Make
    let onRunning: @Sendable (Int) async -> Void

    init(
        addresses: [String], port: Int, logger: Logger, make: @escaping Make,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) {
        (self.addresses, self.port, self.logger, self.make, self.onRunning) = (addresses, port, logger, make, onRunning)
    }

    /// How many ports `--port 0` tries before the last one's error is the answer. The kernel's
    /// pick for ::1 does not look at 127.0.0.1, where clients' connections hold ports too: with
    /// 20,000 connections open on this machine, 172 of 400 picks were taken there. Sixteen tries
    /// at that rate all fail about once in a million starts.
    static let attempts = 16

    /// With port 0, a later address whose socket already holds the port the first was given.
    struct PortTaken: Error {
        let port: Int
        let error: any Error
    }

    func run() async throws {
        var attempt = 1
        while true {
            do {
                return try await runOnce()
            } catch let taken as PortTaken {
                guard attempt < Self.attempts else { throw taken.error }
                attempt += 1
                logger.notice("port \(taken.port) is taken on another address; trying another: \(taken.error)")
            }
        }
    }

    /// Every address on one port, until the applications end; `PortTaken` when port 0's pick is
    /// in use on a later address (the applications already started are cancelled first).
    private func runOnce() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var bound = port
            for (index, address) in addresses.enumerated() {
                let (ports, reporter) = AsyncStream<Int>.makeStream()
                let application = try make(address, bound) { port in
                    reporter.yield(port)
                    reporter.finish()
                }
                group.addTask { [bound] in
                    do {
                        try await application.run()
                    } catch {
                        reporter.finish()
                        if index > 0, port == 0, ServerApplication.isAddressInUse(error) {
                            throw PortTaken(port: bound, error: error)
                        }
                        // Another address of the name that this machine cannot listen on (IPv6
                        // turned off, say) is left out; the first address must be served.
                        guard index > 0, Self.isUnavailable(error) else { throw error }
                        logger.notice("not listening on \(address): \(error)")
                    }
                }
                var running = false
                for await port in ports {
                    bound = port
                    running = true
                }
                if !running {
                    // This one did not start: its error ends the group, unless it was an address
                    // left out above (the task then ended without one).
                    try await group.next()
                    if index == 0 { return }
                }
            }
            await onRunning(bound)
            try await group.waitForAll()
        }
    }

    static func isUnavailable(_ error: any Error) -> Bool {
        guard let code = (error as? IOError)?.errnoCode else { return false }
        return code == EADDRNOTAVAIL || code == EAFNOSUPPORT
    }
}

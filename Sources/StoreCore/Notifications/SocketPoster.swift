// POST over a plain TCP socket to an http:// webhook (a developer's server on this machine or the
// local network): connect, write the request, read the status line, all under one deadline.
// URLSession would cost every start of the program thirty shared libraries (FoundationNetworking
// and libcurl's) and a purchase twice what the rest of its notification does (DECISIONS.md).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct WebhookPoster: WebhookPosting {
    public init() {}

    public func post(_ body: Data, to url: URL, timeout: TimeInterval) -> (status: Int?, error: String?) {
        guard url.scheme?.lowercased() == "http", let host = url.host else { return (nil, "only http:// webhooks are supported") }
        return SocketPost(host: host, port: url.port ?? 80, path: url.path.isEmpty ? "/" : url.path + (url.query.map { "?\($0)" } ?? ""))
            .send(body, timeout: timeout)
    }
}

struct SocketPost {
    let host: String
    let port: Int
    let path: String

    func send(_ body: Data, timeout: TimeInterval) -> (status: Int?, error: String?) {
        let deadline = Date().addingTimeInterval(timeout)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return (nil, "cannot resolve \(host)") }
        defer { freeaddrinfo(found) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return (nil, "no socket") }
        defer { close(descriptor) }
        // Connect without blocking, then wait for it within the deadline.
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0, errno != EINPROGRESS {
            return (nil, String(cString: strerror(errno)))
        }
        guard wait(descriptor, events: Int16(POLLOUT), until: deadline) else { return (nil, "timed out connecting after \(Int(timeout)) s") }
        var problem: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &problem, &length)
        if problem != 0 { return (nil, String(cString: strerror(problem))) }
        var request = Array("POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nUser-Agent: Storefront (App Store Server Notifications V2, local)\r\nConnection: close\r\n\r\n".utf8)
        request += body
        var sent = 0
        while sent < request.count {
            guard wait(descriptor, events: Int16(POLLOUT), until: deadline) else { return (nil, "timed out sending after \(Int(timeout)) s") }
            let count = request[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return (nil, String(cString: strerror(errno)))
            }
            sent += count
        }
        // The status line is all that matters: "HTTP/1.1 200 OK".
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(UInt8(ascii: "\n")) {
            guard wait(descriptor, events: Int16(POLLIN), until: deadline) else { return (nil, "timed out after \(Int(timeout)) s waiting for an answer") }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return (nil, String(cString: strerror(errno)))
            }
            answer += buffer[0..<count]
        }
        let line = String(decoding: answer.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return (nil, "not an HTTP answer" + (line.isEmpty ? "" : ": \(line.prefix(60))"))
        }
        return (status, nil)
    }

    private func wait(_ descriptor: Int32, events: Int16, until deadline: Date) -> Bool {
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }
}

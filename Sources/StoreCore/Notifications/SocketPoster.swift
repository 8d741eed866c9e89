// HTTP over a plain TCP socket: a POST to an http:// webhook (a developer's server on this machine
// or the local network), reading the status line, and a device's calls to its account server
// (`--server`), reading the whole answer; connect, write, read, all under one deadline. https://
// goes through the program's TLS client instead (HTTPCall).
// URLSession would cost every start of the program thirty shared libraries (FoundationNetworking
// and libcurl's) and a purchase twice what the rest of its notification does (DECISIONS.md).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct WebhookPoster: WebhookPosting {
    public init() {}

    public func post(_ body: Data, to url: URL, timeout: TimeInterval) -> (status: Int?, error: String?) {
        switch HTTPCall.post(
            url, headers: ["User-Agent": "Storefront (App Store Server Notifications V2, local)"], body: body, timeout: timeout, whole: false
        ) {
        case .success(let answer): return (answer.status, nil)
        case .failure(let problem): return (nil, problem.reason)
        }
    }
}

struct SocketHTTP {
    typealias Problem = HTTPProblem

    let host: String
    let port: Int

    /// POSTs `body` as JSON and reads the status line, or (`whole`) the answer to its end.
    func send(path: String, headers: [String: String], body: Data, timeout: TimeInterval, whole: Bool) -> Result<(status: Int, body: Data), Problem> {
        switch exchange(path: path, headers: headers, body: body, timeout: timeout, whole: whole) {
        case .success(let answer):
            let headEnd = answer.firstRange(of: Array("\r\n\r\n".utf8))
            let line = String(decoding: answer.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            let parts = line.split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
                return .failure(Problem("not an HTTP answer" + (line.isEmpty ? "" : ": \(line.prefix(60))")))
            }
            return .success((status, headEnd.map { Data(answer[$0.upperBound...]) } ?? Data()))
        case .failure(let problem):
            return .failure(problem)
        }
    }

    private func exchange(path: String, headers: [String: String], body: Data, timeout: TimeInterval, whole: Bool) -> Result<[UInt8], Problem> {
        let deadline = Date().addingTimeInterval(timeout)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return .failure(Problem("cannot resolve \(host)")) }
        defer { freeaddrinfo(found) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return .failure(Problem("no socket")) }
        defer { close(descriptor) }
        // Connect without blocking, then wait for it within the deadline.
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0, errno != EINPROGRESS {
            return .failure(Problem(String(cString: strerror(errno))))
        }
        guard wait(descriptor, events: Int16(POLLOUT), until: deadline) else { return .failure(Problem("timed out connecting after \(String(format: "%g", timeout)) s")) }
        var problem: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &problem, &length)
        if problem != 0 { return .failure(Problem(String(cString: strerror(problem)))) }
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        var request = Array((head + "Connection: close\r\n\r\n").utf8)
        request += body
        var sent = 0
        while sent < request.count {
            guard wait(descriptor, events: Int16(POLLOUT), until: deadline) else { return .failure(Problem("timed out sending after \(String(format: "%g", timeout)) s")) }
            let count = request[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return .failure(Problem(String(cString: strerror(errno))))
            }
            sent += count
        }
        // A webhook's status line is all that matters ("HTTP/1.1 200 OK"); a whole answer ends
        // when the server closes (Connection: close).
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while whole || !answer.contains(UInt8(ascii: "\n")) {
            guard wait(descriptor, events: Int16(POLLIN), until: deadline) else {
                return .failure(Problem("timed out after \(String(format: "%g", timeout)) s waiting for an answer"))
            }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return .failure(Problem(String(cString: strerror(errno))))
            }
            answer += buffer[0..<count]
        }
        return .success(answer)
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

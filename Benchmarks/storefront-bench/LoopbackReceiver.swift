// A developer's server for the benchmark: answers every request on 127.0.0.1 with 200 and
// counts them. One thread, one connection at a time (the courier sends one POST at a time).
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

final class LoopbackReceiver: @unchecked Sendable {
    let port: Int
    private let socketDescriptor: Int32
    private let lock = NSLock()
    private var count = 0

    var received: Int { lock.withLock { count } }

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw CocoaError(.fileWriteUnknown) }
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
        }
        socketDescriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    private func serve() {
        while true {
            let connection = accept(socketDescriptor, nil, nil)
            guard connection >= 0 else { continue }
            var request = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            // Read the head, then as much body as Content-Length says.
            while true {
                let read = recv(connection, &buffer, buffer.count, 0)
                if read <= 0 { break }
                request += buffer[0..<read]
                let text = String(decoding: request, as: UTF8.self)
                guard let head = text.range(of: "\r\n\r\n") else { continue }
                let lengthLine = text[..<head.lowerBound].split(separator: "\r\n").first {
                    $0.lowercased().hasPrefix("content-length:")
                }
                let expected =
                    Int(lengthLine?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "0") ?? 0
                if text.utf8.count - text.utf8.distance(from: text.startIndex, to: head.upperBound) >= expected {
                    break
                }
            }
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            _ = send(connection, answer, answer.count, 0)
            close(connection)
            lock.withLock { count += 1 }
        }
    }
}

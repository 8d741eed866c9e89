// One store operation at a time per device, across processes (P3).
//
// SQLite already serialises each write; this lock makes a whole operation (a purchase: device
// row, server receipt, device state, delivery) atomic with respect to other processes' recovery,
// so that recovery never mistakes another process's purchase in progress for one a crash left
// behind. flock(2) is released by the kernel when a process dies, so a crash never leaves it held.
import Foundation
import StoreModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

final class DeviceLock {
    private let path: String
    private var descriptor: Int32 = -1
    private var depth = 0

    init(path: String) { self.path = path }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func withLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try acquire()
        defer { release() }
        return try body()
    }

    private func acquire() throws(StoreError) {
        if depth > 0 {
            depth += 1
            return
        }
        if descriptor < 0 {
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            if descriptor < 0 {
                throw StoreError.storage(
                    path: path, reason: "cannot open the device lock (\(String(cString: strerror(errno))))")
            }
        }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw StoreError.storage(path: path, reason: "cannot lock the device (\(String(cString: strerror(errno))))")
        }
        depth = 1
    }

    private func release() {
        depth -= 1
        if depth == 0 { flock(descriptor, LOCK_UN) }
    }
}

// HTTPS for the screen's program (W13), loaded only when an https:// URL is first used: the TLS
// stack (AsyncHTTPClient, SwiftNIO, BoringSSL) lives in libStorefrontTLS.so beside this program, so
// that starting the screen and its memory never carry it (DECISIONS.md, "HTTPS both ways").
import Foundation
import StoreCore
#if canImport(Glibc)
import Glibc
#endif

final class LoadedTLS: SecureTransport {
    typealias Post = @convention(c) (
        UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<UInt8>?, Int, Double,
        UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>
    ) -> Int32

    static let libraryName = "libStorefrontTLS.so"
    private let loaded = Locked<Result<Post, HTTPProblem>?>(nil)

    /// The library beside this program (followed through symbolic links), loaded once.
    private func function() -> Result<Post, HTTPProblem> {
        loaded.withLock { loaded in
            if let loaded { return loaded }
            let folder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
            let path = folder?.appendingPathComponent(Self.libraryName).path ?? Self.libraryName
            let result: Result<Post, HTTPProblem>
            if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, "storefront_tls_post") {
                result = .success(unsafeBitCast(symbol, to: Post.self))
            } else {
                let why = dlerror().map { String(cString: $0) } ?? "not found"
                result = .failure(HTTPProblem("https:// needs \(Self.libraryName) beside storefront (`swift build` makes it; install it with the program): \(why)"))
            }
            loaded = result
            return result
        }
    }

    func post(_ url: URL, headers: [String: String], body: Data, timeout: TimeInterval) -> Result<(status: Int, body: Data), HTTPProblem> {
        let post: Post
        switch function() {
        case .success(let found): post = found
        case .failure(let problem): return .failure(problem)
        }
        let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        var answer: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = body.withUnsafeBytes { raw in
            post(url.absoluteString, lines, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, timeout, &answer, &count)
        }
        defer { free(answer) }
        let bytes = answer.map { Data(bytes: $0, count: count) } ?? Data()
        guard status > 0 else { return .failure(HTTPProblem(String(decoding: bytes, as: UTF8.self))) }
        return .success((Int(status), bytes))
    }
}

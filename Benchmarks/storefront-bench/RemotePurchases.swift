// Purchases through `storefront serve` (the "remote" section of main.swift), and the server those
// sections start.
import Dispatch
import Foundation
import StoreCore
import StoreModel
import StorefrontServer
import TestSupport

/// `storefront serve` (beside the bench) over `folder` on a free port, and the address it printed.
@MainActor func startServer(_ folder: StateDirectory, database: String?) throws -> (Process, String) {
    let server = Process()
    server.executableURL = binaries.appendingPathComponent("storefront")
    server.arguments =
        [
            "serve", "--state-dir", folder.url.path, "--catalog",
            repository.appendingPathComponent("assets/catalog.json").path, "--port", "0",
        ]
        + (database.map { ["--database", $0] } ?? [])
    let output = Pipe()
    server.standardOutput = output
    server.standardError = FileHandle.nullDevice
    try server.run()
    var line = Data()
    while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
        line += byte
    }
    return (server, String(decoding: line, as: UTF8.self).components(separatedBy: "listening on ").last ?? "")
}

/// Purchases a second through `storefront serve` from `count` devices, two to a machine, beside
/// one device's purchases on the same account server in-process; `database` names PostgreSQL.
@MainActor func remotePurchases(database: String?, devices count: Int) throws -> (
    remote: Double, local: Double, failures: Int
) {
    let name = (database == nil ? "sqlite" : "postgres") + "-\(count)"
    let folder = StateDirectory(scratch.appendingPathComponent("remote-\(name)"))
    let product = "com.storefront.randomviews"
    let perDevice = 50
    // In-process: one device on the same account server.
    let local = try StoreFactory(
        stateDirectory: folder, catalog: catalog, calendar: utc, time: .shared(override: nil),
        server: try database.map { url throws(StoreError) in try PostgresAccountServer.open(url: url) }
    )
    local.passwordHasher = PasswordHasher(cost: 16)
    let here = try local.open(device: "here")
    try here.accounts.signUp("local", password: "bench")
    let localTime = try seconds { for _ in 0..<(4 * perDevice) { try here.queue.buy(product) } }
    // Through the server: `count` devices, two on each "machine", signed in to one account.
    let (server, address) = try startServer(folder, database: database)
    defer {
        server.terminate()
        server.waitUntilExit()
    }
    let base = try require(URL(string: address))
    let devices = try (0..<count).map { index -> Store in
        let factory = try StoreFactory(
            stateDirectory: StateDirectory(scratch.appendingPathComponent("machine-\(name)-\(index / 2)")),
            catalog: catalog, calendar: utc,
            time: .shared(override: nil), server: try RemoteAccountServer(url: base, timeout: 60)
        )
        let store = try factory.open(device: "device\(index)")
        if index == 0 {
            try store.accounts.signUp("remote", password: "bench")
        } else {
            try store.accounts.signIn("remote", password: "bench")
        }
        return store
    }
    nonisolated(unsafe) let stores = devices
    let failures = Locked(0)
    // A thread each, all at once (concurrentPerform would run only as many as there are cores),
    // the same number of purchases in all whatever the count.
    let each = 4 * perDevice / count
    let remoteTime = try seconds {
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            Thread.detachNewThread {
                for _ in 0..<each where (try? stores[index].queue.buy(product)) == nil { failures.withLock { $0 += 1 } }
                done.leave()
            }
        }
        done.wait()
    }
    return (Double(count * each) / remoteTime, Double(4 * perDevice) / localTime, failures.withLock { $0 })
}

// The random-comic viewer (R7): free while subscribed, else one view each; never the same comic
// twice in a row; the last one shown is kept on the device.
import Foundation
import StoreModel

public final class RandomComics: SessionRole {
    let session: DeviceSession
    private let entitlements: Entitlements
    private let randomIndex: (Int) -> Int

    init(session: DeviceSession, entitlements: Entitlements, randomIndex: @escaping (Int) -> Int) {
        self.session = session
        self.entitlements = entitlements
        self.randomIndex = randomIndex
    }

    /// Shows one random comic: free while subscribed, else it uses one view. Never the same comic
    /// twice in a row when there are two or more; the last one shown is kept on the device.
    public func show() throws(StoreError) -> RandomComicResult {
        let pool = catalog.randomPool
        guard !pool.isEmpty else { throw StoreError.noRandomComics }
        let user = try session.profileKey
        let packID = catalog.products.first { $0.kind == .consumable }?.id
        return try withDeviceLock { () throws(StoreError) -> RandomComicResult in
            let comic = try device.showRandom(user: user, now: now(), pool: pool, packID: packID) { count in
                min(max(randomIndex(count), 0), count - 1)
            }
            let status = try entitlements.status()
            return RandomComicResult(
                comic: comic, randomViewsRemaining: status.randomViewsRemaining, isSubscribed: status.hasPass,
                header: status.header
            )
        }
    }
}

public struct RandomComicResult: Sendable, Equatable {
    public var comic: RandomComic
    public var randomViewsRemaining: Int
    public var isSubscribed: Bool
    public var header: String
}

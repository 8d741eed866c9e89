// The screen's effects, performed off its loop: a store call that waits on a team
// server never holds up a key. Effects run one at a time, in the order they were asked, on a
// queue of their own; what each produced comes back to the loop, which dispatches it in the same
// order, as Bubble Tea's commands and The Composable Architecture's effects answer with messages.
import Foundation

final class EffectWorker: @unchecked Sendable {
    /// Touched only on `queue` once the worker has it: a store is not shared between threads.
    private let store: StoreServing
    private let queue = DispatchQueue(label: "storefront.effects")
    private let lock = NSLock()
    /// Asked for and not begun, oldest first.
    private var waiting: [Effect] = []
    /// The effect the queue is performing, and since when (the wall clock: how long a person has
    /// been kept waiting, not the store's clock).
    private var running: (effect: Effect, since: Date)?
    /// Performed and not yet collected, in the order they ended.
    private var done: [(effect: Effect, actions: [Action])] = []
    /// Once the screen has closed, nothing waiting is begun.
    private var stopped = false

    init(store: StoreServing) { self.store = store }

    /// Queues `effect`. A tick's `.settle` is dropped while another waits or runs: a server that
    /// does not answer is asked once, not four times a second.
    func submit(_ effect: Effect) {
        let queued = lock.withLock { () -> Bool in
            if effect == .settle, waiting.contains(.settle) || running?.effect == .settle { return false }
            waiting.append(effect)
            return true
        }
        guard queued else { return }
        queue.async { [self] in
            let next = lock.withLock { () -> Effect? in
                let next = waiting.removeFirst()
                guard !stopped else { return nil }
                running = (next, Date())
                return next
            }
            guard let next else { return }
            let actions = store.perform(next)
            lock.withLock {
                running = nil
                done.append((next, actions))
            }
        }
    }

    /// What was performed since the last call, in order.
    func collect() -> [(effect: Effect, actions: [Action])] {
        lock.withLock {
            defer { done.removeAll() }
            return done
        }
    }

    /// The effect being performed, and since when; nil when the queue is idle.
    var current: (effect: Effect, since: Date)? { lock.withLock { running } }

    /// Whether anything is being performed, waits, or waits to be collected.
    var isIdle: Bool { lock.withLock { running == nil && waiting.isEmpty && done.isEmpty } }

    /// What was asked and has not ended: the one being performed, then those waiting.
    var unfinished: [Effect] { lock.withLock { (running.map { [$0.effect] } ?? []) + waiting } }

    /// Begins nothing more; what was asked and had not ended: the effect being performed, which
    /// goes on (a store call cannot be taken back half way; Q3 completes it later), and those that
    /// will never begin.
    func stop() -> Unfinished {
        lock.withLock {
            stopped = true
            return Unfinished(running: running?.effect, waiting: waiting)
        }
    }
}

/// What the screen's store was still doing when the screen closed.
public struct Unfinished: Equatable, Sendable {
    /// Being performed: it ends on its own thread, or, cut off by the exit, at the next start.
    public var running: Effect?
    /// Asked and never begun.
    public var waiting: [Effect]

    /// Nothing left.
    public static let none = Unfinished(running: nil, waiting: [])
}

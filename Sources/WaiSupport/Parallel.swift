// Work spread over the cores: the lane decoder's groups, the probe's plugins, the signatures
// of a long audit bundle. Here, beside Mutex, so every module finds the one implementation.

import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Cores online now (at least 1): the width of parallel work such as the lane decoder's.
package func onlineCoreCount() -> Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

/// Runs `body` over `items` on at most `width` threads at once; results keep item order.
package func parallelMap<T, R>(_ items: [T], width: Int, _ body: @escaping (T) -> R) -> [R] {
    guard items.count > 1, width > 1 else { return items.map(body) }
    let state = ParallelState<R>(count: items.count)
    let group = DispatchGroup()
    for _ in 0..<min(width, items.count) {
        DispatchQueue.global().async(group: group) {
            while let i = state.claim() {
                state.store(body(items[i]), at: i)
            }
        }
    }
    group.wait()
    return state.results()
}

/// The shared cursor and result slots of one parallelMap (or PendingSpotCheck), behind a lock.
package final class ParallelState<R>: @unchecked Sendable {
    private let lock = Mutex()
    private var next = 0
    private var slots: [R?]

    package init(count: Int) { slots = Array(repeating: nil, count: count) }

    package func claim() -> Int? {
        lock.withLock {
            guard next < slots.count else { return nil }
            next += 1
            return next - 1
        }
    }

    /// No item is claimed after this (results() must not be called then).
    package func cancel() { lock.withLock { next = slots.count } }

    package func store(_ r: R, at i: Int) { lock.withLock { slots[i] = r } }

    package func results() -> [R] { lock.withLock { slots.map { $0! } } }
}

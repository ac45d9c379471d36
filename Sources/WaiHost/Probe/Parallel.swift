import Dispatch

/// Runs `body` over `items` on at most `width` threads at once; results keep item order.
func parallelMap<T, R>(_ items: [T], width: Int, _ body: @escaping (T) -> R) -> [R] {
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

/// The shared cursor and result slots of one parallelMap, behind a lock.
private final class ParallelState<R>: @unchecked Sendable {
    private let lock = PluginLock()
    private var next = 0
    private var slots: [R?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func claim() -> Int? {
        lock.withLock {
            guard next < slots.count else { return nil }
            next += 1
            return next - 1
        }
    }

    func store(_ r: R, at i: Int) { lock.withLock { slots[i] = r } }

    func results() -> [R] { lock.withLock { slots.map { $0! } } }
}

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

/// Runs every body on its own thread, all released at once, so that they really overlap
/// (a pool of as many threads as cores would run them a few at a time, in order); results
/// keep body order. For the probe's concurrency check (docs/probe.md `repetition`), where
/// overlap is the point.
package func runConcurrently<R>(_ bodies: [() -> R]) -> [R] {
    guard bodies.count > 1 else { return bodies.map { $0() } }
    let state = ConcurrentRun(bodies)
    var threads: [pthread_t] = []
    var inline: [Int] = []
    for i in bodies.indices {
        let context = Unmanaged.passRetained(ConcurrentSlot(run: { state.run(i) })).toOpaque()
        var thread = pthread_t()
        if pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ConcurrentSlot>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context) == 0 {
            threads.append(thread)
        } else {
            Unmanaged<ConcurrentSlot>.fromOpaque(context).release()
            inline.append(i)
        }
    }
    // Every thread is waiting at the start: release them together.
    for _ in threads { state.arrived.wait() }
    for _ in threads { state.go.signal() }
    for t in threads { pthread_join(t, nil) }
    for i in inline { state.go.signal(); state.run(i) }
    return state.results()
}

private final class ConcurrentSlot {
    let run: () -> Void
    init(run: @escaping () -> Void) { self.run = run }
}

/// The bodies, their results and the start signals of one runConcurrently.
private final class ConcurrentRun<R>: @unchecked Sendable {
    private let bodies: [() -> R]
    private var slots: [R?]
    private let lock = Mutex()
    let arrived = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)

    init(_ bodies: [() -> R]) {
        self.bodies = bodies
        slots = Array(repeating: nil, count: bodies.count)
    }

    func run(_ i: Int) {
        arrived.signal()
        go.wait()
        let r = bodies[i]()
        lock.withLock { slots[i] = r }
    }

    package func results() -> [R] { lock.withLock { slots.map { $0! } } }
}

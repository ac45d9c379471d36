// onlineCoreCount, parallelMap and ParallelState are WaiSupport's (Sources/WaiSupport/Parallel.swift).
import Dispatch
import WaiSupport
#if canImport(Glibc)
import Glibc
#endif

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

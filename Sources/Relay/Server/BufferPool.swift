// Buffers of objects the relay no longer holds, kept for the next objects instead of freed
// (docs/relay.md, "Throughput"). A fresh buffer costs a page fault per 4 KiB on first touch:
// about 30 ms for 16 MiB on the VMs measured, three times the SHA-256 of the same bytes, so
// a stream of similar segments reuses the memory of the ones evicted before it.

#if canImport(Glibc)
import Glibc
#endif

final class BufferPool: @unchecked Sendable {
    /// Shared by every session in the process; bounded by `limit` bytes kept.
    static let shared = BufferPool(limit: 64 << 20)

    let limit: Int
    private let lock = Mutex()
    private var blocks: [(base: UnsafeMutableRawPointer, capacity: Int)] = []
    private(set) var kept = 0

    init(limit: Int) { self.limit = limit }

    /// A kept block of at least `n` bytes (the smallest that fits, and not over twice `n`, so a
    /// small object does not pin a large block), or nil.
    func take(atLeast n: Int) -> (base: UnsafeMutableRawPointer, capacity: Int)? {
        lock.withLock {
            var best: Int?
            for (i, b) in blocks.enumerated() where b.capacity >= n && b.capacity / 2 <= n {
                if best.map({ blocks[$0].capacity > b.capacity }) ?? true { best = i }
            }
            guard let i = best else { return nil }
            let b = blocks.remove(at: i)
            kept -= b.capacity
            return b
        }
    }

    /// Keeps `base` for reuse, or frees it when the pool is full (the oldest kept go first).
    func give(_ base: UnsafeMutableRawPointer, capacity: Int) {
        let freed: [UnsafeMutableRawPointer] = lock.withLock {
            guard capacity <= limit else { return [base] }
            var out: [UnsafeMutableRawPointer] = []
            while kept + capacity > limit, !blocks.isEmpty {
                let b = blocks.removeFirst()
                kept -= b.capacity
                out.append(b.base)
            }
            blocks.append((base, capacity))
            kept += capacity
            return out
        }
        freed.forEach { free($0) }
    }
}

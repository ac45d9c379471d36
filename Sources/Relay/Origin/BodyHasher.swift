// SHA-256 of a body while it arrives (docs/relay.md, "Throughput"). A small body is hashed on
// the receiving thread, chunk by chunk, while the chunk is still in cache. Past `parallelFrom`
// bytes a second thread hashes what has landed while libcurl receives the next chunks, so the
// transfer's copies and the hash run on two cores instead of one after the other.

import Foundation

final class BodyHasher: @unchecked Sendable {
    /// From this many bytes (declared or received) the hash runs on its own thread.
    static let parallelFrom = 1 << 20

    private let bytes: SharedBytes
    private let hasher = SHA256Hasher()
    private let cond = NSCondition()
    // Guarded by `cond` once the worker runs.
    private var landed = 0
    private var hashed = 0
    private var reading = false
    private var closed = false
    private var workerDone = false
    private var worker = false

    init(_ bytes: SharedBytes) { self.bytes = bytes }

    /// The receiving thread appended up to `count` bytes.
    func landed(_ count: Int, expected: Int) {
        if !worker {
            if max(count, expected) < Self.parallelFrom {
                bytes.withSpan(hashed..<count) { hasher.update($0) }
                hashed = count
                landed = count
                return
            }
            startWorker()
        }
        cond.lock()
        landed = count
        cond.signal()
        cond.unlock()
    }

    /// Runs `change` (a reallocation of the bytes) while the worker reads none of them.
    func quiesced(_ change: () -> Void) {
        guard worker else { return change() }
        cond.lock()
        while reading { cond.wait() }
        change()
        cond.unlock()
    }

    /// The digest of everything landed; waits for the worker to hash the rest.
    func finish() -> [UInt8] {
        if worker {
            cond.lock()
            closed = true
            cond.broadcast()
            while !workerDone { cond.wait() }
            cond.unlock()
        }
        return hasher.finalize()
    }

    private func startWorker() {
        worker = true
        let t = Thread { [self] in run() }
        t.stackSize = 256 << 10
        t.start()
    }

    private func run() {
        cond.lock()
        while true {
            while landed == hashed && !closed { cond.wait() }
            if landed == hashed { break }
            let span = hashed..<landed
            reading = true
            cond.unlock()
            bytes.withSpan(span) { hasher.update($0) }
            cond.lock()
            hashed = span.upperBound
            reading = false
            cond.broadcast()
        }
        workerDone = true
        cond.broadcast()
        cond.unlock()
    }
}

// One CMCD event-mode reporting target (CTA-5004-B §3.4; docs/collector.md §CMCD rules):
// reports are numbered `sn` 0, 1, 2, … for this target (a new sender per session), POSTed in
// batches as `Content-Type: application/cmcd`, one report a line. The target's answer decides:
// 2xx delivered; 410 Gone stops reporting to it for good; 429 and 5xx (and no answer) put the
// batch back at the head of the queue and retry with backoff; any other 4xx drops the batch.

import Foundation

public final class CMCDSender: @unchecked Sendable {
    public struct Backoff: Sendable {
        public var initialSeconds: Double
        public var maxSeconds: Double
        public init(initialSeconds: Double = 0.5, maxSeconds: Double = 30) {
            self.initialSeconds = initialSeconds
            self.maxSeconds = maxSeconds
        }
    }

    public let target: String
    public let backoff: Backoff
    /// Reports waiting beyond this are dropped, oldest first (a target down for long).
    public let maxQueued: Int
    public let batchSize: Int

    private let cond = NSCondition()
    private var queue: [String] = []
    private var nextSequence: Int64 = 0
    private var inFlight = 0
    private var gone = false
    private var stopping = false
    private var retryAt: Date?
    private var failures = 0
    public private(set) var dropped = 0

    public init(target: String, backoff: Backoff = Backoff(), maxQueued: Int = 1000, batchSize: Int = 64) {
        self.target = target
        self.backoff = backoff
        self.maxQueued = maxQueued
        self.batchSize = batchSize
        Thread { [weak self] in self?.loop() }.start()
    }

    /// Numbers the report for this target and queues it.
    public func send(_ event: CMCDEvent) {
        cond.lock()
        defer { cond.unlock() }
        guard !gone, !stopping else { return }
        queue.append(event.line(sn: nextSequence))
        nextSequence += 1
        if queue.count > maxQueued {
            queue.removeFirst(queue.count - maxQueued)
            dropped += 1
        }
        cond.broadcast()
    }

    /// True once the target answered 410: nothing more is sent to it.
    public var stoppedByTarget: Bool { cond.lock(); defer { cond.unlock() }; return gone }

    /// Waits until everything queued was answered (or the target is gone), at most `seconds`.
    public func flush(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        cond.lock()
        defer { cond.unlock() }
        while !(queue.isEmpty && inFlight == 0) && !gone {
            if !cond.wait(until: deadline) { return queue.isEmpty && inFlight == 0 }
        }
        return true
    }

    public func stop() {
        cond.lock()
        stopping = true
        cond.broadcast()
        cond.unlock()
    }

    private func loop() {
        cond.lock()
        while true {
            if stopping || gone { cond.unlock(); return }
            if let r = retryAt, r > Date() { _ = cond.wait(until: r); continue }
            if queue.isEmpty { cond.wait(); continue }
            let batch = Array(queue.prefix(batchSize))
            queue.removeFirst(batch.count)
            inFlight = batch.count
            cond.unlock()
            let status = (try? HTTPPost.post(target, body: Array((batch.joined(separator: "\n") + "\n").utf8),
                                             contentType: "application/cmcd", timeoutSeconds: 10).status) ?? 0
            cond.lock()
            inFlight = 0
            switch status {
            case 200...299, 400...409, 411...428, 430...499:
                failures = 0
                retryAt = nil
                if status >= 400 { dropped += batch.count }
            case 410:
                gone = true
                queue = []
            default: // 429, 5xx, no answer: back to the head of the queue, later
                queue.insert(contentsOf: batch, at: 0)
                failures += 1
                retryAt = Date().addingTimeInterval(min(backoff.maxSeconds, backoff.initialSeconds * pow(2, Double(failures - 1))))
            }
            cond.broadcast()
        }
    }
}

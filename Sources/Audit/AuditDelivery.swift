// Delivery to the owner's collector (docs/audit-bundle.md §5): every spooled bundle is posted
// to <collector>/v1/sessions until an acknowledgement signed by the owner key verifies, with
// exponential backoff per bundle; CMCD event lines go to <collector>/v1/cmcd, best effort.

import Foundation
import WaiCrypto

public final class AuditDelivery: @unchecked Sendable {
    public enum Event: Sendable, Equatable {
        case delivered(sessionId: String, status: CollectorAcknowledgement.Status)
        /// Still spooled; the next try is `retryIn` seconds away.
        case failed(sessionId: String, reason: String, retryIn: Double)
    }

    public struct Backoff: Sendable {
        public var initialSeconds: Double = 1
        public var maxSeconds: Double = 300
        public init(initialSeconds: Double = 1, maxSeconds: Double = 300) {
            self.initialSeconds = initialSeconds
            self.maxSeconds = maxSeconds
        }
    }

    public let collector: String
    public let owner: Ed25519PublicKey
    public let spool: AuditSpool
    public let backoff: Backoff

    private let cond = NSCondition()
    private var attempts: [String: (count: Int, next: Double)] = [:]
    /// The bundle being posted by the worker: its file may already be gone while its event
    /// is not yet reported, so waitUntilDelivered waits for it too.
    private var inFlight: String?
    private var stopping = false
    private var thread: Thread?
    private var onEvent: (@Sendable (Event) -> Void)?
    private let cmcdQueue = DispatchQueue(label: "waihost.audit.cmcd")

    public init(collector: String, owner: Ed25519PublicKey, spool: AuditSpool, backoff: Backoff = Backoff(),
                onEvent: (@Sendable (Event) -> Void)? = nil) {
        var c = collector
        while c.hasSuffix("/") { c.removeLast() }
        self.collector = c
        self.owner = owner
        self.spool = spool
        self.backoff = backoff
        self.onEvent = onEvent
    }

    /// Starts the delivery thread; what the spool already holds (an earlier run's) goes first.
    public func start() {
        cond.lock()
        defer { cond.unlock() }
        guard thread == nil else { return }
        let t = Thread { [weak self] in self?.loop() }
        thread = t
        t.start()
    }

    /// Spools `bundle` (durably, before returning) and wakes the delivery thread.
    public func submit(_ bundle: [UInt8], sessionId: String) throws {
        try spool.store(bundle, sessionId: sessionId)
        cond.lock()
        attempts[sessionId] = nil
        cond.signal()
        cond.unlock()
    }

    /// Stops the thread after its current attempt; spooled bundles stay for the next run.
    public func stop() {
        cond.lock()
        stopping = true
        cond.broadcast()
        cond.unlock()
    }

    /// Blocks until the spool is empty or `seconds` pass; true when empty.
    public func waitUntilDelivered(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        cond.lock()
        defer { cond.unlock() }
        while !spool.pending().isEmpty || inFlight != nil {
            if !cond.wait(until: deadline) { return spool.pending().isEmpty && inFlight == nil }
        }
        return true
    }

    /// One try of one spooled bundle: posted, acknowledgement verified, file removed.
    /// Returns the acknowledgement's status; throws why it is still spooled.
    public func deliver(sessionId: String) throws -> CollectorAcknowledgement.Status {
        let bytes = try spool.read(sessionId)
        let result = try HTTPPost.post(collector + "/v1/sessions", body: bytes, contentType: "application/json")
        guard result.status == 200 else {
            let text = String(decoding: result.body.prefix(300), as: UTF8.self)
            throw DeliveryError.status(result.status, text)
        }
        let ack = try CollectorAcknowledgement.verify(result.body, owner: owner, sessionId: sessionId,
                                                      bundleSha256: SHA256.hex(bytes))
        try spool.remove(sessionId)
        return ack.status
    }

    /// Posts one CMCD event-mode line (CTA-5004-B, application/cmcd) without waiting; failures
    /// are dropped (CMCD is best effort, never spooled).
    public func postCMCD(_ line: String) {
        let url = collector + "/v1/cmcd"
        cmcdQueue.async {
            _ = try? HTTPPost.post(url, body: Array((line + "\n").utf8), contentType: "application/cmcd", timeoutSeconds: 5)
        }
    }

    private func loop() {
        while true {
            cond.lock()
            if stopping { cond.unlock(); return }
            let now = Date().timeIntervalSinceReferenceDate
            let ids = spool.pending()
            let due = ids.first { (attempts[$0]?.next ?? 0) <= now }
            if due == nil {
                let next = ids.compactMap { attempts[$0]?.next }.min()
                let wake = Date(timeIntervalSinceReferenceDate: next ?? now + 60)
                _ = cond.wait(until: wake)
                cond.unlock()
                continue
            }
            guard let id = due else { cond.unlock(); continue }
            inFlight = id
            cond.unlock()
            do {
                let status = try deliver(sessionId: id)
                onEvent?(.delivered(sessionId: id, status: status))
                cond.lock()
                attempts[id] = nil
            } catch {
                cond.lock()
                let n = (attempts[id]?.count ?? 0) + 1
                let delay = min(backoff.maxSeconds, backoff.initialSeconds * pow(2, Double(n - 1)))
                attempts[id] = (n, Date().timeIntervalSinceReferenceDate + delay)
                cond.unlock()
                onEvent?(.failed(sessionId: id, reason: "\(error)", retryIn: delay))
                cond.lock()
            }
            inFlight = nil
            cond.broadcast()
            cond.unlock()
        }
    }
}

public enum DeliveryError: Error, Equatable, Sendable, CustomStringConvertible {
    case status(Int, String)
    public var description: String {
        switch self {
        case .status(let s, let t): return "collector answered HTTP \(s): \(t)"
        }
    }
}

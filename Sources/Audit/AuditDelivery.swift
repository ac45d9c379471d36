// Delivery to the owner's collector (docs/audit-bundle.md §5): every bundle spooled for this
// owner (and any that could not be spooled, held in memory instead) is posted to
// <collector>/v1/sessions until an acknowledgement signed by the owner key verifies, with
// exponential backoff per bundle. (CMCD reports go by CMCDSender.)

import Foundation
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

public final class AuditDelivery: @unchecked Sendable {
    public enum Event: Sendable, Equatable {
        case delivered(sessionId: String, status: CollectorAcknowledgement.Status)
        /// Still spooled; the next try is `retryIn` seconds away.
        case failed(sessionId: String, reason: String, retryIn: Double)
        /// The spool refused the bundle (full or read-only file system): it is held in memory
        /// and delivered from there; lost if the process ends before it is acknowledged.
        case heldInMemory(sessionId: String, reason: String)
        /// A journal left by a relay that died was turned into a bundle (docs/audit-bundle.md §8).
        case recovered(sessionId: String)
        /// A journal that could not be read; left where it is.
        case unrecoverable(sessionId: String, reason: String)
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
    /// Bundles the spool refused, by session id.
    private var held: [String: [UInt8]] = [:]
    /// The bundle being posted by the worker: its file may already be gone while its event
    /// is not yet reported, so waitUntilDelivered waits for it too.
    private var inFlight: String?
    private var stopping = false
    private var thread: Thread?
    private var onEvent: (@Sendable (Event) -> Void)?

    public init(collector: String, owner: Ed25519PublicKey, spool: AuditSpool, backoff: Backoff = Backoff(),
                onEvent: (@Sendable (Event) -> Void)? = nil) {
        var c = collector
        while c.hasSuffix("/") { c.removeLast() }
        self.collector = c
        precondition(spool.owner == owner, "audit delivery: the spool of another owner")
        self.owner = owner
        self.spool = spool
        self.backoff = backoff
        self.onEvent = onEvent
    }

    /// Starts the delivery thread; what the spool already holds (an earlier run's, and the
    /// journals of relays that died) goes first.
    public func start() {
        let r = spool.recoverJournals()
        for id in r.recovered { onEvent?(.recovered(sessionId: id)) }
        for (id, why) in r.unreadable.sorted(by: { $0.key < $1.key }) { onEvent?(.unrecoverable(sessionId: id, reason: why)) }
        cond.lock()
        defer { cond.unlock() }
        guard thread == nil else { return }
        let t = Thread { [weak self] in self?.loop() }
        thread = t
        t.start()
    }

    /// Spools `bundle` (durably, before returning) and wakes the delivery thread. When the
    /// spool refuses it, the bundle is held in memory and delivered from there; returns false.
    @discardableResult
    public func submit(_ bundle: [UInt8], sessionId: String) -> Bool {
        var spooled = true
        do { try spool.store(bundle, sessionId: sessionId) } catch {
            spooled = false
            onEvent?(.heldInMemory(sessionId: sessionId, reason: "\(error)"))
        }
        cond.lock()
        if !spooled { held[sessionId] = bundle }
        attempts[sessionId] = nil
        cond.signal()
        cond.unlock()
        return spooled
    }

    /// Session ids of bundles held only in memory (the spool refused them), not yet acknowledged.
    public var heldInMemory: [String] {
        cond.lock()
        defer { cond.unlock() }
        return held.keys.sorted()
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
        while !spool.pending().isEmpty || !held.isEmpty || inFlight != nil {
            if !cond.wait(until: deadline) { return spool.pending().isEmpty && held.isEmpty && inFlight == nil }
        }
        return true
    }

    /// One try of one spooled bundle: posted, acknowledgement verified, file removed.
    /// Returns the acknowledgement's status; throws why it is still spooled.
    public func deliver(sessionId: String) throws -> CollectorAcknowledgement.Status {
        cond.lock()
        let inMemory = held[sessionId]
        cond.unlock()
        let bytes = try inMemory ?? spool.read(sessionId)
        // Only ever to its own owner's collector: a file in this owner's folder addressed to
        // another owner (put there by hand, or by a bug) is left alone.
        guard let addressed = try? AuditBundle.parse(bytes).owner, addressed == owner.hex else {
            throw DeliveryError.notThisOwner(sessionId: sessionId, owner: owner.hex)
        }
        let result = try HTTPPost.post(collector + "/v1/sessions", body: bytes, contentType: "application/json")
        guard result.status == 200 else {
            let text = String(decoding: result.body.prefix(300), as: UTF8.self)
            throw DeliveryError.status(result.status, Self.oneLine(text))
        }
        let ack = try CollectorAcknowledgement.verify(result.body, owner: owner, sessionId: sessionId,
                                                      bundleSha256: SHA256.hex(bytes))
        if inMemory != nil {
            cond.lock()
            held[sessionId] = nil
            cond.unlock()
            // The journal stayed as the only copy on disk; the owner has the bundle now.
            unlink(spool.journalPath(of: sessionId))
        } else {
            try spool.remove(sessionId)
        }
        return ack.status
    }

    static func oneLine(_ s: String) -> String {
        String(s.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " "))
    }

    private func loop() {
        while true {
            cond.lock()
            if stopping { cond.unlock(); return }
            let now = Date().timeIntervalSinceReferenceDate
            let ids = held.keys.sorted() + spool.pending()
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
    case notThisOwner(sessionId: String, owner: String)
    public var description: String {
        switch self {
        case .status(let s, let t): return "collector answered HTTP \(s): \(t)"
        case .notThisOwner(let id, let o): return "bundle \(id) is not addressed to owner \(o): not posted"
        }
    }
}

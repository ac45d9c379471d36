// Custody of a session's evidence while it is recorded: the recorder hands over each part's
// start, each signed record and each finished bundle; the journal keeps them on disk as they
// come (docs/audit-bundle.md §8), the delivery spools and posts each bundle (§5, §7).

import Foundation

/// Where an AuditRecorder puts what it signs.
public protocol AuditEvidenceSink: AnyObject, Sendable {
    /// A bundle (the session's first, or one continuing it) begins.
    func begin(_ part: AuditPartStart)
    /// One record signed and chained in the bundle `sessionId`.
    func append(_ record: Envelope, sessionId: String)
    /// The bundle `sessionId` is complete (ended, or continued in the next).
    func complete(_ bundle: [UInt8], sessionId: String)
}

/// The relay's custody: journals in the owner's spool, bundles to the delivery.
public final class EvidenceCustody: AuditEvidenceSink, @unchecked Sendable {
    public let delivery: AuditDelivery
    private let lock = NSLock()
    private var journals: [String: AuditJournal] = [:]
    private var kept: [AuditJournal] = []
    /// Why journaling stopped, if it did (the evidence is then in memory until delivered).
    public private(set) var journalFailure: String?

    public init(delivery: AuditDelivery) { self.delivery = delivery }

    public func begin(_ part: AuditPartStart) {
        lock.lock()
        defer { lock.unlock() }
        do { journals[part.sessionId] = try AuditJournal.create(in: delivery.spool, part) } catch {
            journalFailure = journalFailure ?? "\(error)"
        }
    }

    public func append(_ record: Envelope, sessionId: String) {
        lock.lock()
        defer { lock.unlock() }
        guard let j = journals[sessionId] else { return }
        j.append(record)
        if let f = j.failure, journalFailure == nil { journalFailure = "audit journal \(j.path): write failed: \(f)" }
    }

    /// The journal path of a bundle the spool refused, when that journal was written whole and
    /// is still on disk (the next run recovers the bundle from it); nil when it is not.
    public func intactJournal(of sessionId: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard let j = kept.first(where: { $0.path == delivery.spool.journalPath(of: sessionId) }), j.failure == nil,
              FileManager.default.fileExists(atPath: j.path) else { return nil }
        return j.path
    }

    public func complete(_ bundle: [UInt8], sessionId: String) {
        let spooled = delivery.submit(bundle, sessionId: sessionId)
        lock.lock()
        // Spooled: the journal is redundant. Held in memory: the journal (if it was written)
        // is the copy on disk until the collector acknowledges; delivery removes it then.
        if let j = journals.removeValue(forKey: sessionId) {
            if spooled { j.close(remove: true) } else { kept.append(j) }  // stays locked until exit
        }
        lock.unlock()
    }
}

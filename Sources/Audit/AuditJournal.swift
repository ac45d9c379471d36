// The session journal (docs/audit-bundle.md §8): while a session plays, its binding and every
// signed record are appended to `<spool>/<owner>/<session_id>.journal` as they are made, so a
// relay killed mid-session loses nothing it had written. The next relay for the owner finds
// the journal unlocked (its writer is gone), rebuilds the chain, closes it with a session
// record `interrupted`, and spools the bundle like any other.

import Foundation
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

/// What a journal starts with: enough to rebuild and close the chain without the relay.
public struct AuditPartStart: Sendable {
    public var sessionId: String
    public var owner: Ed25519PublicKey
    public var binding: Envelope
    public var sessionKey: Ed25519PrivateKey
    public var startMs: Int64
    public var decodeUnits: [String]
}

final class AuditJournal: @unchecked Sendable {
    static let format = "waihost-audit-journal-v1"
    /// Appends are written at once (a SIGKILL loses nothing written); fsync at most this often
    /// (what a power loss may lose).
    static let syncSeconds = 1.0

    let path: String
    private var fd: Int32
    private var lastSync = Date()
    /// Why the journal stopped being written (then the evidence is held in memory only).
    private(set) var failure: String?

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Creates the journal (never replacing one), locks it for this process and writes its header.
    static func create(in spool: AuditSpool, _ start: AuditPartStart) throws -> AuditJournal {
        let path = spool.journalPath(of: start.sessionId)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AuditSpool.failure(path, "create journal") }
        _ = flock(fd, LOCK_EX)
        let j = AuditJournal(path: path, fd: fd)
        let header: [String: Any] = [
            "format": format, "session_id": start.sessionId, "owner": start.owner.hex,
            "session_key_seed": Hex.encode(start.sessionKey.seed), "start_ms": start.startMs,
            "decode_units": start.decodeUnits, "binding": start.binding.jsonObject,
        ]
        j.append(line: JSONText.encode(header))
        if let f = j.failure { j.close(remove: true); throw SpoolError.io(path: path, step: "write journal", reason: f) }
        _ = fsync(fd)
        try spool.syncDirectory()
        return j
    }

    func append(_ record: Envelope) { append(line: record.encoded()) }

    private func append(line: [UInt8]) {
        guard failure == nil, fd >= 0 else { return }
        let bytes = line + [0x0A]
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
                return
            }
            done += n
        }
        if Date().timeIntervalSince(lastSync) >= Self.syncSeconds {
            if fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
            lastSync = Date()
        }
    }

    /// Drops the lock; `remove` deletes the file first (its bundle is spooled or delivered).
    func close(remove: Bool) {
        guard fd >= 0 else { return }
        if remove { unlink(path) }
        Glibc.close(fd)
        fd = -1
    }

    deinit { close(remove: false) }

    // MARK: recovery

    /// Rebuilds the bundle from a journal whose writer is gone: every complete record line
    /// that extends the chain, then (unless the journal already ends in one) a session record
    /// `interrupted` with the totals of the acks recovered.
    static func recover(_ bytes: [UInt8], owner: Ed25519PublicKey, at path: String) throws(AuditBundleError) -> AuditChain {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        // The last piece is either empty (the file ends in LF) or a line torn by the kill.
        lines.removeLast()
        guard let first = lines.first else { throw .malformed(at: path, reason: "journal has no header") }
        let h = try IJSONFields(parsing: first, at: "journal")
        guard try h.string("format") == format else { throw .malformed(at: "journal.format", reason: "not \(format)") }
        let sid = try h.hex("session_id", bytes: 16)
        guard try h.hex("owner", bytes: 32) == owner.hex else { throw .wrongOwner(expected: owner.hex, got: try h.string("owner")) }
        let seed = try h.hex("session_key_seed", bytes: 32)
        guard let seedBytes = Hex.decode(seed), let key = try? Ed25519PrivateKey(seed: seedBytes) else {
            throw .malformed(at: "journal.session_key_seed", reason: "not an Ed25519 seed")
        }
        let binding = try Envelope.from(json: try h.required("binding"), at: "journal.binding")
        let b = try PayloadCoding.decode(SessionBinding.self, binding.payload, at: "journal.binding.payload")
        guard b.sessionId == sid, b.sessionKey == key.publicKey.hex, b.owner == owner.hex else {
            throw .malformed(at: "journal.binding", reason: "does not bind this journal's session key")
        }
        var units: [String] = []
        for u in try h.array("decode_units") { if case .string(let s) = u { units.append(s) } }
        var chain = AuditChain(resuming: sid, owner: owner, sessionKey: key, binding: binding)
        for line in lines.dropFirst() {
            guard let json = try? IJSON.parse(line, root: "journal"), let e = try? Envelope.from(json: json, at: "journal"),
                  chain.resume(e) else { break }
        }
        if chain.closed { return chain }
        var t = (objects: Int64(0), bytes: Int64(0), verified: Int64(0), relayed: Int64(0), withheld: Int64(0), last: b.createdMs)
        for e in chain.records {
            guard let r = try? PayloadCoding.decode(AuditRecord.self, e.payload, at: "journal"), let a = r.ack else { continue }
            t.objects += 1
            t.bytes += a.size
            switch a.outcome {
            case .verified: t.verified += 1
            case .relayed: t.relayed += 1
            case .withheld: t.withheld += 1
            }
            t.last = max(t.last, a.timeMs)
        }
        do {
            try chain.append(.session(SessionBody(startMs: b.createdMs, endMs: t.last, endReason: .interrupted,
                                                  objects: t.objects, bytes: t.bytes, verified: t.verified,
                                                  relayed: t.relayed, withheld: t.withheld, adClaims: 0, decodeUnits: units)))
        } catch {
            throw .malformed(at: path, reason: "cannot sign the session record: \(error)")
        }
        return chain
    }
}

extension AuditSpool {
    /// Turns every journal no live process holds into a spooled bundle (or drops it when its
    /// bundle is already spooled). Returns the session ids recovered and the journals that
    /// could not be read (left in place, named).
    public func recoverJournals() -> (recovered: [String], unreadable: [String: String]) {
        var recovered: [String] = [], unreadable: [String: String] = [:]
        for id in journals() {
            let p = journalPath(of: id)
            guard let fd = Self.lockIfUnowned(p) else { continue }
            defer { close(fd) }
            if FileManager.default.fileExists(atPath: path(of: id)) {
                unlink(p)
                continue
            }
            guard let d = FileManager.default.contents(atPath: p) else { unreadable[id] = "unreadable"; continue }
            do {
                let chain = try AuditJournal.recover([UInt8](d), owner: owner, at: p)
                guard chain.sessionId == id else { unreadable[id] = "journal names session \(chain.sessionId)"; continue }
                try store(chain.bundle.encoded(), sessionId: id)
                unlink(p)
                recovered.append(id)
            } catch {
                unreadable[id] = "\(error)"
            }
        }
        return (recovered, unreadable)
    }
}

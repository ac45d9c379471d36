// The writer's side of a bundle: a fresh session key bound by the installation key, then
// records appended one by one, each signed and chained to the one before.

import Foundation
import WaiCrypto

public struct AuditChain: Sendable {
    public let sessionId: String
    public let owner: Ed25519PublicKey
    public let sessionKey: Ed25519PrivateKey
    public let binding: Envelope
    public private(set) var records: [Envelope] = []
    private var prev: String
    public private(set) var closed = false

    /// `installationKey` is the long-lived key that vouches for the session key. `continues`:
    /// this bundle carries on a long session after the bundle it names (docs/audit-bundle.md §7).
    public init(installationKey: Ed25519PrivateKey, owner: Ed25519PublicKey,
                sessionId: String = AuditChain.newSessionId(), createdMs: Int64 = AuditChain.nowMs(),
                continues: BundleContinuation? = nil) throws {
        let key = try Ed25519PrivateKey.generate()
        self.sessionId = sessionId
        self.owner = owner
        sessionKey = key
        let b = SessionBinding(sessionId: sessionId, sessionKey: key.publicKey.hex,
                               installationKey: installationKey.publicKey.hex, owner: owner.hex, createdMs: createdMs,
                               continues: continues)
        binding = try Envelope.sign(type: AuditPayloadType.binding, payload: PayloadCoding.encode(b), key: installationKey)
        prev = SHA256.hex(binding.payload)
    }

    /// A chain read back from its journal (§8): the records are appended as they were signed,
    /// each checked against the chain so far; the first that does not fit ends the resumption.
    init(resuming sessionId: String, owner: Ed25519PublicKey, sessionKey: Ed25519PrivateKey, binding: Envelope) {
        self.sessionId = sessionId
        self.owner = owner
        self.sessionKey = sessionKey
        self.binding = binding
        prev = SHA256.hex(binding.payload)
    }

    /// Appends an already signed record if it is the next link of this chain; false if not.
    mutating func resume(_ e: Envelope) -> Bool {
        guard !closed, e.payloadType == AuditPayloadType.record, e.keyID == sessionKey.publicKey.hex,
              e.verifies(under: sessionKey.publicKey),
              let r = try? PayloadCoding.decode(AuditRecord.self, e.payload, at: "journal"),
              r.sessionId == sessionId, r.seq == nextSequence, r.prev == prev, let body = r.body else { return false }
        records.append(e)
        prev = SHA256.hex(e.payload)
        if case .session = body { closed = true }
        return true
    }

    /// The record hash of the last record (the binding's payload hash when there is none).
    public var lastRecordHash: String { prev }

    public var nextSequence: Int64 { Int64(records.count) }

    /// Signs and chains one record. After the session record nothing more can be appended.
    /// Returns the signed envelope.
    @discardableResult
    public mutating func append(_ body: AuditRecord.Body) throws -> Envelope {
        precondition(!closed, "audit chain: record appended after the session record")
        let r = AuditRecord(sessionId: sessionId, seq: nextSequence, prev: prev, body: body)
        let payload = PayloadCoding.encode(r)
        let e = try Envelope.sign(type: AuditPayloadType.record, payload: payload, key: sessionKey)
        records.append(e)
        prev = SHA256.hex(payload)
        if case .session = body { closed = true }
        return e
    }

    public var bundle: AuditBundle {
        AuditBundle(sessionId: sessionId, owner: owner.hex, binding: binding, records: records)
    }

    /// 16 random bytes as 32 hex digits (SystemRandomNumberGenerator reads getrandom(2)).
    public static func newSessionId() -> String {
        var g = SystemRandomNumberGenerator()
        return Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    public static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

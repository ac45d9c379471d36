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

    /// `installationKey` is the long-lived key that vouches for the session key.
    public init(installationKey: Ed25519PrivateKey, owner: Ed25519PublicKey,
                sessionId: String = AuditChain.newSessionId(), createdMs: Int64 = AuditChain.nowMs()) throws {
        let key = try Ed25519PrivateKey.generate()
        self.sessionId = sessionId
        self.owner = owner
        sessionKey = key
        let b = SessionBinding(sessionId: sessionId, sessionKey: key.publicKey.hex,
                               installationKey: installationKey.publicKey.hex, owner: owner.hex, createdMs: createdMs)
        binding = try Envelope.sign(type: AuditPayloadType.binding, payload: PayloadCoding.encode(b), key: installationKey)
        prev = SHA256.hex(binding.payload)
    }

    public var nextSequence: Int64 { Int64(records.count) }

    /// Signs and chains one record. After the session record nothing more can be appended.
    public mutating func append(_ body: AuditRecord.Body) throws {
        precondition(!closed, "audit chain: record appended after the session record")
        let r = AuditRecord(sessionId: sessionId, seq: nextSequence, prev: prev, body: body)
        let payload = PayloadCoding.encode(r)
        let e = try Envelope.sign(type: AuditPayloadType.record, payload: payload, key: sessionKey)
        records.append(e)
        prev = SHA256.hex(payload)
        if case .session = body { closed = true }
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

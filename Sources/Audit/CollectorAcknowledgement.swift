// The collector's answer to a posted bundle (docs/audit-bundle.md §5): a DSSE envelope signed
// by the owner key, so the relay deletes its spooled copy only when the owner has it.

import Foundation
import WaiCrypto

public struct CollectorAcknowledgement: Codable, Equatable, Sendable {
    /// `stored` (committed now) or `duplicate` (the same bytes were already stored).
    public enum Status: String, Codable, CaseIterable, Sendable { case stored, duplicate }

    public var sessionId: String
    /// Hex SHA-256 of the exact bundle bytes stored.
    public var bundleSha256: String
    public var status: Status
    public var storedMs: Int64

    public init(sessionId: String, bundleSha256: String, status: Status, storedMs: Int64) {
        self.sessionId = sessionId
        self.bundleSha256 = bundleSha256
        self.status = status
        self.storedMs = storedMs
    }

    /// The response body spelt through JSONEncoder and JSONSerialization: the definition
    /// `signed(by:)` (AcknowledgementEncoding) writes directly.
    func signedThroughJSONEncoder(by ownerKey: Ed25519PrivateKey) throws -> [UInt8] {
        try Envelope.sign(type: AuditPayloadType.acknowledgement, payload: PayloadCoding.encode(self), key: ownerKey).encoded()
    }

    /// Checks a response body against the owner key and the bundle it answers.
    public static func verify(_ body: [UInt8], owner: Ed25519PublicKey, sessionId: String,
                              bundleSha256: String) throws(AcknowledgementError) -> CollectorAcknowledgement {
        guard body.count <= AuditLimits.payloadBytes * 2 else { throw .malformed("larger than \(AuditLimits.payloadBytes * 2) bytes") }
        let e: Envelope
        do {
            e = try Envelope.from(json: try IJSON.parse(body, root: "acknowledgement"), at: "acknowledgement")
        } catch let x as AuditBundleError {
            throw .malformed(x.description)
        } catch {
            throw .malformed("\(error)")
        }
        guard e.payloadType == AuditPayloadType.acknowledgement else { throw .malformed("payloadType \(e.payloadType)") }
        guard e.keyID == owner.hex, e.verifies(under: owner) else { throw .signature(keyID: e.keyID, owner: owner.hex) }
        let a: CollectorAcknowledgement
        do { a = try PayloadCoding.decode(CollectorAcknowledgement.self, e.payload, at: "acknowledgement.payload") } catch {
            throw .malformed(error.description)
        }
        guard a.sessionId == sessionId else { throw .mismatch(field: "session_id", expected: sessionId, got: a.sessionId) }
        guard a.bundleSha256 == bundleSha256 else { throw .mismatch(field: "bundle_sha256", expected: bundleSha256, got: a.bundleSha256) }
        return a
    }
}

public enum AcknowledgementError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case signature(keyID: String, owner: String)
    case mismatch(field: String, expected: String, got: String)

    public var description: String {
        switch self {
        case .malformed(let r): return "collector acknowledgement: \(r)"
        case .signature(let k, let o): return "collector acknowledgement: signed by \(k), does not verify under owner key \(o)"
        case .mismatch(let f, let e, let g): return "collector acknowledgement: \(f) is \(g), expected \(e)"
        }
    }
}

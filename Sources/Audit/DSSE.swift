// DSSE v1 envelopes (the same pre-authentication encoding docs/receipts.md §3 signs): the
// signed payload travels as base64 bytes, so no JSON canonicalisation is ever needed — a
// verifier checks the signature over exactly the bytes it decodes (docs/audit-bundle.md §2).

import Foundation
import WaiCrypto

public enum DSSE {
    /// "DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload.
    public static func pae(type: String, payload: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        var out = Array("DSSEv1 \(t.count) ".utf8)
        out += t
        out += Array(" \(payload.count) ".utf8)
        out += payload
        return out
    }
}

/// One DSSE envelope with exactly one signature.
public struct Envelope: Equatable, Sendable {
    public var payloadType: String
    public var payload: [UInt8]
    /// Hex of the signer's Ed25519 public key (DSSE `keyid`).
    public var keyID: String
    public var signature: [UInt8]

    public init(payloadType: String, payload: [UInt8], keyID: String, signature: [UInt8]) {
        self.payloadType = payloadType
        self.payload = payload
        self.keyID = keyID
        self.signature = signature
    }

    public static func sign(type: String, payload: [UInt8], key: Ed25519PrivateKey) throws -> Envelope {
        let sig = try key.sign(DSSE.pae(type: type, payload: payload))
        return Envelope(payloadType: type, payload: payload, keyID: key.publicKey.hex, signature: sig)
    }

    public func verifies(under key: Ed25519PublicKey) -> Bool {
        key.verify(signature: signature, message: DSSE.pae(type: payloadType, payload: payload))
    }

    /// The JSON object, keys sorted, no whitespace (the spelling the writer always uses).
    public var jsonObject: [String: Any] {
        ["payloadType": payloadType, "payload": Data(payload).base64EncodedString(),
         "signatures": [["keyid": keyID, "sig": Data(signature).base64EncodedString()]]]
    }

    public func encoded() -> [UInt8] { JSONText.encode(jsonObject) }

    /// Reads an envelope from a strictly parsed JSON value; `at` names it in errors ("records[3]").
    public static func from(json: IJSON, at: String) throws(AuditBundleError) -> Envelope {
        let o = try IJSONFields(json, at: at)
        let type = try o.string("payloadType")
        let payload = try strictBase64(try o.string("payload"), at: at + ".payload")
        let sigs = try o.array("signatures")
        guard sigs.count == 1 else {
            throw .malformed(at: at + ".signatures", reason: "must be an array of exactly one signature object")
        }
        let s = try IJSONFields(sigs[0], at: at + ".signatures[0]")
        let keyID = try s.hex("keyid", bytes: 32)
        let sig = try strictBase64(try s.string("sig"), at: at + ".signatures[0].sig")
        guard sig.count == Ed25519PrivateKey.signatureLength else {
            throw .malformed(at: at + ".signatures[0].sig", reason: "an Ed25519 signature is 64 bytes, got \(sig.count)")
        }
        return Envelope(payloadType: type, payload: payload, keyID: keyID, signature: sig)
    }

    /// Standard base64 with padding, one spelling only: text that does not re-encode to itself
    /// (stray bits in the padding, whitespace, URL alphabet) is refused.
    static func strictBase64(_ text: String, at: String) throws(AuditBundleError) -> [UInt8] {
        guard let d = StrictBase64.decode(text) else { throw .malformed(at: at, reason: "not canonical standard base64") }
        return d
    }
}

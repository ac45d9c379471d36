// The collector writes one acknowledgement per bundle. `signedThroughJSONEncoder` spells it
// through JSONEncoder and JSONSerialization; this writes the same bytes directly. Every field is
// hex, a closed enum, an integer or base64, so there is nothing to escape; a value that is not
// plain hex takes the general path.

import Foundation
import WaiCrypto

extension CollectorAcknowledgement {
    /// The response body: the envelope's JSON, byte for byte what `signedThroughJSONEncoder` returns.
    public func signed(by signer: Ed25519PrivateKey) throws -> [UInt8] {
        guard Self.isHex(sessionId), Self.isHex(bundleSha256) else { return try signedThroughJSONEncoder(by: signer) }
        // JSONEncoder's spelling: keys sorted, snake_case, no whitespace.
        let payload = Array(("{\"bundle_sha256\":\"\(bundleSha256)\",\"session_id\":\"\(sessionId)\","
            + "\"status\":\"\(status.rawValue)\",\"stored_ms\":\(storedMs)}").utf8)
        let signature = try signer.sign(DSSE.pae(type: AuditPayloadType.acknowledgement, payload: payload))
        // Envelope.encoded()'s spelling (JSONSerialization, sorted keys, "/" not escaped).
        let text = "{\"payload\":\"\(Data(payload).base64EncodedString())\",\"payloadType\":\"\(AuditPayloadType.acknowledgement)\","
            + "\"signatures\":[{\"keyid\":\"\(signer.publicKey.hex)\",\"sig\":\"\(Data(signature).base64EncodedString())\"}]}"
        return Array(text.utf8)
    }

    private static func isHex(_ s: String) -> Bool {
        s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

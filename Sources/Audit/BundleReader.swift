// One pass over a bundle's bytes, for the collector's common case (docs/collector.md §Measured):
// the bundle read straight into its envelopes, each payload base64-decoded from the received
// bytes into the buffer that is verified, with no JSON tree, no member dictionaries and no
// intermediate strings. It accepts only the plain shape writers produce — ASCII strings
// without escapes, the known members in any order, whitespace anywhere JSON allows it — and
// says nil for anything else; `AuditBundle.parse` then reads the bytes with the full strict
// reader (IJSON), which names what is wrong. Everything accepted here that reader accepts too,
// with the same values (BundleReaderTests checks both on every byte flip of a bundle).

struct BundleReader {
    let s: UnsafeBufferPointer<UInt8>
    var i = 0

    /// The bundle in `bytes`, or nil when the full reader must decide.
    static func read(_ bytes: [UInt8]) -> AuditBundle? {
        guard bytes.count <= AuditLimits.bundleBytes else { return nil }
        return bytes.withUnsafeBufferPointer { b -> AuditBundle? in
            var r = BundleReader(s: b)
            return r.bundle()
        }
    }

    init(s: UnsafeBufferPointer<UInt8>) { self.s = s }

    private mutating func bundle() -> AuditBundle? {
        var seen = 0
        var version = false
        var sid: String?, owner: String?, binding: Envelope?, records: [Envelope]?
        guard object({ r, name in
            switch name {
            case "version":
                guard seen & 1 == 0 else { return false }
                seen |= 1
                version = r.one()
                return version
            case "session_id":
                guard seen & 2 == 0 else { return false }
                seen |= 2
                sid = r.hex(bytes: 16)
                return sid != nil
            case "owner":
                guard seen & 4 == 0 else { return false }
                seen |= 4
                owner = r.hex(bytes: 32)
                return owner != nil
            case "binding":
                guard seen & 8 == 0 else { return false }
                seen |= 8
                binding = r.envelope()
                return binding != nil
            case "records":
                guard seen & 16 == 0 else { return false }
                seen |= 16
                records = r.records()
                return records != nil
            default:
                return false
            }
        }), seen == 31, version else { return nil }
        skipSpace()
        guard i == s.count, let sid, let owner, let binding, let records,
              binding.payload.count <= AuditLimits.payloadBytes else { return nil }
        return AuditBundle(sessionId: sid, owner: owner, binding: binding, records: records)
    }

    private mutating func records() -> [Envelope]? {
        guard take(0x5B) else { return nil }
        var out: [Envelope] = []
        out.reserveCapacity(8)
        skipSpace()
        if take(0x5D) { return out }
        while true {
            guard out.count < AuditLimits.records, let e = envelope(), e.payload.count <= AuditLimits.payloadBytes else { return nil }
            out.append(e)
            skipSpace()
            if take(0x5D) { return out }
            guard take(0x2C) else { return nil }
        }
    }

    private mutating func envelope() -> Envelope? {
        var seen = 0
        var type: String?, payload: [UInt8]?, keyID: String?, sig: [UInt8]?
        guard object({ r, name in
            switch name {
            case "payloadType":
                guard seen & 1 == 0 else { return false }
                seen |= 1
                type = r.plainString().map { String(decoding: $0, as: UTF8.self) }
                return type != nil
            case "payload":
                guard seen & 2 == 0 else { return false }
                seen |= 2
                payload = r.plainString().flatMap { StrictBase64.decode($0) }
                return payload != nil
            case "signatures":
                guard seen & 4 == 0, r.take(0x5B) else { return false }
                seen |= 4
                var inner = 0
                guard r.object({ r, name in
                    switch name {
                    case "keyid":
                        guard inner & 1 == 0 else { return false }
                        inner |= 1
                        keyID = r.hex(bytes: 32)
                        return keyID != nil
                    case "sig":
                        guard inner & 2 == 0 else { return false }
                        inner |= 2
                        sig = r.plainString().flatMap { StrictBase64.decode($0) }
                        return sig?.count == 64
                    default:
                        return false
                    }
                }), inner == 3 else { return false }
                r.skipSpace()
                return r.take(0x5D)
            default:
                return false
            }
        }), seen == 7, let type, let payload, let keyID, let sig else { return nil }
        return Envelope(payloadType: type, payload: payload, keyID: keyID, signature: sig)
    }

    /// `{ "name": value, … }`, each member's value read by `member` (false: not plain).
    mutating func object(_ member: (inout BundleReader, String) -> Bool) -> Bool {
        skipSpace()
        guard take(0x7B) else { return false }
        skipSpace()
        if take(0x7D) { return true }
        while true {
            skipSpace()
            guard let n = plainString() else { return false }
            let name = String(decoding: n, as: UTF8.self)
            skipSpace()
            guard take(0x3A) else { return false }
            skipSpace()
            guard member(&self, name) else { return false }
            skipSpace()
            if take(0x7D) { return true }
            guard take(0x2C) else { return false }
        }
    }

    /// A string of printable ASCII without escapes: its bytes between the quotes.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        skipSpace()
        guard take(0x22) else { return nil }
        let start = i
        while i < s.count {
            let c = s[i]
            if c == 0x22 {
                i += 1
                return UnsafeBufferPointer(rebasing: s[start..<i - 1])
            }
            guard c >= 0x20, c < 0x7F, c != 0x5C else { return nil }
            i += 1
        }
        return nil
    }

    /// Exactly `bytes` bytes as lowercase hex.
    mutating func hex(bytes: Int) -> String? {
        guard let t = plainString(), t.count == bytes * 2,
              t.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        return String(decoding: t, as: UTF8.self)
    }

    /// The number 1, written as `1`.
    private mutating func one() -> Bool {
        guard take(0x31) else { return false }
        guard i < s.count else { return true }
        let c = s[i]
        return c == 0x2C || c == 0x7D || c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    mutating func take(_ c: UInt8) -> Bool {
        guard i < s.count, s[i] == c else { return false }
        i += 1
        return true
    }

    mutating func skipSpace() {
        while i < s.count, s[i] == 0x20 || s[i] == 0x09 || s[i] == 0x0A || s[i] == 0x0D { i += 1 }
    }
}

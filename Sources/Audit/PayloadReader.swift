// The signed payloads a bundle carries — its binding and its ack and session records — read
// straight from their bytes in the collector's common case, as BundleReader reads the bundle
// around them (docs/collector.md §Throughput against the signature bound): no JSON tree, no
// member lists. Only the plain spelling writers produce is taken — the known members, each
// once, ASCII strings without escapes, integers as plain digits, no nulls — and only when every
// value passes the checks the strict reader's decoding makes (hex lengths, closed sets, no
// negative size or time). Anything else, an ad claim or a continued binding included, is nil,
// and `PayloadCoding.decode` reads the bytes with the strict reader, which accepts or refuses
// as before and names what is wrong (CollectorFastPathTests: both readers on every byte flip).

extension BundleReader {
    /// The record in `payload`, or nil when the strict reader must decide.
    static func record(_ payload: [UInt8]) -> AuditRecord? {
        payload.withUnsafeBufferPointer { b -> AuditRecord? in
            var r = BundleReader(s: b)
            return r.record()
        }
    }

    /// The binding in `payload`, or nil when the strict reader must decide.
    static func binding(_ payload: [UInt8]) -> SessionBinding? {
        payload.withUnsafeBufferPointer { b -> SessionBinding? in
            var r = BundleReader(s: b)
            return r.binding()
        }
    }

    /// True the first time `bit` is claimed: a member named twice goes to the strict reader.
    private static func first(_ seen: inout Int, _ bit: Int) -> Bool {
        guard seen & bit == 0 else { return false }
        seen |= bit
        return true
    }

    /// The whole text is one object, with nothing after it but whitespace.
    private mutating func whole(_ member: (inout BundleReader, String) -> Bool) -> Bool {
        guard object(member) else { return false }
        skipSpace()
        return i == s.count
    }

    private mutating func binding() -> SessionBinding? {
        var seen = 0
        var version: Int64?, created: Int64?, sid: String?, sessionKey: String?, installation: String?, owner: String?
        guard whole({ r, name in
            switch name {
            case "version": guard Self.first(&seen, 1) else { return false }; version = r.plainInteger(); return version != nil
            case "session_id": guard Self.first(&seen, 2) else { return false }; sid = r.hex(bytes: 16); return sid != nil
            case "session_key": guard Self.first(&seen, 4) else { return false }; sessionKey = r.hex(bytes: 32); return sessionKey != nil
            case "installation_key":
                guard Self.first(&seen, 8) else { return false }
                installation = r.hex(bytes: 32)
                return installation != nil
            case "owner": guard Self.first(&seen, 16) else { return false }; owner = r.hex(bytes: 32); return owner != nil
            case "created_ms": guard Self.first(&seen, 32) else { return false }; created = r.plainInteger(); return created != nil
            default: return false
            }
        }), let version, let v = Int(exactly: version), let created, let sid, let sessionKey, let installation, let owner else { return nil }
        var b = SessionBinding(sessionId: sid, sessionKey: sessionKey, installationKey: installation, owner: owner, createdMs: created)
        b.version = v
        return b
    }

    private mutating func record() -> AuditRecord? {
        var seen = 0
        var sid: String?, seq: Int64?, prev: String?, type: AuditRecord.RecordType?
        var ack: AckBody?, session: SessionBody?
        guard whole({ r, name in
            switch name {
            case "session_id": guard Self.first(&seen, 1) else { return false }; sid = r.hex(bytes: 16); return sid != nil
            case "seq": guard Self.first(&seen, 2) else { return false }; seq = r.plainInteger(); return seq != nil
            case "prev": guard Self.first(&seen, 4) else { return false }; prev = r.hex(bytes: 32); return prev != nil
            case "type": guard Self.first(&seen, 8) else { return false }; type = r.closed(); return type != nil
            case "ack": guard Self.first(&seen, 16) else { return false }; ack = r.ackBody(); return ack != nil
            case "session": guard Self.first(&seen, 32) else { return false }; session = r.sessionBody(); return session != nil
            default: return false
            }
        }), let sid, let seq, let prev, let type else { return nil }
        switch (type, ack, session) {
        case (.ack, let a?, nil): return AuditRecord(sessionId: sid, seq: seq, prev: prev, body: .ack(a))
        case (.session, nil, let b?): return AuditRecord(sessionId: sid, seq: seq, prev: prev, body: .session(b))
        default: return nil
        }
    }

    private mutating func ackBody() -> AckBody? {
        var seen = 0
        var uri: String?, effective: String?, kind: AckBody.Kind?, sha: String?, size: Int64?, outcome: AckBody.Outcome?
        var reason: String?, detail: String?, time: Int64?
        guard object({ r, name in
            switch name {
            case "uri": guard Self.first(&seen, 1) else { return false }; uri = r.string(); return uri != nil
            case "effective_uri": guard Self.first(&seen, 2) else { return false }; effective = r.string(); return effective != nil
            case "kind": guard Self.first(&seen, 4) else { return false }; kind = r.closed(); return kind != nil
            case "sha256": guard Self.first(&seen, 8) else { return false }; sha = r.hex(bytes: 32); return sha != nil
            case "size": guard Self.first(&seen, 16) else { return false }; size = r.plainInteger(); return size != nil
            case "outcome": guard Self.first(&seen, 32) else { return false }; outcome = r.closed(); return outcome != nil
            case "reason": guard Self.first(&seen, 64) else { return false }; reason = r.string(); return reason != nil
            case "detail": guard Self.first(&seen, 128) else { return false }; detail = r.string(); return detail != nil
            case "time_ms": guard Self.first(&seen, 256) else { return false }; time = r.plainInteger(); return time != nil
            default: return false
            }
        }), let uri, let kind, let size, let outcome, let time else { return nil }
        return AckBody(uri: uri, effectiveUri: effective, kind: kind, sha256: sha, size: size, outcome: outcome,
                       reason: reason, detail: detail, timeMs: time)
    }

    private mutating func sessionBody() -> SessionBody? {
        var seen = 0
        var counts = [Int64](repeating: -1, count: 8)
        var endReason: SessionBody.EndReason?, units: [String]?
        let names = ["start_ms", "end_ms", "objects", "bytes", "verified", "relayed", "withheld", "ad_claims"]
        guard object({ r, name in
            if let k = names.firstIndex(of: name) {
                guard Self.first(&seen, 1 << k), let v = r.plainInteger() else { return false }
                counts[k] = v
                return true
            }
            switch name {
            case "end_reason": guard Self.first(&seen, 1 << 8) else { return false }; endReason = r.closed(); return endReason != nil
            case "decode_units": guard Self.first(&seen, 1 << 9) else { return false }; units = r.strings(); return units != nil
            default: return false
            }
        }), seen == (1 << 10) - 1, let endReason, let units else { return nil }
        return SessionBody(startMs: counts[0], endMs: counts[1], endReason: endReason, objects: counts[2], bytes: counts[3],
                           verified: counts[4], relayed: counts[5], withheld: counts[6], adClaims: counts[7], decodeUnits: units)
    }

    private mutating func string() -> String? {
        plainString().map { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func closed<E: RawRepresentable>() -> E? where E.RawValue == String {
        string().flatMap { E(rawValue: $0) }
    }

    /// `[ "…", … ]` of plain strings.
    private mutating func strings() -> [String]? {
        guard take(0x5B) else { return nil }
        var out: [String] = []
        skipSpace()
        if take(0x5D) { return out }
        while true {
            guard let t = string() else { return nil }
            out.append(t)
            skipSpace()
            if take(0x5D) { return out }
            guard take(0x2C) else { return nil }
            skipSpace()
        }
    }

    /// A non-negative integer as plain digits (no sign, no leading zero, no fraction or
    /// exponent) within 2^53 − 1: what the strict reader takes as a size, time or sequence.
    private mutating func plainInteger() -> Int64? {
        let start = i
        var v: Int64 = 0
        while i < s.count, s[i] >= 0x30, s[i] <= 0x39 {
            guard i - start < 16 else { return nil }
            v = v * 10 + Int64(s[i] - 0x30)
            i += 1
        }
        guard i > start, v <= IJSON.maxSafeInteger, !(s[start] == 0x30 && i - start > 1) else { return nil }
        guard i < s.count else { return v }
        let c = s[i]
        return c == 0x2C || c == 0x7D || c == 0x5D || c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D ? v : nil
    }
}

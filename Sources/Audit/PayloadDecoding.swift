// Reading the signed statements (docs/audit-bundle.md §2.1, §3–§5) from strictly parsed
// I-JSON: every field typed, every integer an integer, no size or time negative, every closed
// set closed. Unknown fields are ignored (they are signed, so nobody else added them).

protocol PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError)
}

extension SessionBinding: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        self.init(sessionId: try f.hex("session_id", bytes: 16), sessionKey: try f.hex("session_key", bytes: 32),
                  installationKey: try f.hex("installation_key", bytes: 32), owner: try f.hex("owner", bytes: 32),
                  createdMs: try f.integer("created_ms"))
        let v = try f.integer("version", minimum: -IJSON.maxSafeInteger)
        guard let v32 = Int(exactly: v) else { throw .unsupportedVersion(Int.max) }
        version = v32
        continues = try f.optionalFields("continues").map { c throws(AuditBundleError) in
            try BundleContinuation(fields: c)
        }
    }
}

extension BundleContinuation: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        self.init(sessionId: try f.hex("session_id", bytes: 16), lastRecordSha256: try f.hex("last_record_sha256", bytes: 32),
                  part: try f.integer("part", minimum: 1))
    }
}

extension AckBody: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        self.init(uri: try f.string("uri"), effectiveUri: try f.optionalString("effective_uri"),
                  kind: try f.closed("kind", Kind.self), sha256: try f.optionalString("sha256"),
                  size: try f.integer("size"), outcome: try f.closed("outcome", Outcome.self),
                  reason: try f.optionalString("reason"), detail: try f.optionalString("detail"),
                  timeMs: try f.integer("time_ms"))
        if let h = sha256, !(h.utf8.count == 64 && h.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })) {
            throw .malformed(at: f.at("sha256"), reason: "must be 64 lowercase hex digits")
        }
    }
}

extension AdSegment: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        self.init(uri: try f.string("uri"), sha256: try f.hex("sha256", bytes: 32), durationMs: try f.integer("duration_ms"))
    }
}

extension AdClaimBody: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        let list = try f.array("segments")
        guard list.count <= AuditLimits.segmentsPerClaim else {
            throw .tooLarge(what: f.at("segments"), size: list.count, limit: AuditLimits.segmentsPerClaim)
        }
        var segments: [AdSegment] = []
        for (i, s) in list.enumerated() { segments.append(try AdSegment(fields: IJSONFields(s, at: f.at("segments") + "[\(i)]"))) }
        self.init(marker: try f.closed("marker", Marker.self), id: try f.string("id"), adClass: try f.optionalString("ad_class"),
                  startDate: try f.optionalString("start_date"), scte35Cmd: try f.optionalString("scte35_cmd"),
                  scte35Out: try f.optionalString("scte35_out"), scte35In: try f.optionalString("scte35_in"),
                  plannedDurationMs: try f.optionalInteger("planned_duration_ms"), segments: segments,
                  presentedMs: try f.integer("presented_ms"))
    }
}

extension SessionBody: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        var units: [String] = []
        for (i, u) in try f.array("decode_units").enumerated() {
            guard case .string(let s) = u else { throw .malformed(at: f.at("decode_units") + "[\(i)]", reason: "not a string") }
            units.append(s)
        }
        self.init(startMs: try f.integer("start_ms"), endMs: try f.integer("end_ms"),
                  endReason: try f.closed("end_reason", EndReason.self), objects: try f.integer("objects"),
                  bytes: try f.integer("bytes"), verified: try f.integer("verified"), relayed: try f.integer("relayed"),
                  withheld: try f.integer("withheld"), adClaims: try f.integer("ad_claims"), decodeUnits: units)
    }
}

extension AuditRecord: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        sessionId = try f.hex("session_id", bytes: 16)
        seq = try f.integer("seq")
        prev = try f.hex("prev", bytes: 32)
        type = try f.closed("type", RecordType.self)
        ack = try f.optionalFields("ack").map { b throws(AuditBundleError) in try AckBody(fields: b) }
        adClaim = try f.optionalFields("ad_claim").map { b throws(AuditBundleError) in try AdClaimBody(fields: b) }
        session = try f.optionalFields("session").map { b throws(AuditBundleError) in try SessionBody(fields: b) }
    }
}

extension CollectorAcknowledgement: PayloadDecodable {
    init(fields f: IJSONFields) throws(AuditBundleError) {
        self.init(sessionId: try f.hex("session_id", bytes: 16), bundleSha256: try f.hex("bundle_sha256", bytes: 32),
                  status: try f.closed("status", Status.self), storedMs: try f.integer("stored_ms"))
    }
}

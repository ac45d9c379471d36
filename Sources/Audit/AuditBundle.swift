// A bundle as it travels (docs/audit-bundle.md §1): parse reads structure and limits only;
// verify checks the binding, every signature, the sequence, the chain and the session record.

import Foundation
import WaiCrypto

public struct AuditBundle: Sendable {
    public var version: Int
    public var sessionId: String
    public var owner: String
    public var binding: Envelope
    public var records: [Envelope]

    public init(sessionId: String, owner: String, binding: Envelope, records: [Envelope]) {
        version = 1
        self.sessionId = sessionId
        self.owner = owner
        self.binding = binding
        self.records = records
    }

    /// The bundle's bytes: keys sorted, no whitespace.
    public func encoded() -> [UInt8] {
        JSONText.encode([
            "version": version, "session_id": sessionId, "owner": owner,
            "binding": binding.jsonObject, "records": records.map { $0.jsonObject },
        ] as [String: Any])
    }

    public static func parse(_ bytes: [UInt8]) throws(AuditBundleError) -> AuditBundle {
        // The plain shape in one pass; anything else (and every error) from the full reader.
        if let b = BundleReader.read(bytes) { return b }
        return try parseStrict(bytes)
    }

    /// The full strict reader (IJSON), which names what is wrong.
    static func parseStrict(_ bytes: [UInt8]) throws(AuditBundleError) -> AuditBundle {
        guard bytes.count <= AuditLimits.bundleBytes else {
            throw .tooLarge(what: "bundle", size: bytes.count, limit: AuditLimits.bundleBytes)
        }
        let o = try IJSONFields(parsing: bytes, at: "")
        try o.onlyKnown(["version", "session_id", "owner", "binding", "records"])
        let v = try o.integer("version", minimum: -IJSON.maxSafeInteger)
        guard v == 1 else { throw .unsupportedVersion(Int(v)) }
        let sid = try o.hex("session_id", bytes: 16)
        let owner = try o.hex("owner", bytes: 32)
        let binding = try Envelope.from(json: try o.required("binding"), at: "binding")
        let rs = try o.array("records")
        guard rs.count <= AuditLimits.records else {
            throw .tooLarge(what: "records", size: rs.count, limit: AuditLimits.records)
        }
        var records: [Envelope] = []
        records.reserveCapacity(rs.count)
        for (i, r) in rs.enumerated() {
            let e = try Envelope.from(json: r, at: "records[\(i)]")
            guard e.payload.count <= AuditLimits.payloadBytes else {
                throw .tooLarge(what: "records[\(i)].payload", size: e.payload.count, limit: AuditLimits.payloadBytes)
            }
            records.append(e)
        }
        guard binding.payload.count <= AuditLimits.payloadBytes else {
            throw .tooLarge(what: "binding.payload", size: binding.payload.count, limit: AuditLimits.payloadBytes)
        }
        return AuditBundle(sessionId: sid, owner: owner, binding: binding, records: records)
    }

    /// Parses and verifies `bytes`; see `verify(owner:trustedInstallationKeys:)`.
    public static func verify(_ bytes: [UInt8], owner: Ed25519PublicKey? = nil,
                              trustedInstallationKeys: Set<Ed25519PublicKey>? = nil) throws(AuditBundleError) -> VerifiedBundle {
        try parse(bytes).verify(owner: owner, trustedInstallationKeys: trustedInstallationKeys, bundleSha256: SHA256.hex(bytes))
    }

    /// `owner`: refuse a bundle addressed to another collector. `trustedInstallationKeys`:
    /// refuse a binding by any other installation (nil: any installation key, as long as
    /// the binding verifies under the key it names). `bundleSha256` is of this bundle's
    /// `encoded()` spelling; verify the received bytes with `verify(_:owner:…)` instead.
    public func verify(owner expectedOwner: Ed25519PublicKey? = nil,
                       trustedInstallationKeys: Set<Ed25519PublicKey>? = nil) throws(AuditBundleError) -> VerifiedBundle {
        try verify(owner: expectedOwner, trustedInstallationKeys: trustedInstallationKeys, bundleSha256: SHA256.hex(encoded()))
    }

    /// The checks, with the hash of the bytes they were parsed from (never re-encoded here:
    /// re-encoding a received bundle was a fifth of the collector's CPU, docs/collector.md §Measured).
    func verify(owner expectedOwner: Ed25519PublicKey?, trustedInstallationKeys: Set<Ed25519PublicKey>?,
                bundleSha256: String) throws(AuditBundleError) -> VerifiedBundle {
        guard binding.payloadType == AuditPayloadType.binding else {
            throw .malformed(at: "binding.payloadType", reason: "expected \(AuditPayloadType.binding), got \(binding.payloadType)")
        }
        let installation: Ed25519PublicKey
        do { installation = try Ed25519PublicKey(hex: binding.keyID) } catch {
            throw .malformed(at: "binding.signatures[0].keyid", reason: "\(error)")
        }
        guard binding.verifies(under: installation) else {
            throw .bindingSignature(installationKey: binding.keyID)
        }
        // The plain spelling read straight from the bytes; anything else by the strict reader (PayloadReader).
        let b: SessionBinding
        if let plain = BundleReader.binding(binding.payload) { b = plain } else {
            b = try PayloadCoding.decode(SessionBinding.self, binding.payload, at: "binding.payload")
        }
        guard b.version == 1 else { throw .unsupportedVersion(b.version) }
        guard b.installationKey == binding.keyID else {
            throw .bindingMismatch(field: "installation_key", bundle: binding.keyID, binding: b.installationKey)
        }
        guard b.sessionId == sessionId else { throw .bindingMismatch(field: "session_id", bundle: sessionId, binding: b.sessionId) }
        guard b.owner == owner else { throw .bindingMismatch(field: "owner", bundle: owner, binding: b.owner) }
        if let t = trustedInstallationKeys, !t.contains(installation) { throw .untrustedInstallationKey(installation.hex) }
        if let e = expectedOwner, e.hex != owner { throw .wrongOwner(expected: e.hex, got: owner) }
        let sessionKey: Ed25519PublicKey
        do { sessionKey = try Ed25519PublicKey(hex: b.sessionKey) } catch {
            throw .malformed(at: "binding.payload.session_key", reason: "\(error)")
        }
        let sessionKeyHex = sessionKey.hex
        // A long bundle's record signatures are checked on every core, a window of records at a
        // time ahead of the walk below, which takes each answer in record order: the first
        // error is the one a serial walk finds, and a bundle refused at record i costs at most
        // a window's signatures past i. A short bundle's (the collector's usual) on this thread.
        let parallel = records.count >= Self.parallelSignaturesFrom
        var window: (start: Int, answers: [Bool]) = (0, [])
        func signatureVerifies(_ i: Int) -> Bool {
            guard parallel else { return records[i].verifies(under: sessionKey) }
            if i >= window.start + window.answers.count {
                let ahead = Array(records[i..<min(records.count, i + Self.parallelSignaturesFrom)])
                window = (i, parallelMap(ahead, width: onlineCoreCount()) { $0.verifies(under: sessionKey) })
            }
            return window.answers[i - window.start]
        }

        var decoded: [AuditRecord] = []
        decoded.reserveCapacity(records.count)
        var prev = SHA256.hex(binding.payload)
        var summary: SessionBody?
        for (i, e) in records.enumerated() {
            guard e.payloadType == AuditPayloadType.record else { throw .recordPayloadType(index: i, got: e.payloadType) }
            guard e.keyID == sessionKeyHex else { throw .unboundRecordKey(index: i, keyID: e.keyID, sessionKey: sessionKeyHex) }
            guard signatureVerifies(i) else { throw .recordSignature(index: i) }
            let r: AuditRecord
            if let plain = BundleReader.record(e.payload) { r = plain } else {
                r = try PayloadCoding.decode(AuditRecord.self, e.payload, at: "records[\(i)].payload")
            }
            guard r.sessionId == sessionId else { throw .recordSession(index: i, expected: sessionId, got: r.sessionId) }
            guard r.seq == Int64(i) else { throw .sequence(index: i, expected: Int64(i), got: r.seq) }
            guard r.prev == prev else { throw .chain(index: i, expected: prev, got: r.prev) }
            guard let body = r.body else { throw .bodyMismatch(index: i, type: r.type.rawValue) }
            if summary != nil { throw .sessionRecordNotLast(index: i - 1) }
            if case .session(let s) = body { summary = s }
            decoded.append(r)
            prev = SHA256.hex(e.payload)
        }
        guard let s = summary else { throw .sessionRecordMissing }
        return VerifiedBundle(sessionId: sessionId, owner: owner, installationKey: installation.hex,
                              sessionKey: sessionKey.hex, binding: b, records: decoded, session: s,
                              bundleSha256: bundleSha256)
    }

    static func isSessionId(_ s: String) -> Bool { Hex.decode(s)?.count == 16 }

    /// From this many records the signatures are checked in parallel, this many at a time:
    /// a window is about 13 ms of one core's verifications, well above the cost of waking
    /// the threads; below it a bundle takes a few ms at most.
    static let parallelSignaturesFrom = 256
}

/// What a verified bundle says. `bundleSha256` is of the bytes verified (AuditBundle.verify
/// on bytes) — the hash the collector acknowledges.
public struct VerifiedBundle: Equatable, Sendable {
    public var sessionId: String
    public var owner: String
    public var installationKey: String
    public var sessionKey: String
    public var binding: SessionBinding
    public var records: [AuditRecord]
    public var session: SessionBody
    public var bundleSha256: String

    public var acks: [AckBody] { records.compactMap { $0.ack } }
    public var adClaims: [AdClaimBody] { records.compactMap { $0.adClaim } }
}

// The signed statements of a bundle (docs/audit-bundle.md §3, §4): the binding of the session
// key, and the chained records under it. Field names on the wire are snake_case.

import WaiSupport
import Foundation

public enum AuditPayloadType {
    public static let binding = "application/vnd.waihost.audit-binding.v1+json"
    public static let record = "application/vnd.waihost.audit-record.v1+json"
    public static let acknowledgement = "application/vnd.waihost.audit-ack.v1+json"
}

/// Limits every reader enforces (docs/audit-bundle.md §6).
public enum AuditLimits {
    public static let bundleBytes = 16 << 20
    public static let records = 100_000
    public static let payloadBytes = 64 << 10
    public static let stringBytes = 8192
    public static let segmentsPerClaim = 4096
}

/// Signed by the installation key: "this session key speaks for this installation, in this
/// session, to this owner".
public struct SessionBinding: Codable, Equatable, Sendable {
    public var version: Int
    public var sessionId: String
    public var sessionKey: String
    public var installationKey: String
    public var owner: String
    public var createdMs: Int64
    /// Set when this bundle continues a long session (§7): the bundle before it.
    public var continues: BundleContinuation?

    public init(sessionId: String, sessionKey: String, installationKey: String, owner: String, createdMs: Int64,
                continues: BundleContinuation? = nil) {
        version = 1
        self.sessionId = sessionId
        self.sessionKey = sessionKey
        self.installationKey = installationKey
        self.owner = owner
        self.createdMs = createdMs
        self.continues = continues
    }
}

/// The link from one bundle of a long session to the one before it (§7).
public struct BundleContinuation: Codable, Equatable, Sendable {
    /// The previous bundle's session_id.
    public var sessionId: String
    /// The record hash of the previous bundle's last record (its session record).
    public var lastRecordSha256: String
    /// 1 for the second bundle of the session, 2 for the third, …
    public var part: Int64

    public init(sessionId: String, lastRecordSha256: String, part: Int64) {
        self.sessionId = sessionId
        self.lastRecordSha256 = lastRecordSha256
        self.part = part
    }
}

/// One object (playlist revision or media object) the relay received, and what it did.
public struct AckBody: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, CaseIterable, Sendable { case playlist, object }
    public enum Outcome: String, Codable, CaseIterable, Sendable { case verified, relayed, withheld }

    public var uri: String
    public var effectiveUri: String?
    public var kind: Kind
    /// Hex SHA-256 of the bytes received; nil when nothing arrived.
    public var sha256: String?
    public var size: Int64
    public var outcome: Outcome
    /// The withhold code and its explanation (withheld only).
    public var reason: String?
    public var detail: String?
    public var timeMs: Int64

    public init(uri: String, effectiveUri: String?, kind: Kind, sha256: String?, size: Int64,
                outcome: Outcome, reason: String?, detail: String?, timeMs: Int64) {
        self.uri = uri
        self.effectiveUri = effectiveUri
        self.kind = kind
        self.sha256 = sha256
        self.size = size
        self.outcome = outcome
        self.reason = reason
        self.detail = detail
        self.timeMs = timeMs
    }
}

/// One segment of an ad as handed to the player.
public struct AdSegment: Codable, Equatable, Sendable {
    public var uri: String
    public var sha256: String
    public var durationMs: Int64
    public init(uri: String, sha256: String, durationMs: Int64) {
        self.uri = uri
        self.sha256 = sha256
        self.durationMs = durationMs
    }
}

/// A presentation claim for one marked ad break.
public struct AdClaimBody: Codable, Equatable, Sendable {
    /// EXT-X-DATERANGE, or an EXT-X-CUE-OUT … EXT-X-CUE-IN span.
    public enum Marker: String, Codable, CaseIterable, Sendable { case daterange, cue }

    public var marker: Marker
    /// DATERANGE ID; for a cue, "cue-" + the media sequence number of its first segment.
    public var id: String
    public var adClass: String?
    public var startDate: String?
    /// SCTE35-CMD / -OUT / -IN attribute values exactly as written (0x… hex).
    public var scte35Cmd: String?
    public var scte35Out: String?
    public var scte35In: String?
    /// PLANNED-DURATION or DURATION (DATERANGE), or the CUE-OUT duration, in milliseconds.
    public var plannedDurationMs: Int64?
    /// The ad's segments released to the player, in media sequence order.
    public var segments: [AdSegment]
    /// Sum of the EXTINF durations of segments released while the player was visible.
    public var presentedMs: Int64

    public init(marker: Marker, id: String, adClass: String?, startDate: String?, scte35Cmd: String?,
                scte35Out: String?, scte35In: String?, plannedDurationMs: Int64?, segments: [AdSegment],
                presentedMs: Int64) {
        self.marker = marker
        self.id = id
        self.adClass = adClass
        self.startDate = startDate
        self.scte35Cmd = scte35Cmd
        self.scte35Out = scte35Out
        self.scte35In = scte35In
        self.plannedDurationMs = plannedDurationMs
        self.segments = segments
        self.presentedMs = presentedMs
    }
}

/// The session record: always the last record.
public struct SessionBody: Codable, Equatable, Sendable {
    /// Why the session (or this bundle of it) ended: the relay's reasons (docs/relay.md), and
    /// `continued` (the session goes on in the next chained bundle, §7) and `interrupted`
    /// (the relay died; the bundle was recovered from its journal, §8).
    public enum EndReason: String, Codable, CaseIterable, Sendable {
        case notVisible = "not_visible", viewerIdle = "viewer_idle", idleTimeout = "idle_timeout", closed
        case continued, interrupted
    }

    public var startMs: Int64
    public var endMs: Int64
    public var endReason: EndReason
    public var objects: Int64
    public var bytes: Int64
    public var verified: Int64
    public var relayed: Int64
    public var withheld: Int64
    public var adClaims: Int64
    /// The decode units used ("cpu", "gpu:<device>", "player" when the player decoded).
    public var decodeUnits: [String]

    public init(startMs: Int64, endMs: Int64, endReason: EndReason, objects: Int64, bytes: Int64, verified: Int64,
                relayed: Int64, withheld: Int64, adClaims: Int64, decodeUnits: [String]) {
        self.startMs = startMs
        self.endMs = endMs
        self.endReason = endReason
        self.objects = objects
        self.bytes = bytes
        self.verified = verified
        self.relayed = relayed
        self.withheld = withheld
        self.adClaims = adClaims
        self.decodeUnits = decodeUnits
    }
}

/// One chained record: exactly the body named by `type` is present.
public struct AuditRecord: Codable, Equatable, Sendable {
    public enum Body: Equatable, Sendable {
        case ack(AckBody)
        case adClaim(AdClaimBody)
        case session(SessionBody)

        public var type: RecordType {
            switch self {
            case .ack: return .ack
            case .adClaim: return .adClaim
            case .session: return .session
            }
        }
    }

    public enum RecordType: String, Codable, CaseIterable, Sendable { case ack, adClaim = "ad_claim", session }

    public var sessionId: String
    public var seq: Int64
    /// Hex SHA-256 of the previous record's payload bytes (record 0: of the binding's).
    public var prev: String
    public var type: RecordType
    public var ack: AckBody?
    public var adClaim: AdClaimBody?
    public var session: SessionBody?

    public init(sessionId: String, seq: Int64, prev: String, body: Body) {
        self.sessionId = sessionId
        self.seq = seq
        self.prev = prev
        type = body.type
        switch body {
        case .ack(let b): ack = b
        case .adClaim(let b): adClaim = b
        case .session(let b): session = b
        }
    }

    /// nil unless exactly the body `type` names is present.
    public var body: Body? {
        switch (type, ack, adClaim, session) {
        case (.ack, let a?, nil, nil): return .ack(a)
        case (.adClaim, nil, let c?, nil): return .adClaim(c)
        case (.session, nil, nil, let s?): return .session(s)
        default: return nil
        }
    }
}

enum PayloadCoding {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let e = JSONCoding.encoder(pretty: false)
        e.keyEncodingStrategy = .convertToSnakeCase
        guard let d = try? e.encode(value) else { preconditionFailure("audit: value is not representable as JSON") }
        return [UInt8](d)
    }

    /// Parses a signed payload strictly (I-JSON, §2.1) into the statement `T` reads.
    static func decode<T: PayloadDecodable>(_: T.Type, _ bytes: [UInt8], at: String) throws(AuditBundleError) -> T {
        try T(fields: IJSONFields(parsing: bytes, at: at))
    }
}

// The signed statements of a bundle (docs/audit-bundle.md §3, §4): the binding of the session
// key, and the chained records under it. Field names on the wire are snake_case.

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

    public init(sessionId: String, sessionKey: String, installationKey: String, owner: String, createdMs: Int64) {
        version = 1
        self.sessionId = sessionId
        self.sessionKey = sessionKey
        self.installationKey = installationKey
        self.owner = owner
        self.createdMs = createdMs
    }
}

/// One object (playlist revision or media object) the relay received, and what it did.
public struct AckBody: Codable, Equatable, Sendable {
    public var uri: String
    public var effectiveUri: String?
    /// "playlist" | "object"
    public var kind: String
    /// Hex SHA-256 of the bytes received; nil when nothing arrived.
    public var sha256: String?
    public var size: Int64
    /// "verified" | "relayed" | "withheld"
    public var outcome: String
    /// The withhold code and its explanation (withheld only).
    public var reason: String?
    public var detail: String?
    public var timeMs: Int64

    public init(uri: String, effectiveUri: String?, kind: String, sha256: String?, size: Int64,
                outcome: String, reason: String?, detail: String?, timeMs: Int64) {
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
    /// "daterange" (EXT-X-DATERANGE) | "cue" (EXT-X-CUE-OUT / EXT-X-CUE-IN)
    public var marker: String
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

    public init(marker: String, id: String, adClass: String?, startDate: String?, scte35Cmd: String?,
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
    public var startMs: Int64
    public var endMs: Int64
    public var endReason: String
    public var objects: Int64
    public var bytes: Int64
    public var verified: Int64
    public var relayed: Int64
    public var withheld: Int64
    public var adClaims: Int64
    /// The decode units used ("cpu", "gpu:<device>", "player" when the player decoded).
    public var decodeUnits: [String]

    public init(startMs: Int64, endMs: Int64, endReason: String, objects: Int64, bytes: Int64, verified: Int64,
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

        public var type: String {
            switch self {
            case .ack: return "ack"
            case .adClaim: return "ad_claim"
            case .session: return "session"
            }
        }
    }

    public var sessionId: String
    public var seq: Int64
    /// Hex SHA-256 of the previous record's payload bytes (record 0: of the binding's).
    public var prev: String
    public var type: String
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
        case ("ack", let a?, nil, nil): return .ack(a)
        case ("ad_claim", nil, let c?, nil): return .adClaim(c)
        case ("session", nil, nil, let s?): return .session(s)
        default: return nil
        }
    }
}

enum PayloadCoding {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.keyEncodingStrategy = .convertToSnakeCase
        guard let d = try? e.encode(value) else { preconditionFailure("audit: value is not representable as JSON") }
        return [UInt8](d)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], at: String) throws(AuditBundleError) -> T {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        do { return try d.decode(type, from: Data(bytes)) } catch {
            throw .malformed(at: at, reason: "payload does not decode: \(describe(error))")
        }
    }

    private static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let k, _)?: return "missing field \(k.stringValue)"
        case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?, .dataCorrupted(let c)?:
            let path = c.codingPath.map { $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? c.debugDescription : "\(path): \(c.debugDescription)"
        default: return "\(error)"
        }
    }
}

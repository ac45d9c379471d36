// Builds a session's bundle while the relay plays: an ack for every object the relay hands
// its observer, ad claims from the media playlists it released, and the session record.

import Foundation
import Relay
import WaiCrypto

public final class AuditRecorder: RelayObserver, @unchecked Sendable {
    /// The session's first bundle's id; CMCD reports carry it as `sid` for the whole session.
    public let sessionId: String
    public let owner: Ed25519PublicKey
    public let decodeUnits: [String]

    private let lock = NSLock()
    private let installationKey: Ed25519PrivateKey
    private var chain: AuditChain
    private var partStartMs: Int64
    /// Bytes of the current bundle so far (its records' envelopes), to start the next in time.
    private var partBytes = 0
    /// Ad claims written in the current bundle.
    private var partClaims: Int64 = 0
    private let partLimitBytes: Int
    private let sink: AuditEvidenceSink?
    public private(set) var partSessionIds: [String]
    private var visible = true
    private var endReason: EndReason?
    private var finished: [UInt8]?
    private var totals = (objects: Int64(0), bytes: Int64(0), verified: Int64(0), relayed: Int64(0), withheld: Int64(0))
    /// Ads in the order first seen, with the segments released so far.
    private var adOrder: [String] = []
    private var ads: [String: MarkedAd] = [:]
    private var presented: [String: (segments: [AdSegment], ms: Int64)] = [:]
    /// Segment URL → the ads (keys) it belongs to and its EXTINF duration.
    private var adSegments: [String: [(key: String, durationMs: Int64)]] = [:]
    private let cmcd: CMCDEvents?
    private var playing = false

    /// A bundle is continued in the next (§7) before it holds this many records.
    static let ackLimit = AuditLimits.records - 10
    /// …or this many bytes: half the bundle limit, leaving room for ad claims at the end.
    public static let defaultPartLimitBytes = AuditLimits.bundleBytes / 2

    /// CTA-5004-B's default `t` interval (the SVTA reference reporter's too).
    public static let defaultCMCDInterval = 30.0

    /// `cmcd` receives CMCD event-mode reports as they happen (`t` every `cmcdIntervalSeconds`). `sink` keeps what is signed as it
    /// is signed (the relay's journal and spool, EvidenceCustody); `partLimitBytes`: when a
    /// bundle reaches it the session continues in a chained bundle (docs/audit-bundle.md §7).
    public init(installationKey: Ed25519PrivateKey, owner: Ed25519PublicKey, decodeUnits: [String] = ["player"],
                sink: AuditEvidenceSink? = nil, partLimitBytes: Int = AuditRecorder.defaultPartLimitBytes,
                cmcdIntervalSeconds: Double? = AuditRecorder.defaultCMCDInterval,
                cmcd: (@Sendable (CMCDEvent) -> Void)? = nil) throws {
        let now = AuditChain.nowMs()
        let c = try AuditChain(installationKey: installationKey, owner: owner, createdMs: now)
        self.installationKey = installationKey
        chain = c
        sessionId = c.sessionId
        partSessionIds = [c.sessionId]
        self.owner = owner
        self.decodeUnits = decodeUnits
        self.sink = sink
        self.partLimitBytes = max(4096, min(partLimitBytes, AuditLimits.bundleBytes / 2))
        partStartMs = now
        self.cmcd = cmcd.map { CMCDEvents(sessionId: c.sessionId, startMs: now, intervalSeconds: cmcdIntervalSeconds, emit: $0) }
        sink?.begin(partStart())
        self.cmcd?.playState(.starting)
    }

    private func partStart() -> AuditPartStart {
        AuditPartStart(sessionId: chain.sessionId, owner: owner, binding: chain.binding, sessionKey: chain.sessionKey,
                       startMs: partStartMs, decodeUnits: decodeUnits)
    }

    /// Signs, chains and hands over one record; continues in a new bundle when this one is full.
    private func record(_ body: AuditRecord.Body) throws {
        let e = try chain.append(body)
        if case .adClaim = body { partClaims += 1 }
        sink?.append(e, sessionId: chain.sessionId)
        // The envelope's JSON: base64 of the payload plus ~230 bytes of keys and signature.
        partBytes += (e.payload.count + 2) / 3 * 4 + 240
        if case .session = body { return }
        if partBytes >= partLimitBytes || chain.records.count >= Self.ackLimit { try continueInNextBundle() }
    }

    /// Closes this bundle with a session record `continued` and starts the next, bound to it.
    private func continueInNextBundle() throws {
        try chain.append(sessionRecord(.continued))
        if let last = chain.records.last { sink?.append(last, sessionId: chain.sessionId) }
        let bytes = chain.bundle.encoded()
        sink?.complete(bytes, sessionId: chain.sessionId)
        let now = AuditChain.nowMs()
        let link = BundleContinuation(sessionId: chain.sessionId, lastRecordSha256: chain.lastRecordHash,
                                      part: Int64(partSessionIds.count))
        chain = try AuditChain(installationKey: installationKey, owner: owner, createdMs: now, continues: link)
        partSessionIds.append(chain.sessionId)
        partStartMs = now
        partBytes = 0
        totals = (0, 0, 0, 0, 0)
        partClaims = 0
        sink?.begin(partStart())
    }

    private func sessionRecord(_ reason: SessionBody.EndReason) -> AuditRecord.Body {
        .session(SessionBody(startMs: partStartMs, endMs: AuditChain.nowMs(), endReason: reason, objects: totals.objects,
                             bytes: totals.bytes, verified: totals.verified, relayed: totals.relayed,
                             withheld: totals.withheld, adClaims: partClaims, decodeUnits: decodeUnits))
    }

    /// Whether someone can see the player; ad time counts only while visible.
    public func setVisible(_ v: Bool) { lock.lock(); visible = v; lock.unlock() }

    public func received(_ event: ObjectEvent) {
        var firstPlay = false
        lock.lock()
        defer {
            lock.unlock()
            if let c = cmcd {
                // `rr` only for a response received whole; a failed transfer is reported by its `e`.
                if let r = event.response {
                    c.responseReceived(url: Redaction.url(event.originURL), playlist: event.kind == .playlist, response: r)
                }
                if case .withheld(let reason, _) = event.outcome { c.error([reason]) }
                if firstPlay { c.playState(.playing) }
            }
        }
        guard finished == nil else { return }
        totals.objects += 1
        totals.bytes += Int64(event.size)
        var outcome = AckBody.Outcome.relayed, reason: String?, detail: String?
        switch event.outcome {
        case .verified: outcome = .verified; totals.verified += 1
        case .relayed: totals.relayed += 1
        case .withheld(let r, let d):
            outcome = .withheld; totals.withheld += 1
            reason = clip(r)
            detail = String(d.utf8.count > 1024 ? clip(String(decoding: Array(d.utf8.prefix(1020)), as: UTF8.self)) : d)
        }
        let ack = AckBody(uri: clip(Redaction.url(event.originURL)), effectiveUri: event.effectiveURL.map { clip(Redaction.url($0)) },
                          kind: event.kind == .playlist ? .playlist : .object,
                          sha256: event.sha256, size: Int64(event.size), outcome: outcome, reason: reason,
                          detail: detail.map(Redaction.message), timeMs: Int64((event.time * 1000).rounded(.down)))
        // Signing fails only if OpenSSL cannot allocate; the totals still count the object.
        try? record(.ack(ack))
        guard event.kind == .object, !event.isWithheld, let sha = event.sha256 else { return }
        if !playing { playing = true; firstPlay = true }
        for (key, ms) in adSegments[event.originURL] ?? [] {
            var p = presented[key] ?? ([], 0)
            guard !p.segments.contains(where: { $0.uri == event.originURL }),
                  p.segments.count < AuditLimits.segmentsPerClaim else { continue }
            p.segments.append(AdSegment(uri: clip(Redaction.url(event.originURL)), sha256: sha, durationMs: ms))
            if visible { p.ms += ms }
            presented[key] = p
        }
    }

    public func playlistReleased(_ event: ObjectEvent, body: [UInt8]) {
        guard let playlist = try? Playlist.parse(body) else { return }
        let found = AdMarkers.find(in: playlist, effectiveURL: event.effectiveURL ?? event.originURL)
        lock.lock()
        defer { lock.unlock() }
        guard finished == nil else { return }
        for ad in found {
            if ads[ad.key] == nil { adOrder.append(ad.key); ads[ad.key] = ad }
            else if var known = ads[ad.key] {
                // A later revision may add the SCTE35-IN or more segments of a live ad.
                known.scte35In = known.scte35In ?? ad.scte35In
                ads[ad.key] = known
            }
            for s in ad.segments {
                var list = adSegments[s.url] ?? []
                if !list.contains(where: { $0.key == ad.key }) { list.append((ad.key, s.durationMs)) }
                adSegments[s.url] = list
            }
        }
    }

    public func sessionEnded(_ reason: EndReason) {
        lock.lock()
        if endReason == nil { endReason = reason }
        lock.unlock()
    }

    /// Writes the ad claims and the session record and returns the signed bundle's bytes.
    /// Later calls return the same bytes; nothing is recorded after the first.
    public func finish(endReason given: EndReason? = nil) throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if let f = finished { return f }
        let reason = endReason ?? given ?? .closed
        for key in adOrder {
            guard let ad = ads[key], let p = presented[key], !p.segments.isEmpty else { continue }
            let ordered = ad.segments.compactMap { s in p.segments.first { $0.uri == Redaction.url(s.url) } }
            try record(.adClaim(AdClaimBody(
                marker: ad.marker, id: ad.id, adClass: ad.adClass, startDate: ad.startDate, scte35Cmd: ad.scte35Cmd,
                scte35Out: ad.scte35Out, scte35In: ad.scte35In, plannedDurationMs: ad.plannedDurationMs,
                segments: ordered.count == p.segments.count ? ordered : p.segments, presentedMs: p.ms)))
        }
        try record(sessionRecord(SessionBody.EndReason(rawValue: reason.rawValue) ?? .closed))
        let bytes = chain.bundle.encoded()
        finished = bytes
        sink?.complete(bytes, sessionId: chain.sessionId)
        cmcd?.playState(.ended)
        return bytes
    }
}

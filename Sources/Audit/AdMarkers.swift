// Finds marked ads in a media playlist (docs/audit-bundle.md §4 "ad_claim"): EXT-X-DATERANGE
// with CLASS or SCTE35 attributes, and EXT-X-CUE-OUT … EXT-X-CUE-IN spans.

import Foundation
import Relay

/// One ad as a playlist marks it, with the segments it covers (absolute origin URLs).
struct MarkedAd: Equatable {
    var marker: AdClaimBody.Marker
    var id: String
    var adClass: String?
    var startDate: String?
    var scte35Cmd: String?
    var scte35Out: String?
    var scte35In: String?
    var plannedDurationMs: Int64?
    var segments: [(url: String, durationMs: Int64)]

    var key: String { marker.rawValue + "\u{0}" + id }

    static func == (a: MarkedAd, b: MarkedAd) -> Bool {
        a.key == b.key && a.adClass == b.adClass && a.startDate == b.startDate && a.scte35Cmd == b.scte35Cmd
            && a.scte35Out == b.scte35Out && a.scte35In == b.scte35In && a.plannedDurationMs == b.plannedDurationMs
            && a.segments.map { $0.url } == b.segments.map { $0.url }
            && a.segments.map { $0.durationMs } == b.segments.map { $0.durationMs }
    }
}

enum AdMarkers {
    /// Ads marked in `playlist`, fetched from `effectiveURL`. Multivariant playlists mark none.
    static func find(in playlist: Playlist, effectiveURL: String) -> [MarkedAd] {
        guard let media = playlist.media, let base = URL(string: effectiveURL) else { return [] }
        var segmentAtLine: [Int: MediaSegment] = [:]
        for s in media.segments { segmentAtLine[s.uriLine] = s }

        final class Open {
            var ad: MarkedAd
            var accumulated: Int64 = 0
            init(_ ad: MarkedAd) { self.ad = ad }
        }
        var done: [MarkedAd] = []
        var open: [Open] = []
        var cue: Open?
        var pendingCueMs: Int64?
        var pendingCue = false

        func close(_ o: Open) {
            open.removeAll { $0 === o }
            done.append(o.ad)
        }

        for line in playlist.lines {
            let text = line.text
            if text.hasPrefix("#EXT-X-DATERANGE:") {
                let attrs = attributes(String(text.dropFirst("#EXT-X-DATERANGE:".count)))
                guard let id = attrs["ID"] else { continue }
                let isStart = attrs["CLASS"] != nil || attrs["SCTE35-OUT"] != nil || attrs["SCTE35-CMD"] != nil
                if let existing = open.first(where: { $0.ad.id == id }) {
                    if let inHex = attrs["SCTE35-IN"] { existing.ad.scte35In = clip(inHex) }
                    if attrs["SCTE35-IN"] != nil || attrs["END-ON-NEXT"] == "YES" || attrs["END-DATE"] != nil { close(existing) }
                    continue
                }
                guard isStart else { continue }
                let ms = (attrs["PLANNED-DURATION"] ?? attrs["DURATION"]).flatMap(milliseconds)
                let ad = MarkedAd(marker: .daterange, id: clip(id), adClass: attrs["CLASS"].map(clip),
                                  startDate: attrs["START-DATE"].map(clip), scte35Cmd: attrs["SCTE35-CMD"].map(clip),
                                  scte35Out: attrs["SCTE35-OUT"].map(clip), scte35In: attrs["SCTE35-IN"].map(clip),
                                  plannedDurationMs: ms, segments: [])
                open.append(Open(ad))
            } else if text.hasPrefix("#EXT-X-CUE-OUT-CONT") {
                continue
            } else if text.hasPrefix("#EXT-X-CUE-OUT") {
                if let c = cue { close(c); cue = nil }
                pendingCue = true
                var arg = text.dropFirst("#EXT-X-CUE-OUT".count)
                if arg.hasPrefix(":") { arg = arg.dropFirst() }
                if arg.hasPrefix("DURATION=") { arg = arg.dropFirst("DURATION=".count) }
                pendingCueMs = milliseconds(String(arg))
            } else if text.hasPrefix("#EXT-X-CUE-IN") {
                pendingCue = false
                if let c = cue { close(c); cue = nil }
            } else if let seg = segmentAtLine[line.number] {
                guard let url = URIResolution.resolve(seg.uri, against: base) else { continue }
                let absolute = removingCMCD(url.absoluteString)
                let ms = milliseconds(String(seg.extinf.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")) ?? 0
                if pendingCue {
                    pendingCue = false
                    let o = Open(MarkedAd(marker: .cue, id: "cue-\(seg.sequence)", adClass: nil, startDate: nil,
                                          scte35Cmd: nil, scte35Out: nil, scte35In: nil,
                                          plannedDurationMs: pendingCueMs, segments: []))
                    open.append(o)
                    cue = o
                }
                for o in open where o.ad.segments.count < AuditLimits.segmentsPerClaim {
                    o.ad.segments.append((absolute, ms))
                    o.accumulated += ms
                }
                // A DATERANGE ad ends once its planned duration is covered (cues end at CUE-IN).
                for o in open where o.ad.marker == .daterange {
                    if let p = o.ad.plannedDurationMs, o.accumulated >= p { close(o) }
                }
            }
        }
        return done + open.map { $0.ad }
    }

    /// RFC 8216 §4.2 attribute list, quotes removed. Malformed input gives what parsed so far.
    static func attributes(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        let u = Array(text.utf8)
        var i = 0
        while i < u.count {
            let ns = i
            while i < u.count, u[i] != UInt8(ascii: "=") { i += 1 }
            guard i < u.count else { break }
            let name = String(decoding: u[ns..<i], as: UTF8.self)
            i += 1
            var value = ""
            if i < u.count, u[i] == UInt8(ascii: "\"") {
                let vs = i + 1
                var j = vs
                while j < u.count, u[j] != UInt8(ascii: "\"") { j += 1 }
                value = String(decoding: u[vs..<min(j, u.count)], as: UTF8.self)
                i = j + 1
            } else {
                let vs = i
                while i < u.count, u[i] != UInt8(ascii: ",") { i += 1 }
                value = String(decoding: u[vs..<i], as: UTF8.self)
            }
            out[name] = value
            if i < u.count, u[i] == UInt8(ascii: ",") { i += 1 }
        }
        return out
    }

    /// A decimal number of seconds ("4", "4.5", "10.010") as whole milliseconds, digits past
    /// the third decimal dropped; nil unless it is a plain non-negative decimal.
    static func milliseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
              let w = Int64(whole) else { return nil }
        var frac: Int64 = 0
        if parts.count == 2 {
            let f = parts[1]
            guard !f.isEmpty, f.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let three = String((String(f) + "000").prefix(3))
            frac = Int64(three) ?? 0
        }
        return w * 1000 + frac
    }
}

/// Bounds a string the recorder writes (docs/audit-bundle.md §6).
func clip(_ s: String) -> String {
    if s.utf8.count <= AuditLimits.stringBytes { return s }
    var out = ""
    var n = 0
    for ch in s {
        let c = String(ch).utf8.count
        if n + c > AuditLimits.stringBytes - 3 { break }
        out.append(ch)
        n += c
    }
    return out + "..."
}

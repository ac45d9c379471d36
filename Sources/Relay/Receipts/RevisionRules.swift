// What a live media playlist may do between revisions (RFC 8216 §6.2.1): append segments,
// remove segments from the head in order (with the tags that apply only to them), raise
// EXT-X-MEDIA-SEQUENCE and EXT-X-DISCONTINUITY-SEQUENCE accordingly, add EXT-X-ENDLIST.
// Anything else is a violation. Segments are compared by sequence number on the state in
// effect for each (URI, EXTINF, byte range, discontinuity, gap, map, keys, bitrate, date),
// not by the literal lines before them, because the server must restate EXT-X-MAP and
// EXT-X-KEY before the new first segment when the head moves.
// Not compared: EXT-X-PART / EXT-X-PRELOAD-HINT / EXT-X-RENDITION-REPORT (low-latency parts
// are replaced by their full segment by design) and EXT-X-DATERANGE (RFC 8216 lets a later
// revision add attributes to a date range with the same ID); each revision's signature still
// covers them.

public enum RevisionViolation: Error, Equatable, Sendable, CustomStringConvertible {
    case kindChanged(from: PlaylistKind, to: PlaylistKind)
    case deltaUpdate
    case targetDurationChanged(from: UInt64, to: UInt64)
    case playlistTypeChanged(from: String?, to: String?)
    case changedAfterEndList
    case endListRemoved
    case mediaSequenceLowered(from: UInt64, to: UInt64)
    case removedFromEventPlaylist(mediaSequence: UInt64)
    /// Segments at the end disappeared (or the playlist was cut): `last` was the previous
    /// revision's last sequence number, `nowLast` the new one's (nil: none left).
    case segmentsRemovedFromTail(last: UInt64, nowLast: UInt64?)
    /// The segment with this sequence number differs (edited, swapped, reordered, or a segment
    /// removed from the middle, which shifts the ones after it).
    case segmentChanged(sequence: UInt64, field: String, from: String, to: String)
    case discontinuitySequenceWrong(expected: UInt64, got: UInt64)

    public var description: String {
        switch self {
        case .kindChanged(let a, let b): return "playlist changed from \(a.rawValue) to \(b.rawValue)"
        case .deltaUpdate: return "delta update (EXT-X-SKIP) cannot be checked against the previous revision"
        case .targetDurationChanged(let a, let b): return "EXT-X-TARGETDURATION changed from \(a) to \(b)"
        case .playlistTypeChanged(let a, let b): return "EXT-X-PLAYLIST-TYPE changed from \(a ?? "none") to \(b ?? "none")"
        case .changedAfterEndList: return "playlist changed after EXT-X-ENDLIST"
        case .endListRemoved: return "EXT-X-ENDLIST removed"
        case .mediaSequenceLowered(let a, let b): return "EXT-X-MEDIA-SEQUENCE lowered from \(a) to \(b)"
        case .removedFromEventPlaylist(let m): return "segments removed from an EVENT playlist (EXT-X-MEDIA-SEQUENCE now \(m))"
        case .segmentsRemovedFromTail(let l, let n):
            return "segments removed from the end: last sequence was \(l), now \(n.map(String.init) ?? "none")"
        case .segmentChanged(let s, let f, let a, let b): return "segment \(s) changed \(f) from '\(a)' to '\(b)'"
        case .discontinuitySequenceWrong(let e, let g): return "EXT-X-DISCONTINUITY-SEQUENCE is \(g), expected \(e) from the segments removed"
        }
    }
}

public enum RevisionRules {
    /// Throws the first way `next` departs from what RFC 8216 §6.2.1 allows after `previous`.
    /// Multivariant playlists are not constrained beyond keeping their kind.
    public static func check(previous: Playlist, next: Playlist) throws(RevisionViolation) {
        guard previous.kind == next.kind else { throw .kindChanged(from: previous.kind, to: next.kind) }
        guard let old = previous.media, let new = next.media else { return }
        if old.hasSkip || new.hasSkip { throw .deltaUpdate }
        if old.targetDuration != new.targetDuration { throw .targetDurationChanged(from: old.targetDuration, to: new.targetDuration) }
        if old.playlistType != new.playlistType { throw .playlistTypeChanged(from: old.playlistType, to: new.playlistType) }
        if old.endList && !new.endList { throw .endListRemoved }
        if old.endList {
            guard old.mediaSequence == new.mediaSequence, old.discontinuitySequence == new.discontinuitySequence,
                  old.segments == new.segments else { throw .changedAfterEndList }
            return
        }
        if new.mediaSequence < old.mediaSequence { throw .mediaSequenceLowered(from: old.mediaSequence, to: new.mediaSequence) }
        if old.playlistType == "EVENT", new.mediaSequence != old.mediaSequence {
            throw .removedFromEventPlaylist(mediaSequence: new.mediaSequence)
        }
        let oldEnd = old.mediaSequence + UInt64(old.segments.count)
        let newEnd = new.mediaSequence + UInt64(new.segments.count)
        if newEnd < oldEnd {
            throw .segmentsRemovedFromTail(last: oldEnd - 1, nowLast: newEnd > new.mediaSequence ? newEnd - 1 : nil)
        }
        let removed = new.mediaSequence - old.mediaSequence
        let removedKnown = min(removed, UInt64(old.segments.count))
        let discontinuitiesRemoved = UInt64(old.segments.prefix(Int(removedKnown)).filter(\.discontinuity).count)
        let expected = old.discontinuitySequence + discontinuitiesRemoved
        if removed <= UInt64(old.segments.count) {
            if new.discontinuitySequence != expected { throw .discontinuitySequenceWrong(expected: expected, got: new.discontinuitySequence) }
        } else if new.discontinuitySequence < expected {
            throw .discontinuitySequenceWrong(expected: expected, got: new.discontinuitySequence)
        }
        var seq = new.mediaSequence
        while seq < oldEnd {
            let a = old.segments[Int(seq - old.mediaSequence)]
            let b = new.segments[Int(seq - new.mediaSequence)]
            try compare(a, b)
            seq += 1
        }
    }

    private static func compare(_ a: MediaSegment, _ b: MediaSegment) throws(RevisionViolation) {
        func fail(_ field: String, _ x: String, _ y: String) -> RevisionViolation {
            .segmentChanged(sequence: a.sequence, field: field, from: x, to: y)
        }
        if a.uri != b.uri { throw fail("URI", a.uri, b.uri) }
        if a.extinf != b.extinf { throw fail("EXTINF", a.extinf, b.extinf) }
        if a.byteRange != b.byteRange { throw fail("byte range", a.byteRange?.description ?? "none", b.byteRange?.description ?? "none") }
        if a.discontinuity != b.discontinuity { throw fail("EXT-X-DISCONTINUITY", "\(a.discontinuity)", "\(b.discontinuity)") }
        if a.discontinuitySequence != b.discontinuitySequence {
            throw fail("discontinuity sequence", "\(a.discontinuitySequence)", "\(b.discontinuitySequence)")
        }
        if a.gap != b.gap { throw fail("EXT-X-GAP", "\(a.gap)", "\(b.gap)") }
        if a.mapURI != b.mapURI || a.mapRange != b.mapRange {
            throw fail("EXT-X-MAP", "\(a.mapURI ?? "none") \(a.mapRange?.description ?? "")", "\(b.mapURI ?? "none") \(b.mapRange?.description ?? "")")
        }
        if a.keys != b.keys { throw fail("EXT-X-KEY", a.keys.joined(separator: " "), b.keys.joined(separator: " ")) }
        if a.bitrate != b.bitrate { throw fail("EXT-X-BITRATE", a.bitrate ?? "none", b.bitrate ?? "none") }
        // A date may be stated only where the segment is the head; when both state one it must agree.
        if let x = a.programDateTime, let y = b.programDateTime, x != y { throw fail("EXT-X-PROGRAM-DATE-TIME", x, y) }
    }
}

// The interpretation pass over lexed lines: classifies the playlist, collects every URI with
// its byte range, and builds the media segments with the state in effect for each.

struct PlaylistParser {
    let lines: [PlaylistLine]

    static let multivariantTags: Set<String> = [
        "EXT-X-STREAM-INF", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-MEDIA", "EXT-X-SESSION-DATA",
        "EXT-X-SESSION-KEY", "EXT-X-CONTENT-STEERING",
    ]
    static let mediaTags: Set<String> = [
        "EXTINF", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE",
        "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY", "EXT-X-BYTERANGE",
        "EXT-X-DISCONTINUITY", "EXT-X-KEY", "EXT-X-MAP", "EXT-X-PROGRAM-DATE-TIME", "EXT-X-GAP",
        "EXT-X-BITRATE", "EXT-X-PART", "EXT-X-PART-INF", "EXT-X-SERVER-CONTROL", "EXT-X-SKIP",
        "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT", "EXT-X-DATERANGE",
    ]
    /// Tags that may appear at most once (RFC 8216 §4.3.3, §4.3.5).
    static let onceTags: Set<String> = [
        "EXT-X-VERSION", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE",
        "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY", "EXT-X-INDEPENDENT-SEGMENTS",
        "EXT-X-START", "EXT-X-PART-INF", "EXT-X-SERVER-CONTROL", "EXT-X-SKIP",
    ]

    /// Tags whose value is an attribute list (RFC 8216 §4.4, draft-pantos-hls-rfc8216bis).
    /// Every one is parsed strictly (AttributeList) even where the relay uses none of its
    /// values: a player reads them, so none may be ambiguous.
    static let attributeListTags: Set<String> = [
        "EXT-X-KEY", "EXT-X-MAP", "EXT-X-DATERANGE", "EXT-X-START", "EXT-X-STREAM-INF",
        "EXT-X-I-FRAME-STREAM-INF", "EXT-X-MEDIA", "EXT-X-SESSION-DATA", "EXT-X-SESSION-KEY",
        "EXT-X-CONTENT-STEERING", "EXT-X-DEFINE", "EXT-X-PART", "EXT-X-PART-INF",
        "EXT-X-SERVER-CONTROL", "EXT-X-SKIP", "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT",
    ]

    func parse() throws(PlaylistError) -> Playlist {
        guard let first = lines.first, first.text == "#EXTM3U" else {
            throw PlaylistError(line: 1, "first line must be #EXTM3U")
        }
        var seen: Set<String> = []
        var isMedia = false, isMultivariant = false
        var firstMediaLine = 0, firstMultivariantLine = 0
        for l in lines.dropFirst() {
            guard let name = PlaylistLexer.tagName(l.text) else { continue }
            if name == "EXTM3U" { throw PlaylistError(line: l.number, "#EXTM3U repeated") }
            if Self.attributeListTags.contains(name) { _ = try attributes(l, name) }
            if Self.onceTags.contains(name) {
                guard seen.insert(name).inserted else { throw PlaylistError(line: l.number, "\(name) appears more than once") }
            }
            if Self.mediaTags.contains(name), !isMedia { isMedia = true; firstMediaLine = l.number }
            if Self.multivariantTags.contains(name), !isMultivariant { isMultivariant = true; firstMultivariantLine = l.number }
        }
        if isMedia && isMultivariant {
            throw PlaylistError(line: max(firstMediaLine, firstMultivariantLine),
                                "mixes media playlist tags (line \(firstMediaLine)) and multivariant tags (line \(firstMultivariantLine))")
        }
        if isMultivariant { return try parseMultivariant() }
        if isMedia { return try parseMedia() }
        throw PlaylistError(line: 0, "neither a media playlist (no EXT-X-TARGETDURATION or EXTINF) nor a multivariant playlist (no EXT-X-STREAM-INF)")
    }

    // MARK: multivariant

    private func parseMultivariant() throws(PlaylistError) -> Playlist {
        var refs: [URIReference] = []
        var pendingStreamInf: Int?
        for l in lines.dropFirst() {
            let text = l.text
            if text.isEmpty { continue }
            if let name = PlaylistLexer.tagName(text) {
                if let p = pendingStreamInf {
                    throw PlaylistError(line: l.number, "EXT-X-STREAM-INF on line \(p) is followed by a tag, not its URI")
                }
                let attrs: (String, ReferenceKind, Bool)?  // attribute, kind, required
                switch name {
                case "EXT-X-STREAM-INF":
                    _ = try attributes(l, name)
                    pendingStreamInf = l.number
                    attrs = nil
                case "EXT-X-I-FRAME-STREAM-INF": attrs = ("URI", .iFrameStream, true)
                case "EXT-X-MEDIA": attrs = ("URI", .media, false)
                case "EXT-X-SESSION-DATA": attrs = ("URI", .sessionData, false)
                case "EXT-X-SESSION-KEY": attrs = ("URI", .sessionKey, true)
                case "EXT-X-CONTENT-STEERING": attrs = ("SERVER-URI", .contentSteering, true)
                default: attrs = nil
                }
                if let (attr, kind, required) = attrs {
                    if let r = try uriAttribute(l, name, attr: attr, kind: kind, required: required, range: nil, sequence: nil) {
                        refs.append(r)
                    }
                }
                continue
            }
            if text.hasPrefix("#") { continue }
            guard pendingStreamInf != nil else {
                throw PlaylistError(line: l.number, "URI line without a preceding EXT-X-STREAM-INF")
            }
            pendingStreamInf = nil
            refs.append(URIReference(kind: .variantStream, uri: text, line: l.number, byteRange: nil, sequence: nil, valueRange: nil))
        }
        if let p = pendingStreamInf { throw PlaylistError(line: p, "EXT-X-STREAM-INF has no URI line after it") }
        return Playlist(lines: lines, kind: .multivariant, references: refs, media: nil)
    }

    // MARK: media

    private func parseMedia() throws(PlaylistError) -> Playlist {
        var refs: [URIReference] = []
        var segments: [MediaSegment] = []
        var targetDuration: UInt64?
        var mediaSequence: UInt64 = 0, discontinuitySequence: UInt64 = 0
        var endList = false, iFramesOnly = false, hasSkip = false
        var playlistType: String?

        var extinf: (text: String, line: Int)?
        var byteRange: (length: UInt64, offset: UInt64?, line: Int)?
        var discontinuity = false, gap = false
        var programDateTime: String?
        var map: (uri: String, range: ByteRange?)?
        var keys: [(format: String, text: String)] = []
        var bitrate: String?
        var lastSegmentRange: (uri: String, end: UInt64)?
        var lastPartRange: (uri: String, end: UInt64)?
        // Map and key references whose first segment is not known until it appears.
        var waitingForSegment: [Int] = []
        var dsn: UInt64 = 0

        for l in lines.dropFirst() {
            let text = l.text
            if text.isEmpty { continue }
            guard let name = PlaylistLexer.tagName(text) else {
                if text.hasPrefix("#") { continue }
                // A URI line: the segment the preceding EXTINF announced.
                guard let inf = extinf else { throw PlaylistError(line: l.number, "URI line without a preceding EXTINF") }
                // Every number below is the origin's: a sum past 2^64 − 1 is a refusal, not a trap.
                let sequence = try Self.sum(mediaSequence, UInt64(segments.count), l.number, "media sequence number")
                var range: ByteRange?
                if let br = byteRange {
                    let offset: UInt64
                    if let o = br.offset {
                        offset = o
                    } else if let last = lastSegmentRange, last.uri == text {
                        offset = last.end
                    } else {
                        throw PlaylistError(line: br.line, "EXT-X-BYTERANGE without an offset, but the previous segment is not a sub-range of the same URI")
                    }
                    range = try Self.range(offset, br.length, br.line, "byte range end")
                    lastSegmentRange = (text, offset + br.length)
                } else {
                    lastSegmentRange = nil
                }
                if discontinuity { dsn += 1 }
                let segmentDiscontinuitySequence = try Self.sum(discontinuitySequence, dsn, l.number, "discontinuity sequence number")
                for idx in waitingForSegment {
                    let r = refs[idx]
                    refs[idx] = URIReference(kind: r.kind, uri: r.uri, line: r.line, byteRange: r.byteRange, sequence: sequence, valueRange: r.valueRange)
                }
                waitingForSegment = []
                refs.append(URIReference(kind: .segment, uri: text, line: l.number, byteRange: range, sequence: sequence, valueRange: nil))
                segments.append(MediaSegment(
                    sequence: sequence, discontinuitySequence: segmentDiscontinuitySequence, uri: text, uriLine: l.number,
                    extinf: inf.text, byteRange: range, discontinuity: discontinuity, gap: gap,
                    programDateTime: programDateTime, mapURI: map?.uri, mapRange: map?.range,
                    keys: keys.map(\.text), bitrate: bitrate))
                extinf = nil; byteRange = nil; discontinuity = false; gap = false; programDateTime = nil
                continue
            }
            let value = tagValue(text, name)
            switch name {
            case "EXT-X-TARGETDURATION":
                targetDuration = try decimal(value, l, name)
            case "EXT-X-MEDIA-SEQUENCE":
                guard segments.isEmpty, extinf == nil else { throw PlaylistError(line: l.number, "EXT-X-MEDIA-SEQUENCE after the first segment") }
                mediaSequence = try decimal(value, l, name)
            case "EXT-X-DISCONTINUITY-SEQUENCE":
                guard segments.isEmpty, extinf == nil else { throw PlaylistError(line: l.number, "EXT-X-DISCONTINUITY-SEQUENCE after the first segment") }
                discontinuitySequence = try decimal(value, l, name)
            case "EXT-X-ENDLIST": endList = true
            case "EXT-X-I-FRAMES-ONLY": iFramesOnly = true
            case "EXT-X-SKIP": hasSkip = true
            case "EXT-X-PLAYLIST-TYPE":
                guard value == "VOD" || value == "EVENT" else { throw PlaylistError(line: l.number, "EXT-X-PLAYLIST-TYPE must be VOD or EVENT, not '\(value ?? "")'") }
                playlistType = value
            case "EXTINF":
                if let prev = extinf { throw PlaylistError(line: l.number, "EXTINF on line \(prev.line) has no URI line before this EXTINF") }
                guard let v = value, let comma = v.firstIndex(of: ","), isDuration(v[..<comma]) else {
                    throw PlaylistError(line: l.number, "EXTINF must be '<duration>,[<title>]'")
                }
                extinf = (v, l.number)
            case "EXT-X-BYTERANGE":
                guard let v = value, let br = parseRange(v) else { throw PlaylistError(line: l.number, "EXT-X-BYTERANGE must be '<n>[@<o>]'") }
                byteRange = (br.length, br.offset, l.number)
            case "EXT-X-DISCONTINUITY": discontinuity = true
            case "EXT-X-GAP": gap = true
            case "EXT-X-PROGRAM-DATE-TIME": programDateTime = value
            case "EXT-X-BITRATE": bitrate = value
            case "EXT-X-MAP":
                let attrs = try attributes(l, name)
                var range: ByteRange?
                if let a = attrs.first(where: { $0.name == "BYTERANGE" }) {
                    guard a.quoted, let br = parseRange(a.value) else { throw PlaylistError(line: l.number, "EXT-X-MAP BYTERANGE must be a quoted '<n>[@<o>]'") }
                    // RFC 8216 gives no predecessor for a map's range: a missing offset means 0.
                    range = try Self.range(br.offset ?? 0, br.length, l.number, "EXT-X-MAP byte range end")
                }
                guard let r = try uriAttribute(l, name, attr: "URI", kind: .map, required: true, range: range, sequence: nil) else { break }
                waitingForSegment.append(refs.count)
                refs.append(r)
                map = (r.uri, range)
            case "EXT-X-KEY":
                let attrs = try attributes(l, name)
                guard let method = attrs.first(where: { $0.name == "METHOD" })?.value else {
                    throw PlaylistError(line: l.number, "EXT-X-KEY has no METHOD")
                }
                let format = attrs.first(where: { $0.name == "KEYFORMAT" })?.value ?? "identity"
                if method == "NONE" {
                    if attrs.contains(where: { $0.name == "URI" }) { throw PlaylistError(line: l.number, "EXT-X-KEY METHOD=NONE must not have a URI") }
                    keys = []
                } else {
                    guard let r = try uriAttribute(l, name, attr: "URI", kind: .key, required: true, range: nil, sequence: nil) else { break }
                    waitingForSegment.append(refs.count)
                    refs.append(r)
                    keys.removeAll { $0.format == format }
                    keys.append((format, text))
                }
            case "EXT-X-PART":
                let attrs = try attributes(l, name)
                var range: ByteRange?
                guard let uri = attrs.first(where: { $0.name == "URI" }) else { throw PlaylistError(line: l.number, "EXT-X-PART has no URI") }
                if let a = attrs.first(where: { $0.name == "BYTERANGE" }) {
                    guard a.quoted, let br = parseRange(a.value) else { throw PlaylistError(line: l.number, "EXT-X-PART BYTERANGE must be a quoted '<n>[@<o>]'") }
                    let offset: UInt64
                    if let o = br.offset { offset = o } else if let last = lastPartRange, last.uri == uri.value { offset = last.end } else {
                        throw PlaylistError(line: l.number, "EXT-X-PART BYTERANGE without an offset, but the previous part is not a sub-range of the same URI")
                    }
                    range = try Self.range(offset, br.length, l.number, "EXT-X-PART byte range end")
                    lastPartRange = (uri.value, offset + br.length)
                } else {
                    lastPartRange = nil
                }
                let seq = try Self.sum(mediaSequence, UInt64(segments.count), l.number, "media sequence number")
                if let r = try uriAttribute(l, name, attr: "URI", kind: .part, required: true, range: range, sequence: seq) { refs.append(r) }
            case "EXT-X-PRELOAD-HINT":
                let attrs = try attributes(l, name)
                var range: ByteRange?
                if let s = attrs.first(where: { $0.name == "BYTERANGE-START" }) {
                    guard !s.quoted, let start = UInt64(s.value) else { throw PlaylistError(line: l.number, "EXT-X-PRELOAD-HINT BYTERANGE-START must be a decimal integer") }
                    var length: UInt64?
                    if let len = attrs.first(where: { $0.name == "BYTERANGE-LENGTH" }) {
                        guard !len.quoted, let v = UInt64(len.value) else { throw PlaylistError(line: l.number, "EXT-X-PRELOAD-HINT BYTERANGE-LENGTH must be a decimal integer") }
                        length = v
                    }
                    range = try Self.range(start, length, l.number, "EXT-X-PRELOAD-HINT byte range end")
                }
                if let r = try uriAttribute(l, name, attr: "URI", kind: .preloadHint, required: true, range: range, sequence: nil) { refs.append(r) }
            case "EXT-X-RENDITION-REPORT":
                if let r = try uriAttribute(l, name, attr: "URI", kind: .renditionReport, required: true, range: nil, sequence: nil) { refs.append(r) }
            default:
                break
            }
        }
        if let inf = extinf { throw PlaylistError(line: inf.line, "EXTINF has no URI line after it") }
        if let br = byteRange { throw PlaylistError(line: br.line, "EXT-X-BYTERANGE has no segment after it") }
        guard let td = targetDuration else { throw PlaylistError(line: 0, "media playlist without EXT-X-TARGETDURATION") }
        // The sequence number after the last segment is where a next revision continues
        // (RevisionRules): it must exist too.
        _ = try Self.sum(mediaSequence, UInt64(segments.count), 0, "media sequence number after the last segment")
        let info = MediaPlaylistInfo(
            targetDuration: td, mediaSequence: mediaSequence, discontinuitySequence: discontinuitySequence,
            endList: endList, playlistType: playlistType, iFramesOnly: iFramesOnly, hasSkip: hasSkip, segments: segments)
        return Playlist(lines: lines, kind: .media, references: refs, media: info)
    }

    // MARK: helpers

    /// a + b, or the refusal naming `what` when the sum does not fit 64 bits.
    private static func sum(_ a: UInt64, _ b: UInt64, _ line: Int, _ what: String) throws(PlaylistError) -> UInt64 {
        let (s, overflow) = a.addingReportingOverflow(b)
        if overflow { throw Self.overflow(a, b, line, what) }
        return s
    }

    private static func overflow(_ a: UInt64, _ b: UInt64, _ line: Int, _ what: String) -> PlaylistError {
        PlaylistError(line: line, "\(what) \(a) + \(b) exceeds 2^64 − 1")
    }

    /// A range whose end fits 2^64 − 1, or the line's error naming the sum that does not.
    private static func range(_ offset: UInt64, _ length: UInt64?, _ line: Int, _ what: String) throws(PlaylistError) -> ByteRange {
        guard let r = ByteRange(offset: offset, length: length) else { throw overflow(offset, length ?? 0, line, what) }
        return r
    }

    /// The text after "#NAME:", or nil when the tag has no ':'.
    private func tagValue(_ text: String, _ name: String) -> String? {
        let prefixCount = name.utf8.count + 1
        let u = Array(text.utf8)
        guard u.count > prefixCount, u[prefixCount] == UInt8(ascii: ":") else { return nil }
        return String(decoding: u[(prefixCount + 1)...], as: UTF8.self)
    }

    private func attributes(_ l: PlaylistLine, _ name: String) throws(PlaylistError) -> [Attribute] {
        let u = Array(l.text.utf8)
        let start = name.utf8.count + 2
        guard u.count > start - 1, u[start - 1] == UInt8(ascii: ":") else {
            throw PlaylistError(line: l.number, "\(name) needs an attribute list")
        }
        return try AttributeList.parse(u, from: start, line: l.number, tag: name)
    }

    private func uriAttribute(_ l: PlaylistLine, _ name: String, attr: String, kind: ReferenceKind, required: Bool,
                              range: ByteRange?, sequence: UInt64?) throws(PlaylistError) -> URIReference? {
        let attrs = try attributes(l, name)
        guard let a = attrs.first(where: { $0.name == attr }) else {
            if required { throw PlaylistError(line: l.number, "\(name) has no \(attr) attribute") }
            return nil
        }
        guard a.quoted else { throw PlaylistError(line: l.number, "\(name) \(attr) must be a quoted string") }
        guard !a.value.isEmpty else { throw PlaylistError(line: l.number, "\(name) \(attr) is empty") }
        return URIReference(kind: kind, uri: a.value, line: l.number, byteRange: range, sequence: sequence, valueRange: a.range)
    }

    private func decimal(_ v: String?, _ l: PlaylistLine, _ name: String) throws(PlaylistError) -> UInt64 {
        guard let v, !v.isEmpty, v.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = UInt64(v) else {
            throw PlaylistError(line: l.number, "\(name) must be a decimal integer, not '\(v ?? "")'")
        }
        return n
    }

    private func isDuration(_ s: Substring) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard !s.isEmpty, parts.count <= 2, !parts[0].isEmpty else { return false }
        return parts.allSatisfy { $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }

    /// "<n>[@<o>]".
    private func parseRange(_ v: String) -> (length: UInt64, offset: UInt64?)? {
        let parts = v.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let n = UInt64(parts[0]), parts[0].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if parts.count == 2 {
            guard let o = UInt64(parts[1]), parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return (n, o)
        }
        return (n, nil)
    }
}

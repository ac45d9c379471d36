// An HLS playlist (RFC 8216): the verbatim lines plus what they mean. Only the parts the
// relay and sealer act on are interpreted; every other line is kept as written, so
// `serialized()` gives back the parsed bytes exactly.

public struct Playlist: Equatable, Sendable {
    public let lines: [PlaylistLine]
    public let kind: PlaylistKind
    /// Every URI in the playlist, in the order written.
    public let references: [URIReference]
    /// Set for media playlists, nil for multivariant ones.
    public let media: MediaPlaylistInfo?

    /// Parses playlist bytes. Throws PlaylistError naming the line and what is wrong; a
    /// playlist over `limits` is refused before anything is allocated for its lines.
    public static func parse(_ bytes: [UInt8], limits: PlaylistLimits = PlaylistLimits()) throws(PlaylistError) -> Playlist {
        try limits.check(bytes)
        let lines = try PlaylistLexer.lines(bytes)
        return try PlaylistParser(lines: lines).parse()
    }

    /// Exactly the bytes this playlist was parsed from (after any rewrite, those bytes with
    /// the rewritten URIs and nothing else changed).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        for l in lines {
            out.append(contentsOf: l.text.utf8)
            out.append(contentsOf: l.terminator.utf8)
        }
        return out
    }

    public var segments: [MediaSegment] { media?.segments ?? [] }

    /// The tag lines named `name` (e.g. "EXT-X-DATERANGE"), verbatim.
    public func tagLines(_ name: String) -> [PlaylistLine] {
        lines.filter { PlaylistLexer.tagName($0.text) == name }
    }

    init(lines: [PlaylistLine], kind: PlaylistKind, references: [URIReference], media: MediaPlaylistInfo?) {
        self.lines = lines
        self.kind = kind
        self.references = references
        self.media = media
    }
}

/// How large a playlist may be. The parser keeps every line and every reference, so both its
/// time and its memory grow with these (about 1 KiB per line while the relay processes one,
/// docs/relay.md "Memory"); a live playlist of a million segments (tens of MB) is refused
/// instead of parsed on every reload.
public struct PlaylistLimits: Sendable, Equatable {
    /// 4 MiB: far above any line bound's worth of ordinary lines, so long URIs still fit.
    public var maxBytes = 4 << 20
    /// Lines (LF count, plus a last line without one). 50 000 lines: about 25 000 segments,
    /// 14 hours of 2-second segments in one EVENT playlist.
    public var maxLines = 50_000

    public init() {}

    public init(maxBytes: Int, maxLines: Int) {
        self.maxBytes = maxBytes
        self.maxLines = maxLines
    }

    func check(_ bytes: [UInt8]) throws(PlaylistError) {
        guard bytes.count <= maxBytes else {
            throw PlaylistError(line: 0, "\(bytes.count) bytes, over the \(maxBytes)-byte playlist bound")
        }
        var lines = bytes.last == 0x0A || bytes.isEmpty ? 0 : 1
        for b in bytes where b == 0x0A { lines += 1 }
        guard lines <= maxLines else {
            throw PlaylistError(line: 0, "\(lines) lines, over the \(maxLines)-line playlist bound")
        }
    }
}

enum PlaylistLexer {
    /// Splits into lines at LF (a CR before the LF belongs to the terminator), checking the
    /// encoding rules of RFC 8216 §4.1.
    static func lines(_ bytes: [UInt8]) throws(PlaylistError) -> [PlaylistLine] {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { throw PlaylistError(line: 1, "starts with a byte order mark") }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw PlaylistError(line: 0, "not valid UTF-8") }
        var out: [PlaylistLine] = []
        var start = 0
        var number = 1
        var i = 0
        while i <= bytes.count {
            if i == bytes.count || bytes[i] == 0x0A {
                if i == bytes.count && start == i { break }
                var end = i
                var term = i == bytes.count ? "" : "\n"
                if i < bytes.count, end > start, bytes[end - 1] == 0x0D {
                    end -= 1
                    term = "\r\n"
                }
                let content = bytes[start..<end]
                if let bad = content.firstIndex(where: { isForbiddenControl($0) }) {
                    throw PlaylistError(line: number, "control character 0x\(Hex.encode([bytes[bad]])) at column \(bad - start + 1)")
                }
                out.append(PlaylistLine(number: number, text: String(decoding: content, as: UTF8.self), terminator: term))
                number += 1
                start = i + 1
            }
            i += 1
        }
        return out
    }

    /// RFC 8216 §4.1 forbids C0 and DEL controls other than CR and LF. TAB is allowed here as
    /// well: it appears in hand-made playlists and changes nothing this module interprets.
    /// A CR inside a line (not before its LF) is refused: readers disagree on it.
    private static func isForbiddenControl(_ c: UInt8) -> Bool {
        (c < 0x20 && c != 0x09) || c == 0x7F
    }

    /// "EXTINF" for "#EXTINF:4,", "EXT-X-ENDLIST" for "#EXT-X-ENDLIST"; nil for comments,
    /// URI lines and blank lines.
    static func tagName(_ text: String) -> String? {
        guard text.hasPrefix("#EXT") else { return nil }
        let body = text.dropFirst()
        if let colon = body.firstIndex(of: ":") { return String(body[..<colon]) }
        return String(body)
    }
}

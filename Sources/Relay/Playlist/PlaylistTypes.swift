// The values the parser hands out. Lines are kept verbatim (text and terminator), so a
// playlist serialises back to exactly the bytes it was parsed from.

public enum PlaylistKind: String, Sendable, Equatable {
    case media
    case multivariant
}

public struct PlaylistLine: Equatable, Sendable {
    /// 1-based.
    public let number: Int
    /// The line without its terminator.
    public let text: String
    /// "\n", "\r\n", or "" for a last line without one.
    public let terminator: String
}

/// A sub-range of a resource: `length` bytes from `offset`, offsets already made explicit
/// (an EXT-X-BYTERANGE without `@o` continues where the previous range of the same URI ended).
public struct ByteRange: Hashable, Sendable, CustomStringConvertible {
    public let offset: UInt64
    /// nil only for an EXT-X-PRELOAD-HINT with BYTERANGE-START and no BYTERANGE-LENGTH:
    /// from `offset` to the end of the resource.
    public let length: UInt64?

    /// nil when the range would end past 2^64 − 1, so `end` never overflows.
    public init?(offset: UInt64, length: UInt64?) {
        if let length, offset.addingReportingOverflow(length).overflow { return nil }
        self.offset = offset
        self.length = length
    }

    /// Exclusive end; nil when open-ended.
    public var end: UInt64? { length.map { offset + $0 } }

    public var description: String { length.map { "\($0)@\(offset)" } ?? "\(offset)-" }
}

/// Which tag (or line) a URI came from.
public enum ReferenceKind: String, Sendable, Equatable, CaseIterable {
    /// A media segment's URI line.
    case segment
    /// EXT-X-MAP URI (media initialization section).
    case map
    /// EXT-X-KEY URI.
    case key
    /// EXT-X-SESSION-KEY URI (multivariant).
    case sessionKey
    /// EXT-X-MEDIA URI (multivariant).
    case media
    /// EXT-X-I-FRAME-STREAM-INF URI (multivariant).
    case iFrameStream
    /// The URI line after EXT-X-STREAM-INF (multivariant).
    case variantStream
    /// EXT-X-SESSION-DATA URI (multivariant).
    case sessionData
    /// EXT-X-CONTENT-STEERING SERVER-URI (multivariant).
    case contentSteering
    /// EXT-X-PART URI.
    case part
    /// EXT-X-PRELOAD-HINT URI.
    case preloadHint
    /// EXT-X-RENDITION-REPORT URI.
    case renditionReport

    /// Whether the URI names another playlist (as opposed to media bytes or a key).
    public var isPlaylist: Bool {
        switch self {
        case .media, .iFrameStream, .variantStream, .renditionReport: return true
        default: return false
        }
    }
}

/// One URI written in the playlist, where it is written, and what range of it is meant.
public struct URIReference: Equatable, Sendable {
    public let kind: ReferenceKind
    /// Exactly as written (not resolved, not unescaped).
    public let uri: String
    /// 1-based line the URI is written on.
    public let line: Int
    /// nil: the whole resource.
    public let byteRange: ByteRange?
    /// For `.segment`: its media sequence number. For `.map` / `.key`: the sequence number of
    /// the first segment it applies to (nil when no segment follows). nil otherwise.
    public let sequence: UInt64?
    /// Where the URI sits in the line's UTF-8 bytes; nil: the whole line is the URI.
    let valueRange: Range<Int>?
}

/// One media segment with the effective state that applies to it (RFC 8216 §4.3.2).
public struct MediaSegment: Equatable, Sendable {
    public let sequence: UInt64
    public let discontinuitySequence: UInt64
    public let uri: String
    /// 1-based line of the URI.
    public let uriLine: Int
    /// The EXTINF value as written (duration and optional title).
    public let extinf: String
    public let byteRange: ByteRange?
    public let discontinuity: Bool
    public let gap: Bool
    /// The EXT-X-PROGRAM-DATE-TIME value written immediately for this segment, if any.
    public let programDateTime: String?
    /// The EXT-X-MAP in effect: its URI and range.
    public let mapURI: String?
    public let mapRange: ByteRange?
    /// Texts of the EXT-X-KEY tags in effect, in the order written.
    public let keys: [String]
    /// The EXT-X-BITRATE value in effect.
    public let bitrate: String?
}

/// The playlist-level facts of a media playlist.
public struct MediaPlaylistInfo: Equatable, Sendable {
    public let targetDuration: UInt64
    /// EXT-X-MEDIA-SEQUENCE, 0 when absent.
    public let mediaSequence: UInt64
    /// EXT-X-DISCONTINUITY-SEQUENCE, 0 when absent.
    public let discontinuitySequence: UInt64
    public let endList: Bool
    /// "VOD", "EVENT", or nil.
    public let playlistType: String?
    public let iFramesOnly: Bool
    /// Whether the playlist is a delta update (EXT-X-SKIP): it omits segments.
    public let hasSkip: Bool
    public let segments: [MediaSegment]
}

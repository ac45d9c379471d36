// Why sealing a folder failed. Each case names the file it is about.

public enum SealError: Error, Equatable, Sendable, CustomStringConvertible {
    case io(path: String, reason: String)
    case invalidPlaylist(path: String, error: PlaylistError)
    /// A URI the sealer must content-address that is not a plain relative path to a file in
    /// the folder (a scheme, an absolute path, a query, a '..' leaving the folder).
    case unsupportedURI(playlist: String, line: Int, uri: String, reason: String)
    case missingObject(playlist: String, line: Int, path: String)
    case badExtension(playlist: String, line: Int, uri: String)
    /// A live playlist addressing byte ranges of a file that is still growing.
    case liveByteRange(playlist: String, line: Int)
    case receipt(path: String, error: ReceiptError)
    /// This pass would publish a revision RFC 8216 §6.2.1 forbids after the last one
    /// published (ffmpeg restarted, or a playlist read mid-write); nothing was published.
    case wouldViolateRevisionRules(playlist: String, violation: RevisionViolation)
    case usage(String)

    public var description: String {
        switch self {
        case .io(let p, let r): return "\(p): \(r)"
        case .invalidPlaylist(let p, let e): return "\(p): \(e)"
        case .unsupportedURI(let p, let l, let u, let r): return "\(p):\(l): cannot seal URI '\(u)': \(r)"
        case .missingObject(let p, let l, let path): return "\(p):\(l): '\(path)' does not exist"
        case .badExtension(let p, let l, let u):
            return "\(p):\(l): '\(u)' has no extension of 1-16 letters or digits to keep (ffmpeg refuses segments without one)"
        case .liveByteRange(let p, let l): return "\(p):\(l): a live byte-range playlist points into a growing file, which cannot be content-addressed"
        case .receipt(let p, let e): return "\(p): \(e)"
        case .wouldViolateRevisionRules(let p, let v): return "\(p): not published, the new revision would break RFC 8216 §6.2.1: \(v)"
        case .usage(let m): return m
        }
    }
}

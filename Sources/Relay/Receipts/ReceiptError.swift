// Why a playlist was refused by ReceiptVerifier. Each case says what the relay records.

public enum ReceiptError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The last line is not an #EXT-X-WAI-RECEIPT line.
    case missingReceipt
    case malformedReceipt(String)
    /// 1-based line of a receipt line that is not the last line.
    case multipleReceipts(line: Int)
    case unsupportedVersion(String)
    /// Signed by a key other than the publisher's.
    case wrongKey(expected: String, got: String)
    /// The receipt is for another playlist.
    case wrongName(expected: String, got: String)
    /// The signature does not verify over these bytes: the playlist or receipt was changed.
    case badSignature
    /// The covered bytes are not a valid playlist.
    case invalidPlaylist(PlaylistError)
    /// A revision older than one already accepted.
    case replayedRevision(got: UInt64, latest: UInt64)
    /// A second, different revision with a number already accepted, or a next revision that
    /// does not chain to the one accepted before it.
    case forkedRevision(revision: UInt64, reason: String)
    /// Signed and chained, but the change is not one RFC 8216 §6.2.1 allows.
    case illegalChange(RevisionViolation)
    /// The first revision a session accepts of a live playlist is older than the bound (a
    /// replay of an old window), newer than the clock allows, or carries no TIME (version 1).
    /// `time` nil: no TIME. Seconds since the Unix epoch.
    case staleRevision(time: UInt64?, now: UInt64, maxAge: UInt64)
    /// Signing failed (sealer side).
    case signing(String)

    public var description: String {
        switch self {
        case .missingReceipt: return "no playlist receipt (the last line is not #EXT-X-WAI-RECEIPT)"
        case .malformedReceipt(let r): return "malformed playlist receipt: \(r)"
        case .multipleReceipts(let l): return "a second receipt line at line \(l); the receipt must be the only one and the last line"
        case .unsupportedVersion(let v): return "receipt VERSION \(v) is not supported (only 1 and 2)"
        case .wrongKey(let e, let g): return "receipt signed by key \(g), not the publisher's key \(e)"
        case .wrongName(let e, let g): return "receipt is for playlist '\(g)', not '\(e)'"
        case .badSignature: return "receipt signature does not verify: playlist or receipt altered"
        case .invalidPlaylist(let e): return "signed playlist is invalid: \(e)"
        case .replayedRevision(let g, let l): return "replayed revision \(g): revision \(l) was already accepted"
        case .forkedRevision(let r, let why): return "forked revision \(r): \(why)"
        case .illegalChange(let v): return "revision change not allowed by RFC 8216 §6.2.1: \(v)"
        case .staleRevision(let t, let now, let maxAge):
            guard let t else { return "live playlist's first revision carries no TIME (a VERSION 1 receipt): its freshness cannot be checked" }
            if t > now { return "receipt TIME \(t) is \(t - now) s ahead of this clock (\(now)); at most \(ReceiptFreshness.maxClockSkewSeconds) s allowed" }
            return "live playlist's first revision was sealed at \(t), \(now - t) s ago, over the \(maxAge) s bound (an old window replayed?)"
        case .signing(let m): return "cannot sign receipt: \(m)"
        }
    }
}

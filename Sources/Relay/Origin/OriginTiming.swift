// The origin's answer as the relay measured it: what CMCD v2 `rr` reports carry as `rc`,
// `ttfb` and `ttlb` (CTA-5004-B; docs/collector.md §CMCD rules).

/// Status and timing of one origin response received whole.
public struct OriginTiming: Sendable, Equatable {
    /// The HTTP status code of the final response (after redirects).
    public var status: Int
    /// Milliseconds (floored) from the start of the transfer to the first byte of the response.
    public var firstByteMs: Int64
    /// Milliseconds (floored) from the start of the transfer to its last byte; ≥ `firstByteMs`.
    public var lastByteMs: Int64

    public init(status: Int, firstByteMs: Int64, lastByteMs: Int64) {
        self.status = status
        self.firstByteMs = firstByteMs
        self.lastByteMs = lastByteMs
    }
}

// docs/receipts.md §4.2: a viewer joining a live stream must get the current window, not an
// old signed one replayed. The chain (§4) protects every later revision; only the first one a
// session accepts needs a clock.

import WaiSupport

public struct ReceiptFreshness: Sendable, Equatable {
    /// How far a receipt's TIME may lie ahead of this clock (clocks of publisher and viewer
    /// differ by this much at most).
    public static let maxClockSkewSeconds: UInt64 = 60
    /// The least bound on a first revision's age, whatever the target duration.
    public static let defaultMaxAgeSeconds: UInt64 = 60

    /// Seconds since the Unix epoch, now.
    public var now: UInt64
    /// The bound is max(this, 3 × EXT-X-TARGETDURATION): a packager publishes a revision at
    /// least once per target duration, and a CDN may hold one a little longer.
    public var maxAgeSeconds: UInt64

    /// `now` nil: this clock.
    public init(now: UInt64? = nil, maxAgeSeconds: UInt64 = ReceiptFreshness.defaultMaxAgeSeconds) {
        self.now = now ?? Self.clockSeconds()
        self.maxAgeSeconds = maxAgeSeconds
    }

    static func clockSeconds() -> UInt64 { UInt64(max(0, wallClockSeconds())) }

    /// The bound for `playlist`.
    public func bound(for playlist: Playlist) -> UInt64 {
        let td = playlist.media?.targetDuration ?? 0
        let (three, overflow) = td.multipliedReportingOverflow(by: 3)
        return max(maxAgeSeconds, overflow ? UInt64.max : three)
    }

    /// Only a live media playlist (no EXT-X-ENDLIST) is checked: a multivariant playlist and
    /// an ended one say the same whenever they are fetched.
    func check(_ receipt: PlaylistReceipt, _ playlist: Playlist) throws(ReceiptError) {
        guard let media = playlist.media, !media.endList else { return }
        let bound = bound(for: playlist)
        guard let t = receipt.time else { throw .staleRevision(time: nil, now: now, maxAge: bound) }
        if t > now {
            guard t - now <= Self.maxClockSkewSeconds else { throw .staleRevision(time: t, now: now, maxAge: bound) }
            return
        }
        guard now - t <= bound else { throw .staleRevision(time: t, now: now, maxAge: bound) }
    }
}

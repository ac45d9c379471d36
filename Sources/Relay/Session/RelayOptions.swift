// What one relay session checks and how much it may hold.

public struct RelayOptions: Sendable {
    /// Every playlist must verify against its receipt under `publisherKey` and, for a live
    /// playlist, against the session's chain of its revisions (docs/relay.md).
    public var requireSigned = false
    /// Every media object must be named by its SHA-256 and match it.
    public var contentAddressed = false
    /// The publisher's Ed25519 public key (32 bytes); required by `requireSigned`.
    public var publisherKey: [UInt8]? = nil
    /// 0 picks a free port.
    public var port: UInt16 = 0
    /// End the session when no player request arrived for this many seconds.
    public var idleAfterSeconds: Double? = nil
    /// Bound on the verified objects kept for the player (least recently used go first).
    public var cacheBytes = 256 << 20
    /// Origin timeouts and the per-object size bound.
    public var origin = OriginLimits()
    /// Origin fetches running at once; more requests wait for a slot. With the cache bound
    /// this bounds memory: about `cacheBytes` + this × `origin.maxObjectBytes` (docs/relay.md).
    public var maxConcurrentFetches = 16
    /// Bounds on each playlist fetched (bytes and lines); larger ones are withheld.
    public var playlistLimits = PlaylistLimits()
    /// With `requireSigned`: the first revision a session accepts of a live playlist must be
    /// at most max(this, 3 × target duration) seconds old (docs/receipts.md §4.2).
    public var maxFirstRevisionAgeSeconds: UInt64 = ReceiptFreshness.defaultMaxAgeSeconds
    /// Web origins (`scheme://host[:port]`, as browsers send in `Origin`) whose pages may
    /// read from the relay: CORS headers name only these. Empty: no page may; a request
    /// carrying any other `Origin` is refused (403).
    public var allowedWebOrigins: [String] = []
    /// Player connections and how long each may take (docs/relay.md, "Slow clients").
    public var connections = ConnectionLimits()
    /// When the player is given an object, fetch and check the next two objects its playlist
    /// lists, so those fetches overlap the send (docs/relay.md, "Throughput"). Each is reported
    /// to the observer only when the player asks for it.
    public var prefetchNext = true

    public init() {}
}

/// Why a session ended.
public enum EndReason: String, Sendable, Codable, Equatable {
    /// The application says the player is not visible to anyone.
    case notVisible = "not_visible"
    /// The application says the viewer is idle.
    case viewerIdle = "viewer_idle"
    /// No player request for `idleAfterSeconds`.
    case idleTimeout = "idle_timeout"
    /// The application closed the session.
    case closed
}

/// The player side's connections (docs/relay.md, "Slow clients").
public struct ConnectionLimits: Sendable, Equatable {
    /// Open player connections at most (one thread each); more are refused at accept.
    public var maxConnections: UInt32 = 128
    /// A connection with no traffic for this long is closed (libmicrohttpd's timeout).
    public var idleSeconds: UInt32 = 30
    /// Header and body deadlines per request, and the slots kept free; nil: none (only the
    /// idle timeout, as before issue 14; for comparison, not for use).
    public var deadlines: SlowClientDeadlines? = SlowClientDeadlines()
    public init() {}
}

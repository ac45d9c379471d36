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

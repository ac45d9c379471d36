// What the relay received from the origin and what it did with it, handed to an observer (the
// audit builds its acknowledgements on these).

/// One playlist revision or object the relay fetched, released or withheld.
public struct ObjectEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable { case playlist, object }

    public enum Outcome: Sendable, Equatable {
        /// Checked (receipt and chain, or content hash) and released.
        case verified
        /// Released without a check: the session does not require one for it.
        case relayed
        /// Not released; `reason` is the code sent in the X-Relay-Withheld header.
        case withheld(reason: String, detail: String)
    }

    /// The relay-local path the player asked for.
    public var localPath: String
    /// The origin URL fetched (as listed, CMCD removed), and where redirects ended.
    public var originURL: String
    public var effectiveURL: String?
    public var kind: Kind
    /// SHA-256 (hex) of the bytes received; nil when nothing was received.
    public var sha256: String?
    public var size: Int
    public var outcome: Outcome
    /// Seconds since the Unix epoch.
    public var time: Double
    /// The origin's status and timing when a response was received whole (also an HTTP error
    /// status); nil when the transfer failed or was stopped, or for an event not from a fetch.
    public var response: OriginTiming? = nil

    public var isWithheld: Bool {
        if case .withheld = outcome { return true }
        return false
    }
}

public protocol RelayObserver: AnyObject, Sendable {
    /// Called once per origin fetch, on the thread that served the request.
    func received(_ event: ObjectEvent)
    /// Called once when the session ends.
    func sessionEnded(_ reason: EndReason)
    /// Called after `received` for each playlist released to the player, with the bytes the
    /// origin sent (before rewriting) and the URL they came from (the audit finds ads here).
    func playlistReleased(_ event: ObjectEvent, body: [UInt8])
}

extension RelayObserver {
    public func sessionEnded(_ reason: EndReason) {}
    public func playlistReleased(_ event: ObjectEvent, body: [UInt8]) {}
}

// A bound on the request bodies a server holds at once, across all its connections: each
// upload reserves its declared length (or, chunked, what it has so far, twice over for the
// array's growth) before a byte is kept; past the budget the server answers 503 and reads
// the rest to drop it. The collector uses it so slow uploads cannot pile up memory.

import WaiSupport

public final class BodyBudget: @unchecked Sendable {
    public let limit: Int
    private let lock = Mutex()
    private var used = 0

    public init(limit: Int) { self.limit = limit }

    public var inUse: Int { lock.withLock { used } }

    /// False (nothing reserved) when `bytes` more would pass the limit.
    func reserve(_ bytes: Int) -> Bool {
        lock.withLock {
            guard bytes <= limit - used else { return false }
            used += bytes
            return true
        }
    }

    func release(_ bytes: Int) { lock.withLock { used -= bytes } }
}

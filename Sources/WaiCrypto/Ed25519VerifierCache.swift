// Verifiers kept for keys that sign again and again: every bundle a relay installation posts
// carries a binding signed by the same installation key, so the collector loads that key into
// OpenSSL once and keeps its initialised contexts (Ed25519Verifier), not once per bundle.
// Bounded: keys beyond `capacity` push out the oldest, so a stream of new keys costs what it
// did before and memory stays fixed.

import WaiSupport

public final class Ed25519VerifierCache: @unchecked Sendable {
    private let lock = Mutex()
    private var verifiers: [Ed25519PublicKey: Ed25519Verifier] = [:]
    private var order: [Ed25519PublicKey] = []
    public let capacity: Int

    public init(capacity: Int = 64) { self.capacity = max(1, capacity) }

    /// The collector's installation keys.
    public static let installations = Ed25519VerifierCache()

    /// The verifier for `key`, made (and kept) if it is not held yet.
    public func verifier(for key: Ed25519PublicKey) throws(CryptoError) -> Ed25519Verifier {
        if let held = lock.withLock({ verifiers[key] }) { return held }
        let made = try Ed25519Verifier(key)
        return lock.withLock {
            if let held = verifiers[key] { return held }
            if order.count >= capacity { verifiers[order.removeFirst()] = nil }
            verifiers[key] = made
            order.append(key)
            return made
        }
    }

    public var count: Int { lock.withLock { verifiers.count } }
}

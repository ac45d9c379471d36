// One object's bytes in one allocation that libcurl writes into, OpenSSL hashes and
// libmicrohttpd sends from, all without a copy of their own (docs/relay.md, "Throughput").
// Raw memory because those three are C libraries reading and writing it from their own
// threads; an Array would need a memset of every byte before the first write and could not
// be read by the hashing thread while the next chunk lands.

#if canImport(Glibc)
import Glibc
#endif

/// Grows only while it is being filled; once handed to the cache or a response it is not
/// changed again, so any number of readers may hold it.
public final class SharedBytes: @unchecked Sendable {
    private(set) var base: UnsafeMutableRawPointer?
    public private(set) var capacity = 0
    /// The first `count` bytes are the content.
    public private(set) var count = 0

    public init() {}

    /// A copy of `bytes` (tests, and bodies built in memory).
    public convenience init(_ bytes: [UInt8]) {
        self.init()
        if !bytes.isEmpty, reserve(bytes.count) {
            _ = bytes.withUnsafeBytes { append($0) }
        }
    }

    deinit {
        if let b = base { BufferPool.shared.give(b, capacity: capacity) }
    }

    /// Room for `n` bytes in all, keeping what is there; false when memory cannot be had.
    /// The first reservation takes a buffer an evicted object left (BufferPool) when one fits.
    @discardableResult
    func reserve(_ n: Int) -> Bool {
        guard n > capacity else { return true }
        if base == nil, let kept = BufferPool.shared.take(atLeast: n) {
            base = kept.base
            capacity = kept.capacity
            return true
        }
        guard let p = realloc(base, n) else { return false }
        base = p
        capacity = n
        return true
    }

    /// Appends within the capacity reserved; false when it does not fit.
    @discardableResult
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= capacity - count else { return false }
        if let src = bytes.baseAddress, let dst = base { memcpy(dst + count, src, bytes.count) }
        count += bytes.count
        return true
    }

    /// The content (or a part of it), read in place.
    public func withBytes<T>(_ range: Range<Int>? = nil, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let r = range ?? 0..<count
        precondition(r.lowerBound >= 0 && r.upperBound <= count, "SharedBytes: range \(r) outside 0..<\(count)")
        return try body(UnsafeRawBufferPointer(start: base.map { UnsafeRawPointer($0) + r.lowerBound }, count: r.count))
    }

    /// Bytes below the capacity, for a reader that runs while the writer appends past them
    /// (BodyHasher): checked against the capacity, which changes only while no reader runs.
    func withSpan<T>(_ r: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        precondition(r.lowerBound >= 0 && r.upperBound <= capacity, "SharedBytes: span \(r) outside 0..<\(capacity)")
        return try body(UnsafeRawBufferPointer(start: base.map { UnsafeRawPointer($0) + r.lowerBound }, count: r.count))
    }

    /// A copy as an array (playlists, which are parsed as arrays).
    public var array: [UInt8] { withBytes { Array($0) } }
}

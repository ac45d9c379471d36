import Foundation

/// A value shared between a test and the threads it starts: every read and change under one
/// lock, so a test never reads a result while another thread writes it.
public final class Locked<T>: @unchecked Sendable {
    private var v: T
    private let lock = NSLock()
    public init(_ v: T) { self.v = v }
    public var value: T { lock.lock(); defer { lock.unlock() }; return v }
    public func set(_ new: T) { lock.lock(); v = new; lock.unlock() }
    @discardableResult
    public func update<R>(_ f: (inout T) throws -> R) rethrows -> R { lock.lock(); defer { lock.unlock() }; return try f(&v) }
}

extension Locked where T: RangeReplaceableCollection {
    public func append(_ element: T.Element) { update { $0.append(element) } }
}

extension Locked where T == Int {
    /// The count before this call, then one more: 0, 1, 2… across threads.
    public func next() -> Int { update { n in n += 1; return n - 1 } }
}

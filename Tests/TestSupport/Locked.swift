import Foundation

/// A value shared between a test and the threads it starts: every read and change under one
/// lock, so a test never reads a result while another thread writes it.
public final class Locked<T>: @unchecked Sendable {
    private var v: T
    private let lock = NSLock()
    public init(_ v: T) { self.v = v }
    public var value: T { lock.lock(); defer { lock.unlock() }; return v }
    public func set(_ new: T) { lock.lock(); v = new; lock.unlock() }
    public func update(_ f: (inout T) -> Void) { lock.lock(); f(&v); lock.unlock() }
}

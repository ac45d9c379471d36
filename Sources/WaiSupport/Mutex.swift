#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain mutex, the one lock of the host, the relay and the audit. Plugin calls the
/// ABI's thread rules say may not overlap (docs/backend-abi.md §8) are serialised with it,
/// as are the relay's and the collector's state touched from libmicrohttpd's threads.
/// The pthread mutex lives in its own allocation: a `pthread_mutex_t` stored inline in a
/// Swift object has no stable address to hand to pthread.
public final class Mutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

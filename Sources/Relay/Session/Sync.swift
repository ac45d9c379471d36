// Blocking hand-offs between libmicrohttpd's connection threads.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A one-shot event: `wait` returns once `fire` has been called, before or after.
final class Signal: @unchecked Sendable {
    private let cond = NSCondition()
    private var fired = false

    func fire() {
        cond.lock()
        fired = true
        cond.broadcast()
        cond.unlock()
    }

    func wait() {
        cond.lock()
        while !fired { cond.wait() }
        cond.unlock()
    }
}

/// The outcome of one object's origin fetch, for the requests that arrived while it ran.
final class FetchWaiter: @unchecked Sendable {
    private let cond = NSCondition()
    private var outcome: RelaySession.Obtained?
    /// The event of a fetch ahead, for the requests that waited on it (set and read under
    /// the session's state lock): a request starting a fresh fetch meanwhile cannot take it.
    var pending: PendingEvent?

    func finish(_ o: RelaySession.Obtained) {
        cond.lock()
        outcome = o
        cond.broadcast()
        cond.unlock()
    }

    func wait() -> RelaySession.Obtained {
        cond.lock()
        defer { cond.unlock() }
        while outcome == nil { cond.wait() }
        return outcome ?? .ended
    }
}

/// Polls `tick` five times a second until it returns false.
final class IdleWatch: @unchecked Sendable {
    private let tick: @Sendable () -> Bool
    init(_ tick: @escaping @Sendable () -> Bool) { self.tick = tick }

    func start() {
        let t = Thread { [tick] in
            while tick() { usleep(200_000) }
        }
        t.start()
    }
}

/// An event of a fetch ahead, not yet given to the observer: the first request to get that
/// fetch's outcome (a waiter, or a later hit) reports it, once. Guarded by the session's state lock.
final class PendingEvent: @unchecked Sendable {
    let event: ObjectEvent
    private var claimed = false
    init(_ event: ObjectEvent) { self.event = event }

    /// The event the first time; nil after.
    func claim() -> ObjectEvent? {
        if claimed { return nil }
        claimed = true
        return event
    }
}

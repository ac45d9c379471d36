// Slow clients (slowloris): libmicrohttpd's connection timeout is an idle timeout, so a
// client sending one header byte now and then holds its connection, and its thread, for
// ever; enough of them fill the connection limit. This watch gives every request a deadline
// for its headers (counted from the connection opening or the previous response completing)
// and one for its body, and shuts down the socket of a connection past either. A connection
// whose request is being answered is never cut: the relay may wait on the origin.
// Deadlines alone leave the limit to whoever reconnects fastest, and on loopback every
// client has the same address, so a per-address limit cannot tell them apart: when a new
// connection leaves fewer than `reserve` slots free, the connection that has waited longest
// for its headers is cut. A player sends its headers in one packet, so its requests are never
// the ones waiting; only idle keep-alive connections and slow clients are.

import WaiSupport
#if canImport(Glibc)
import Glibc
#endif
import Foundation

public struct SlowClientDeadlines: Sendable, Equatable {
    /// Seconds from a connection opening (or its previous response completing) until the
    /// next request's headers are all in. Also what an idle keep-alive connection is given.
    public var headerSeconds: Double = 10
    /// Seconds for a request's body once its headers are in.
    public var bodySeconds: Double = 30
    /// Slots kept free by cutting the longest-waiting header-phase connection (0: none; at
    /// most a quarter of the connection limit).
    public var reserve = 8
    public init() {}
    public init(headerSeconds: Double, bodySeconds: Double, reserve: Int = 8) {
        self.headerSeconds = headerSeconds
        self.bodySeconds = bodySeconds
        self.reserve = reserve
    }
}

final class ConnectionWatch: @unchecked Sendable {
    enum Phase { case headers, body, answering }

    private struct Entry {
        let fd: Int32
        var phase: Phase
        var since: Double
        var cut = false
    }

    let deadlines: SlowClientDeadlines
    /// The server's connection limit.
    let limit: Int
    private let lock = Mutex()
    private var entries: [UInt: Entry] = [:]
    private var stopped = false
    private(set) var cutCount = 0

    init(_ deadlines: SlowClientDeadlines, limit: Int) {
        self.deadlines = deadlines
        self.limit = limit
    }

    func opened(_ connection: UInt, fd: Int32) {
        guard fd >= 0 else { return }
        lock.withLock {
            entries[connection] = Entry(fd: fd, phase: .headers, since: monotonicSeconds())
            // At most a quarter of the slots: a small limit must still leave most to players.
            let reserve = min(deadlines.reserve, limit / 4)
            let live = entries.values.filter { !$0.cut }.count
            guard reserve > 0, live > limit - reserve else { return }
            let waiting = entries.filter { $0.key != connection && !$0.value.cut && $0.value.phase == .headers }
            if let oldest = waiting.min(by: { $0.value.since < $1.value.since }) { cutLocked(oldest.key) }
        }
    }

    /// With the lock held. shutdown, not close: the descriptor stays libmicrohttpd's, its
    /// thread sees the end of the stream and closes the connection itself.
    private func cutLocked(_ key: UInt) {
        guard let e = entries[key], !e.cut else { return }
        shutdown(e.fd, Int32(SHUT_RDWR))
        entries[key]?.cut = true
        cutCount += 1
    }

    /// libmicrohttpd reports the close before it closes the socket, so the watch never shuts
    /// down a descriptor that was reused.
    func closed(_ connection: UInt) {
        lock.withLock { entries[connection] = nil }
    }

    func enter(_ connection: UInt, _ phase: Phase) {
        lock.withLock {
            guard var e = entries[connection], e.phase != phase else { return }
            e.phase = phase
            e.since = monotonicSeconds()
            entries[connection] = e
        }
    }

    /// How many connections were cut so far.
    var cut: Int { lock.withLock { cutCount } }

    func start() {
        let period = max(0.05, min(deadlines.headerSeconds, deadlines.bodySeconds) / 4)
        let t = Thread { [weak self] in
            while let s = self, s.sweep() {
                usleep(UInt32(period * 1_000_000))
            }
        }
        t.start()
    }

    func stop() { lock.withLock { stopped = true } }

    /// Shuts down every connection past its deadline; false once stopped.
    private func sweep() -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            let now = monotonicSeconds()
            for (k, e) in entries where !e.cut {
                let limit: Double
                switch e.phase {
                case .headers: limit = deadlines.headerSeconds
                case .body: limit = deadlines.bodySeconds
                case .answering: continue
                }
                guard now - e.since > limit else { continue }
                cutLocked(k)
            }
            return true
        }
    }
}

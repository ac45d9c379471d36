// CMCD v2 event mode as the relay reports a session (CTA-5004-B §3.4; rules and sections in
// docs/collector.md §CMCD rules): `ps` on each real play-state change, `e` with `ec` when an
// object is withheld, `rr` with `url`, `rc`, `ttfb` and `ttlb` for each origin response received,
// `t` every interval. Every
// report carries `e`, `sid` (a quoted string), `ts` (ms), `v=2`, `sf=h`; `msd` once, on the
// first `ps` playing. `sn` is not set here: it counts per reporting target (CMCDSender).

import Foundation
import Relay

/// One CMCD value as RFC 8941 writes it.
public enum CMCDItem: Equatable, Sendable {
    case integer(Int64)
    case token(String)
    case string(String)
    case stringList([String])

    /// sf-integer, sf-token, sf-string (printable ASCII; `"` and `\` escaped, anything else
    /// percent-encoded so a URL survives), or an inner list of strings.
    public var serialized: String {
        switch self {
        case .integer(let n): return String(n)
        case .token(let t): return t
        case .string(let s): return Self.quoted(s)
        case .stringList(let l): return "(" + l.map(Self.quoted).joined(separator: " ") + ")"
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for b in s.utf8 {
            switch b {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(b))
            default: out += String(format: "%%%02X", b)
            }
        }
        return out + "\""
    }
}

/// One event-mode report without its sequence number.
public struct CMCDEvent: Equatable, Sendable {
    public var keys: [String: CMCDItem]

    /// The report line for a target: keys sorted (CTA-5004 §3.2), `sn` added.
    public func line(sn: Int64) -> String {
        var k = keys
        k["sn"] = .integer(sn)
        return k.keys.sorted().map { $0 + "=" + (k[$0]?.serialized ?? "") }.joined(separator: ",")
    }

    public var type: String? {
        if case .token(let t)? = keys["e"] { return t }
        return nil
    }
}

/// Player states of CTA-5004-B `sta` the relay can know.
public enum CMCDPlayState: String, Sendable {
    case starting = "s", playing = "p", ended = "e"
}

final class CMCDEvents: @unchecked Sendable {
    private let sessionId: String
    private let startMs: Int64
    private let emit: @Sendable (CMCDEvent) -> Void
    private let cond = NSCondition()
    private var state: CMCDPlayState?
    private var sentStartDelay = false
    private var stopped = false

    /// `intervalSeconds`: a `t` report that often while the session runs (nil: none).
    init(sessionId: String, startMs: Int64, intervalSeconds: Double?, emit: @escaping @Sendable (CMCDEvent) -> Void) {
        self.sessionId = sessionId
        self.startMs = startMs
        self.emit = emit
        if let s = intervalSeconds, s > 0 {
            Thread { [weak self] in self?.tick(every: s) }.start()
        }
    }

    private func base(_ type: String) -> [String: CMCDItem] {
        ["e": .token(type), "sid": .string(sessionId), "ts": .integer(AuditChain.nowMs()), "v": .integer(2), "sf": .token("h")]
    }

    /// `ps`, only when the state really changes.
    func playState(_ s: CMCDPlayState) {
        cond.lock()
        guard state != s, !stopped else { cond.unlock(); return }
        state = s
        var k = base("ps")
        k["sta"] = .token(s.rawValue)
        if s == .playing, !sentStartDelay {
            sentStartDelay = true
            k["msd"] = .integer(max(0, AuditChain.nowMs() - startMs))
        }
        if s == .ended { stopped = true; cond.broadcast() }
        emit(CMCDEvent(keys: k))
        cond.unlock()
    }

    /// `e` with the error codes (the relay's withhold code).
    func error(_ codes: [String]) {
        var k = base("e")
        k["ec"] = .stringList(codes)
        emitIfRunning(k)
    }

    /// `rr`: a response received from the origin for `url`, with its status and curl's timers.
    func responseReceived(url: String, playlist: Bool, response: OriginTiming) {
        var k = base("rr")
        k["rc"] = .integer(Int64(max(0, response.status)))
        k["ttfb"] = .integer(max(0, response.firstByteMs))
        k["ttlb"] = .integer(max(0, response.lastByteMs))
        // A URL longer than this is cut: the report stays under the collector's 8 KiB a line.
        k["url"] = .string(String(decoding: Array(url.utf8.prefix(2048)), as: UTF8.self))
        if playlist { k["ot"] = .token("m") }
        emitIfRunning(k)
    }

    /// Emits under the lock, so no report follows the `ended` one and the order is the order
    /// of the calls. (The receivers only queue; they never call back.)
    private func emitIfRunning(_ k: [String: CMCDItem]) {
        cond.lock()
        defer { cond.unlock() }
        guard !stopped else { return }
        emit(CMCDEvent(keys: k))
    }

    private func tick(every seconds: Double) {
        cond.lock()
        while !stopped {
            if !cond.wait(until: Date().addingTimeInterval(seconds)) {
                guard !stopped else { break }
                emit(CMCDEvent(keys: base("t")))
            }
        }
        cond.unlock()
    }

    func stop() {
        cond.lock()
        stopped = true
        cond.broadcast()
        cond.unlock()
    }
}

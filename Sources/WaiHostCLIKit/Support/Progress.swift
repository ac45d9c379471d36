import WaiSupport
#if canImport(Glibc)
import Glibc
#endif

/// Progress of a long operation on standard error (docs/cli.md, "Progress"): on a terminal
/// one line redrawn in place with the phase, percent and ETA; otherwise (a pipe, a log file)
/// one line per phase and nothing in between, so logs stay short.
final class Progress {
    private let terminal: Bool
    private let enabled: Bool
    private let write: (String) -> Void
    private let clock: () -> Double
    private var phase: String?
    private var phaseStart = 0.0
    private var lastDraw = -1.0
    private var drawn = false

    /// Whether standard error is a terminal (progress redrawn in place).
    var isTerminal: Bool { terminal }

    /// `clock` is in milliseconds; tests give their own with `write` to see what is drawn.
    init(enabled: Bool = true, terminal: Bool = isatty(2) == 1,
         write: @escaping (String) -> Void = { s in _ = s.withCString { fputs($0, stderr) }; fflush(stderr) },
         clock: @escaping () -> Double = monotonicMilliseconds) {
        self.enabled = enabled; self.terminal = terminal; self.write = write; self.clock = clock
    }

    /// Starts a phase ("decoding on cpu:0"): printed as a line of its own.
    func begin(_ name: String) {
        guard enabled else { return }
        clearLine()
        phase = name
        phaseStart = clock()
        lastDraw = -1
        if terminal {
            draw(name)
        } else {
            write(name + "\n")
        }
    }

    /// `done` of `total` steps of the current phase: on a terminal, percent and the time
    /// left at the rate so far (redrawn at most ten times a second); elsewhere nothing.
    func update(_ done: Int, of total: Int, detail: String? = nil) {
        guard enabled, terminal, let phase, total > 0 else { return }
        let now = clock()
        guard done >= total || lastDraw < 0 || now - lastDraw >= 100 else { return }
        lastDraw = now
        draw(Self.status(phase: phase, done: done, total: total, elapsedMs: now - phaseStart, detail: detail))
    }

    /// A line that is not progress (a warning, a result): printed whole, never overdrawn.
    func note(_ line: String) {
        guard enabled else { return }
        clearLine()
        write(line + "\n")
        if terminal, let phase { draw(phase) }
    }

    /// Ends the current phase; the terminal line is kept as it was last drawn.
    func end() {
        guard enabled else { return }
        if terminal, drawn { write("\n") }
        drawn = false
        phase = nil
    }

    /// "decoding on cpu:0  42%  ETA 0:07  (h_s)".
    static func status(phase: String, done: Int, total: Int, elapsedMs: Double, detail: String?) -> String {
        let clamped = min(max(done, 0), total)
        let percent = clamped * 100 / total
        var s = "\(phase)  \(percent)%"
        if clamped > 0, clamped < total {
            let left = elapsedMs / Double(clamped) * Double(total - clamped) / 1000
            s += "  ETA " + duration(left)
        }
        if let detail { s += "  (" + detail + ")" }
        return s
    }

    /// "0:07", "12:30", "1:02:03".
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        let two: (Int) -> String = { $0 < 10 ? "0\($0)" : "\($0)" }
        return s >= 3600 ? "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
    }

    private func draw(_ text: String) {
        write("\r\u{1B}[K" + text)
        drawn = true
    }

    private func clearLine() {
        if terminal, drawn { write("\r\u{1B}[K") }
        drawn = false
    }
}

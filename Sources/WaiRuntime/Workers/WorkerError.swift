/// How a unit worker ended a request it did not answer (docs/probe.md §3). Each names the
/// request that was in flight and quotes the worker's last log lines (the plugin's own
/// stdout and stderr, and the backtrace the worker writes when it dies of a signal).
public struct WorkerDeath: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Cause: Equatable, Sendable {
        case signaled(Int32)
        case exited(Int32)
        case timedOut(seconds: Double)
        /// The worker sent something that is not a reply of the protocol; it was killed.
        case protocolViolation(String)
    }

    public var cause: Cause
    /// What the host had asked for, e.g. "graph_run of graph 3 nodes (conv2d, …)".
    public var request: String
    public var log: [String]

    public var description: String {
        var s: String
        switch cause {
        case .signaled(let sig):
            s = "crashed: signal \(sig) (\(Subprocess.signalName(sig))) during \(request)"
        case .exited(let code):
            s = "the unit worker exited with status \(code) during \(request)"
        case .timedOut(let t):
            s = "timed out after \(Self.seconds(t)) during \(request) (the unit worker was killed)"
        case .protocolViolation(let what):
            s = "the unit worker broke the protocol during \(request) (\(what)); it was killed"
        }
        if !log.isEmpty { s += "; worker log: " + log.joined(separator: " | ") }
        return s
    }

    static func seconds(_ t: Double) -> String { t == t.rounded() ? "\(Int(t))s" : "\(t)s" }
}

/// Why a unit could not be reached through its worker.
public enum WorkerError: Error, Equatable, CustomStringConvertible {
    /// No worker executable was found (HostConfiguration.unitWorkerExecutable is nil).
    case noWorkerExecutable
    case spawnFailed(executable: String, reason: String)
    /// The worker crashed, hung, exited or broke the protocol.
    case died(WorkerDeath)
    /// The worker answered the request with an error: the plugin's status and message, or
    /// why the worker could not carry the request out.
    case refused(String)
    /// The worker of this plugin died too often in this host; it is not started again.
    case restartLimit(path: String, starts: Int, last: String)

    public var description: String {
        switch self {
        case .noWorkerExecutable:
            return "no unit worker executable (set WAIHOST_UNIT_WORKER to waihost-unit-worker, or install it beside the program or library)"
        case let .spawnFailed(executable, reason):
            return "the unit worker \(executable) could not be started: \(reason)"
        case .died(let death):
            return death.description
        case .refused(let message):
            return message
        case let .restartLimit(path, starts, last):
            return "the unit worker of \(path) was started \(starts) times and died each time; not started again (last: \(last))"
        }
    }
}

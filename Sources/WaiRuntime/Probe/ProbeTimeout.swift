/// A rejection because the unit ran past the probe's time limit (docs/probe.md §5,
/// "Time-outs"). A time-out is not a wrong result: a driver compiling its kernels for the
/// first time on a loaded machine looks the same as a hang from outside. So the verdict is
/// cached with a bound: the unit is probed again by the next probes until it has timed out
/// `limit` probes in a row under the same cache key; then the rejection is final (until
/// `--fresh` or a new key), so a plugin that always hangs costs at most `limit` time limits.
public struct ProbeTimeout: Codable, Sendable, Equatable {
    /// Whether a later probe probes the unit again.
    public enum Retry: String, Codable, Sendable {
        /// The next probe (without `--fresh`) probes the unit again.
        case nextProbe = "next_probe"
        /// The bound is reached: the cached rejection is used until `--fresh` or a new key.
        case never
    }

    /// Consecutive probes that may time out before the rejection is final.
    public static let limit = 3

    /// The time limit the unit ran past, in seconds.
    public var seconds: Double
    /// Which consecutive time-out this was (1 = the first) under this cache key.
    public var attempt: Int
    /// `limit` when it was recorded, so the file says what bound it was judged by.
    public var attempts: Int
    public var retry: Retry

    public init(seconds: Double, attempt: Int, attempts: Int = ProbeTimeout.limit) {
        self.seconds = seconds; self.attempt = attempt; self.attempts = attempts
        retry = attempt < attempts ? .nextProbe : .never
    }

    /// How `waihost probe` says it: which time-out this was and when the unit is tried again.
    public var summary: String {
        let count = "time-out \(attempt) of \(attempts)"
        switch retry {
        case .nextProbe: return count + ": probed again by the next probe"
        case .never: return count + ": not probed again until 'waihost probe --fresh'"
        }
    }

    /// The time limit of a worker death that was one, else nil.
    static func seconds(of error: Error) -> Double? {
        if case WorkerError.died(let death) = error, case .timedOut(let s) = death.cause { return s }
        return nil
    }
}

/// A unit whose calls are watched for time-outs: the probe's rejections carry the failing
/// call only as text, so the runner learns here whether the probe ended in a time-out.
final class TimeoutWatch: GraphUnit, @unchecked Sendable {
    private let inner: any GraphUnit
    private let lock = Mutex()
    private var limit: Double?

    init(_ inner: any GraphUnit) { self.inner = inner }

    /// The time limit a call of this unit ran past, when one did.
    var timedOut: Double? { lock.withLock { limit } }

    func note(_ error: Error) {
        guard let s = ProbeTimeout.seconds(of: error) else { return }
        lock.withLock { if limit == nil { limit = s } }
    }

    func prepare(_ graph: IntegerGraph) throws -> any PreparedGraphRun {
        do { return Watched(try inner.prepare(graph), watch: self) } catch { note(error); throw error }
    }

    private final class Watched: PreparedGraphRun, @unchecked Sendable {
        let inner: any PreparedGraphRun
        let watch: TimeoutWatch
        init(_ inner: any PreparedGraphRun, watch: TimeoutWatch) { self.inner = inner; self.watch = watch }

        func run(_ inputs: [TensorValue]) throws -> [TensorValue] {
            do { return try inner.run(inputs) } catch { watch.note(error); throw error }
        }

        // Forwarded, not the extension's default: the worker's own stamps are what the
        // concurrent rounds compare.
        func timedRun(_ inputs: [TensorValue]) throws -> TimedRun {
            do { return try inner.timedRun(inputs) } catch { watch.note(error); throw error }
        }
    }
}

/// A worker unit whose first graph_prepare in a probe has the longer limit
/// `probePrepareTimeout` (docs/probe.md §3): drivers build their programs there, and a
/// build killed at the limit leaves their caches empty, so the next probe would time out
/// the same way. Every later prepare and every run has the probe's own limit.
final class FirstPrepareAllowance: GraphUnit, @unchecked Sendable {
    private let unit: WorkerUnit
    private let allowance: Double
    private let lock = Mutex()
    private var first = true

    init(_ unit: WorkerUnit, allowance: Double) {
        self.unit = unit; self.allowance = max(allowance, unit.timeout)
    }

    func prepare(_ graph: IntegerGraph) throws -> any PreparedGraphRun {
        let isFirst = lock.withLock { () -> Bool in defer { first = false }; return first }
        return try unit.prepare(graph, name: nil, prepareTimeout: isFirst ? allowance : unit.timeout)
    }
}

import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The reference side of one run's spot check (docs/probe.md §7). The windows need only
/// the run's inputs, so helper threads start on them at once — beside the unit's run when
/// it leaves the host's cores idle (a GPU unit), or after it — and `finish` computes every
/// window no helper has taken yet on the calling thread itself before it waits for the
/// rest: on a loaded machine a helper may not be scheduled for milliseconds, and the run
/// then waits only for work, never for a wake-up. `finish` compares the windows with what
/// the unit returned; BackendHost.run returns the run's outputs only after it, so when the
/// work is done changes, never what is returned.
final class PendingSpotCheck: @unchecked Sendable {
    let graph: IntegerGraph
    let jobs: [SpotCheck.Job]
    private let inputs: [TensorValue]
    private let cache: WindowCache?
    private let group = DispatchGroup()
    private let state: ParallelState<Result<WindowValue, Error>>
    private let cpu: ParallelState<Double>

    /// `graph` validated and `inputs` inside its contract (BackendHost.run checked both).
    /// `helpers`: threads that start on the windows now (the caller of `finish` is one more).
    init(graph: IntegerGraph, inputs: [TensorValue], jobs: [SpotCheck.Job], cache: WindowCache?, helpers: Int) {
        self.graph = graph
        self.jobs = jobs
        self.inputs = inputs
        self.cache = cache
        state = ParallelState(count: jobs.count)
        cpu = ParallelState(count: jobs.count)
        for _ in 0..<max(0, min(helpers, jobs.count)) {
            DispatchQueue.global().async(group: group) { self.work() }
        }
    }

    /// Claims the next window until none is left (or the check was dropped).
    private func work() {
        while let i = state.claim() {
            let job = jobs[i]
            let start = Self.threadCPU()
            state.store(Result { try RegionEngine.evaluateChecked(graph, inputs: inputs, output: job.tensor,
                                                                  window: job.window, cache: cache) }, at: i)
            cpu.store(Self.threadCPU() - start, at: i)
        }
    }

    /// Computes the windows no helper took, waits for the others, then the first difference
    /// from `outputs` (nil when all match).
    func finish(outputs: [TensorValue], graphName: String) throws -> ProbeMismatch? {
        work()
        group.wait()
        return try SpotCheck.compare(graph, jobs: jobs, expected: state.results(), outputs: outputs, graphName: graphName)
    }

    /// The CPU time of every window (milliseconds, all threads); only after `finish`.
    var cpuMilliseconds: Double { cpu.results().reduce(0, +) }

    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    /// The run will not be compared (the unit failed): windows not yet started are skipped.
    func cancel() { state.cancel() }
}

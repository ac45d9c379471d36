import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The reference side of one run's spot check (docs/probe.md §7), computed on every core
/// while the unit runs: the windows need only the run's inputs, and the host would
/// otherwise wait idle for the unit's answer (all of a GPU unit's run, and whatever
/// share of the cores a CPU unit leaves free). `finish` waits for the windows and compares
/// them with what the unit returned; the run's outputs are returned by BackendHost.run
/// only after it, so the overlap changes when the work is done, never what is returned.
final class PendingSpotCheck: @unchecked Sendable {
    let graph: IntegerGraph
    let jobs: [SpotCheck.Job]
    private let group = DispatchGroup()
    private let state: ParallelState<Result<WindowValue, Error>>
    private let cpu: ParallelState<Double>

    /// `graph` validated and `inputs` inside its contract (BackendHost.run checked both).
    init(graph: IntegerGraph, inputs: [TensorValue], jobs: [SpotCheck.Job], cache: WindowCache?) {
        self.graph = graph
        self.jobs = jobs
        let state = ParallelState<Result<WindowValue, Error>>(count: jobs.count)
        let cpu = ParallelState<Double>(count: jobs.count)
        self.state = state
        self.cpu = cpu
        // Each thread claims the next window until none is left (or the check is dropped).
        for _ in 0..<min(HostConfiguration.coreCount, jobs.count) {
            DispatchQueue.global().async(group: group) {
                while let i = state.claim() {
                    let job = jobs[i]
                    let start = Self.threadCPU()
                    state.store(Result { try RegionEngine.evaluateChecked(graph, inputs: inputs, output: job.tensor,
                                                                          window: job.window, cache: cache) }, at: i)
                    cpu.store(Self.threadCPU() - start, at: i)
                }
            }
        }
    }

    /// Waits for every window, then the first difference from `outputs` (nil when all match).
    func finish(outputs: [TensorValue], graphName: String) throws -> ProbeMismatch? {
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

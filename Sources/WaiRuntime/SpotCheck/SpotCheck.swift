/// Spot checks of a unit's real runs (docs/probe.md §7): for every output of the graph, the
/// window at the end of every axis (the bottom-right corner, where tails and partial tiles
/// live) and a few random interior windows are recomputed on the reference from the run's
/// own inputs through the region engine, and compared for equality with what the unit
/// returned.
public enum SpotCheck {
    /// Rows and columns of the corner window (fewer where the tensor is smaller): wide
    /// enough to reach into the last partial vector or tile of every axis.
    public static let windowSize = 4
    /// Rows and columns of each random interior window. Smaller than the corner: what they
    /// look for (a wrong position anywhere) needs a position, not a tail, and a window's
    /// cost through a deep graph grows with its size at every layer.
    public static let interiorWindowSize = 2
    /// Random windows per output, besides the corner.
    public static let interiorWindows = 2

    /// The corner window and `interiorWindows` random ones of a tensor of `shape`.
    static func windows(_ shape: Shape, rng: inout SplitMix64) -> [Window] {
        let h = min(windowSize, shape.height), w = min(windowSize, shape.width)
        var result = [Window(rows: (shape.height - h)..<shape.height, cols: (shape.width - w)..<shape.width)]
        let ih = min(interiorWindowSize, shape.height), iw = min(interiorWindowSize, shape.width)
        for _ in 0..<interiorWindows {
            let i = rng.int(0...(shape.height - ih)), j = rng.int(0...(shape.width - iw))
            result.append(Window(rows: i..<(i + ih), cols: j..<(j + iw)))
        }
        return result
    }

    /// One window to recompute: of graph tensor `tensor`, the graph's `output`-th output.
    struct Job: Sendable {
        var tensor: Int
        var output: Int
        var window: Window
    }

    /// The windows of every output of `graph`, drawn from `rng`.
    static func jobs(_ graph: IntegerGraph, rng: inout SplitMix64) -> [Job] {
        var jobs: [Job] = []
        for (k, t) in graph.outputs.enumerated() {
            for window in windows(graph.tensors[t].shape, rng: &rng) { jobs.append(Job(tensor: t, output: k, window: window)) }
        }
        return jobs
    }

    /// Starts recomputing the windows from the run's inputs, on every core, and returns at
    /// once: the reference side needs only the inputs, so it runs while the unit runs
    /// (BackendHost.run), and `PendingSpotCheck.finish` compares once the unit has answered.
    /// The graph must be validated and the inputs inside its contract (checked once per run,
    /// not once per window).
    /// `besideRun`: the caller will wait for a unit's run before `finish`, so every core
    /// gets a helper; otherwise the caller is one of them.
    static func start(_ graph: IntegerGraph, inputs: [TensorValue], rng: inout SplitMix64,
                      cache: WindowCache? = nil, besideRun: Bool = false) -> PendingSpotCheck {
        let cores = HostConfiguration.coreCount
        return PendingSpotCheck(graph: graph, inputs: inputs, jobs: jobs(graph, rng: &rng), cache: cache,
                                helpers: besideRun ? cores : cores - 1)
    }

    /// The first difference in the checked windows, or nil when they all match.
    /// `graphName` and `stage` label the mismatch as a report shows it.
    public static func check(_ graph: IntegerGraph, inputs: [TensorValue], outputs: [TensorValue],
                             graphName: String, rng: inout SplitMix64, cache: WindowCache? = nil) throws -> ProbeMismatch? {
        try GraphStructure.validate(graph)
        try checkInputContract(graph, inputs)
        return try start(graph, inputs: inputs, rng: &rng, cache: cache).finish(outputs: outputs, graphName: graphName)
    }

    /// The first element of `jobs`' windows where `outputs` differs from `expected`, in
    /// job order (so the mismatch reported does not depend on which window finished first).
    static func compare(_ graph: IntegerGraph, jobs: [Job], expected values: [Result<WindowValue, Error>],
                        outputs: [TensorValue], graphName: String) throws -> ProbeMismatch? {
        for (k, t) in graph.outputs.enumerated() {
            let shape = graph.tensors[t].shape
            guard k < outputs.count, outputs[k].shape == shape, outputs[k].values.count == shape.count else {
                let got = k < outputs.count ? "shape \(outputs[k].shape) returned" : "no output returned"
                return ProbeMismatch(stage: stage, graph: graphName, op: .output, node: -1, tensor: graph.tensors[t].name,
                                     index: 0, channel: 0, y: 0, x: 0, expected: 0, got: 0,
                                     parameters: "\(got), \(shape) expected")
            }
        }
        for (job, value) in zip(jobs, values) {
            let t = job.tensor, window = job.window, got = outputs[job.output]
            let shape = graph.tensors[t].shape
            let expected = try value.get()
            let plane = shape.height * shape.width
            for c in 0..<shape.channels {
                for i in window.rows {
                    for j in window.cols {
                        let index = c * plane + i * shape.width + j
                        let e = expected.at(c, i, j), g = got.values[index]
                        if e != g {
                            return ExactnessProbe.mismatch(graph: graph, tensor: t, caseName: graphName, stage: stage,
                                                           index: index, expected: e, got: g)
                        }
                    }
                }
            }
        }
        return nil
    }

    /// The stage a spot-check demotion is reported in.
    public static let stage = VerdictStage.runtime
}

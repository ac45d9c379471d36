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

    /// The first difference in the checked windows, or nil when they all match.
    /// `graphName` and `stage` label the mismatch as a report shows it.
    public static func check(_ graph: IntegerGraph, inputs: [TensorValue], outputs: [TensorValue],
                             graphName: String, rng: inout SplitMix64, cache: WindowCache? = nil) throws -> ProbeMismatch? {
        var jobs: [(tensor: Int, output: Int, window: Window)] = []
        for (k, t) in graph.outputs.enumerated() where k < outputs.count {
            let got = outputs[k]
            let shape = graph.tensors[t].shape
            guard got.shape == shape, got.values.count == shape.count else {
                return ProbeMismatch(stage: stage, graph: graphName, op: "output", node: -1, tensor: graph.tensors[t].name,
                                     index: 0, channel: 0, y: 0, x: 0, expected: 0, got: 0,
                                     parameters: "shape \(got.shape) returned, \(shape) expected")
            }
            for window in windows(shape, rng: &rng) { jobs.append((t, k, window)) }
        }
        // The windows are independent reference computations, run on every core (the unit's
        // run is over, so the cores are free); compared in order, so the mismatch reported is
        // the same whatever finishes first.
        let values = parallelMap(jobs, width: HostConfiguration.coreCount) { job in
            Result { try RegionEngine.evaluate(graph, inputs: inputs, output: job.tensor, window: job.window, cache: cache) }
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
    public static let stage = "runtime"
}

/// A spatial window of a tensor: rows × columns, always with every channel (inverse GDN
/// and convolutions mix channels, so a window never cuts across them).
public struct Window: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var rows: Range<Int>
    public var cols: Range<Int>

    public init(rows: Range<Int>, cols: Range<Int>) { self.rows = rows; self.cols = cols }

    public var isEmpty: Bool { rows.isEmpty || cols.isEmpty }
    public var description: String { "rows \(rows.lowerBound)..<\(rows.upperBound), cols \(cols.lowerBound)..<\(cols.upperBound)" }

    /// The smallest window holding both (an empty window adds nothing).
    func union(_ other: Window) -> Window {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return Window(rows: min(rows.lowerBound, other.rows.lowerBound)..<max(rows.upperBound, other.rows.upperBound),
                      cols: min(cols.lowerBound, other.cols.lowerBound)..<max(cols.upperBound, other.cols.upperBound))
    }
}

/// The values of a window of a tensor: every channel, rows × cols of it, CHW.
public struct WindowValue: Equatable, Sendable {
    public var window: Window
    public var channels: Int
    public var values: [Int32]

    package init(window: Window, channels: Int, values: [Int32]) {
        self.window = window; self.channels = channels; self.values = values
    }

    public var shape: Shape { Shape(channels, window.rows.count, window.cols.count) }

    /// The element at tensor coordinates (c, i, j), which must lie in the window.
    package func at(_ c: Int, _ i: Int, _ j: Int) -> Int32 {
        values[(c * window.rows.count + i - window.rows.lowerBound) * window.cols.count + j - window.cols.lowerBound]
    }

    /// The sub-window `w` (inside this one) as a dense CHW array.
    package func crop(_ w: Window) -> [Int32] {
        if w == window { return values }
        var out: [Int32] = []
        out.reserveCapacity(channels * w.rows.count * w.cols.count)
        let rowLength = window.cols.count
        for c in 0..<channels {
            for i in w.rows {
                let base = (c * window.rows.count + i - window.rows.lowerBound) * rowLength - window.cols.lowerBound
                out.append(contentsOf: values[(base + w.cols.lowerBound)..<(base + w.cols.upperBound)])
            }
        }
        return out
    }
}

/// The region machinery (docs/probe.md §7): which window of each tensor determines a window
/// of an output (every op of docs/integer-ops.md is spatially local but the warp, whose
/// volume is needed where the flows point: whole when planning, where the window's flow
/// values reach when evaluating), and the graph
/// evaluated on those windows alone, with exact borders — zero padding where a window
/// meets the tensor's edge, real neighbours everywhere else — so its values equal the
/// same elements of a whole-tensor run of the reference interpreter. Spot checks use it on
/// every run; tiled decoding of large pictures uses the same engine.
public enum RegionEngine {
    /// For each tensor, the window of it that `window` of tensor `output` depends on (nil
    /// where it depends on none of it).
    public static func requiredWindows(_ graph: IntegerGraph, output: Int, window: Window) -> [Window?] {
        requiredWindows(graph, extents: graph.tensors.map { Extent(height: $0.shape.height, width: $0.shape.width) },
                        output: output, window: window)
    }

    /// The same with every tensor's spatial extent given (`SpatialExtents`), so a picture
    /// whose whole graph exceeds 2^28 elements per tensor can still be planned in tiles.
    package static func requiredWindows(_ graph: IntegerGraph, extents: [Extent], output: Int, window: Window) -> [Window?] {
        requiredWindows(graph, extents: extents, output: output, window: window, reach: nil)
    }

    /// `reach` nil: the static plan, every warp's volume whole. Otherwise the plan of a
    /// window evaluation: warp node k's volume window is `reach[k]` (what its flows reach,
    /// computed from flow values), and where that is not known yet, the volume is not needed.
    static func requiredWindows(_ graph: IntegerGraph, extents: [Extent], output: Int, window: Window,
                                reach: [Int: Reach]?) -> [Window?] {
        var need = [Window?](repeating: nil, count: graph.tensors.count)
        need[output] = window
        for (k, node) in graph.nodes.enumerated().reversed() {
            guard let w = need[node.output] else { continue }
            for (operand, t) in node.inputs.enumerated() {
                let inWindow: Window
                if case .warp = node.op, operand == 0, let reach {
                    guard let known = reach[k], known.output == w else { continue }
                    inWindow = known.volume
                } else {
                    inWindow = inputWindow(node.op, output: w, input: extents[t], operand: operand)
                }
                need[t] = need[t].map { $0.union(inWindow) } ?? inWindow
            }
        }
        return need
    }

    /// The volume window a warp's flows reach, for the output window they were read at.
    struct Reach {
        var output: Window
        var volume: Window
    }

    /// The window of an input of `op` that output window `w` depends on, clipped to the
    /// input's extent (outside it is zero padding, computed, never read).
    static func inputWindow(_ op: Op, output w: Window, input s: Shape) -> Window {
        inputWindow(op, output: w, input: Extent(height: s.height, width: s.width))
    }

    static func inputWindow(_ op: Op, output w: Window, input s: Extent, operand: Int = 0) -> Window {
        func clip(_ lo: Int, _ hi: Int, _ n: Int) -> Range<Int> {
            let a = max(0, lo), b = min(n, hi)
            return a < b ? a..<b : a..<a
        }
        if w.isEmpty { return Window(rows: 0..<0, cols: 0..<0) }
        switch op {
        case .conv2d(let p):
            return Window(rows: clip(w.rows.lowerBound * p.stride - p.pad, (w.rows.upperBound - 1) * p.stride - p.pad + p.kernelH, s.height),
                          cols: clip(w.cols.lowerBound * p.stride - p.pad, (w.cols.upperBound - 1) * p.stride - p.pad + p.kernelW, s.width))
        case .convTranspose2d(let p):
            // a·stride − pad + u = i for some tap u in 0..<k: a in ⌈(i + pad − k + 1)/s⌉ … ⌊(i + pad)/s⌋.
            func range(_ r: Range<Int>, _ k: Int, _ n: Int) -> Range<Int> {
                clip(ceilDiv(r.lowerBound + p.pad - k + 1, p.stride), floorDiv(r.upperBound - 1 + p.pad, p.stride) + 1, n)
            }
            return Window(rows: range(w.rows, p.kernelH, s.height), cols: range(w.cols, p.kernelW, s.width))
        case .depthToSpace(let r):
            return Window(rows: clip(w.rows.lowerBound / r, (w.rows.upperBound - 1) / r + 1, s.height),
                          cols: clip(w.cols.lowerBound / r, (w.cols.upperBound - 1) / r + 1, s.width))
        case .warp:
            // Not spatially local (docs/integer-ops.md §4.10): the flow is read at the
            // window's positions, the volume wherever the flow points — the whole plane.
            // (The flow's verified interval would bound the reach; the engine does not use
            // it, so what the volume's window holds never depends on a claim.)
            return operand == 0 ? Window(rows: 0..<s.height, cols: 0..<s.width) : w
        case .requantize, .add, .clamp, .concat, .lookup, .inverseGDN:
            return w
        }
    }

    /// Window `window` of tensor `output`, computed from the graph's full inputs through the
    /// windows `requiredWindows` names, by the reference semantics.
    public static func evaluate(_ graph: IntegerGraph, inputs: [TensorValue], output: Int, window: Window,
                                cache: WindowCache? = nil) throws -> WindowValue {
        try GraphStructure.validate(graph)
        try checkInputContract(graph, inputs)
        return try evaluateChecked(graph, inputs: inputs, output: output, window: window, cache: cache)
    }

    /// `evaluate` for a graph already validated and inputs already checked against its
    /// contract (a spot check's windows: BackendHost.run did both once for the run).
    ///
    /// A warp's volume is evaluated only where the window's flows reach: the flow's window is
    /// evaluated first (by the same engine, from the inputs), `warpReach` of its values gives
    /// the volume's window, and the plan is made again with it — until every warp the output
    /// depends on has a reach for the output window it is needed at (windows only grow, so
    /// this ends). Nothing here reads a claim: the flows are the reference's own values.
    package static func evaluateChecked(_ graph: IntegerGraph, inputs: [TensorValue], output: Int, window: Window,
                                cache: WindowCache?) throws -> WindowValue {
        let need = try evaluationPlan(graph, inputs: inputs, output: output, window: window, cache: cache)
        return try evaluatePlanned(graph, inputs: inputs, output: output, need: need, cache: cache)
    }

    /// The windows `evaluateChecked` computes: `requiredWindows` with every warp's volume
    /// window where its flows reach.
    package static func evaluationPlan(_ graph: IntegerGraph, inputs: [TensorValue], output: Int, window: Window,
                                       cache: WindowCache?) throws -> [Window?] {
        let extents = graph.tensors.map { Extent(height: $0.shape.height, width: $0.shape.width) }
        var reach: [Int: Reach] = [:]
        var need = requiredWindows(graph, extents: extents, output: output, window: window, reach: reach)
        while true {
            var changed = false
            for (k, node) in graph.nodes.enumerated() {
                guard case .warp(let p) = node.op, let w = need[node.output], reach[k]?.output != w else { continue }
                let flow = try evaluateChecked(graph, inputs: inputs, output: node.inputs[1], window: w, cache: cache)
                reach[k] = Reach(output: w, volume: ReferenceKernels.warpReach(
                    flow: flow.crop(w), graph.tensors[node.inputs[0]].shape, p, rows: w.rows, cols: w.cols))
                changed = true
            }
            if !changed { return need }
            need = requiredWindows(graph, extents: extents, output: output, window: window, reach: reach)
        }
    }

    static func evaluatePlanned(_ graph: IntegerGraph, inputs: [TensorValue], output: Int, need: [Window?],
                                cache: WindowCache?) throws -> WindowValue {
        var values = [WindowValue?](repeating: nil, count: graph.tensors.count)
        for (k, t) in graph.inputs.enumerated() {
            guard let w = need[t] else { continue }
            let full = WindowValue(window: Window(rows: 0..<inputs[k].shape.height, cols: 0..<inputs[k].shape.width),
                                   channels: inputs[k].shape.channels, values: inputs[k].values)
            values[t] = WindowValue(window: w, channels: full.channels, values: full.crop(w))
        }
        for (k, node) in graph.nodes.enumerated() {
            guard let w = need[node.output] else { continue }
            var xs: [WindowValue] = []
            for t in node.inputs {
                guard let v = values[t] else {
                    throw GraphError.node(index: k, op: node.op.name, problem: "input tensor \(t) has no window value")
                }
                xs.append(v)
            }
            let spec = graph.tensors[node.output]
            let site = ReferenceSite(node: k, op: node.op.name, tensor: node.output, name: spec.name)
            values[node.output] = try WindowKernels.run(node.op, xs, inputShapes: node.inputs.map { graph.tensors[$0].shape },
                                                        narrowInput: fitsInt16(graph.tensors[node.inputs[0]]),
                                                        output: w, outputShape: spec.shape, site: site, cache: cache)
        }
        guard let result = values[output] else {
            throw GraphError.graph(problem: "tensor \(output) is not computed by the graph")
        }
        return result
    }

    /// Whether a tensor's values fit Int16: narrow storage, or a wide tensor whose verified
    /// interval (the certificate's, docs/integer-ops.md §5; BackendHost.run verified the
    /// graph) lies inside Int16's range, so the convolutions take the Int16 × Int16 path.
    static func fitsInt16(_ t: TensorSpec) -> Bool {
        t.storage == .narrow || Storage.narrow.range.contains(t.interval)
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func ceilDiv(_ a: Int, _ b: Int) -> Int { -floorDiv(-a, b) }
}

/// Height and width of a tensor, without its channels.
public struct Extent: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var height: Int
    public var width: Int

    public init(height: Int, width: Int) { self.height = height; self.width = width }

    public var description: String { "\(height)×\(width)" }
}

/// The spatial side of shape inference (docs/integer-ops.md §4) with no 2^28 bound: the
/// extent of every tensor of a one-input graph whose input is `input`, and the offset that
/// maps a sub-graph's coordinates onto the whole graph's. Tiling plans pictures whose whole
/// graphs could never be instantiated; the graph's parameters were validated when it loaded.
package enum SpatialExtents {
    struct PlanError: Error, Equatable, CustomStringConvertible {
        var node: Int
        var op: String
        var problem: String
        var description: String { "tiling: node \(node) (\(op)): \(problem)" }
    }

    package static func of(_ graph: IntegerGraph, input: Extent) throws -> [Extent] {
        guard graph.inputs.count == 1, let first = graph.inputs.first else {
            throw PlanError(node: -1, op: "graph", problem: "has \(graph.inputs.count) inputs; a tiled graph has exactly one")
        }
        var e = [Extent?](repeating: nil, count: graph.tensors.count)
        e[first] = input
        for (k, node) in graph.nodes.enumerated() {
            let xs = try node.inputs.map { t -> Extent in
                guard let x = e[t] else { throw PlanError(node: k, op: node.op.name, problem: "reads tensor \(t) before it is computed") }
                return x
            }
            guard let x = xs.first else { throw PlanError(node: k, op: node.op.name, problem: "has no input") }
            let out: Extent
            switch node.op {
            case .conv2d(let p):
                guard x.height + 2 * p.pad >= p.kernelH, x.width + 2 * p.pad >= p.kernelW else {
                    throw PlanError(node: k, op: node.op.name, problem: "kernel larger than the padded input \(x)")
                }
                out = Extent(height: (x.height + 2 * p.pad - p.kernelH) / p.stride + 1,
                             width: (x.width + 2 * p.pad - p.kernelW) / p.stride + 1)
            case .convTranspose2d(let p):
                out = Extent(height: (x.height - 1) * p.stride - 2 * p.pad + p.kernelH + p.outputPad,
                             width: (x.width - 1) * p.stride - 2 * p.pad + p.kernelW + p.outputPad)
            case .depthToSpace(let r):
                out = Extent(height: x.height * r, width: x.width * r)
            case .warp:
                // docs/probe.md §7: its samples reach anywhere in the volume, so a tile's
                // border is not the picture's; a graph with a warp runs whole.
                throw PlanError(node: k, op: node.op.name, problem: "is not spatially local (docs/integer-ops.md §4.10): a graph with a warp is not tiled")
            case .requantize, .add, .clamp, .concat, .lookup, .inverseGDN:
                guard xs.allSatisfy({ $0 == x }) else {
                    throw PlanError(node: k, op: node.op.name, problem: "inputs of different extents \(xs)")
                }
                out = x
            }
            guard out.height >= 1, out.width >= 1 else {
                throw PlanError(node: k, op: node.op.name, problem: "output extent \(out) is not positive")
            }
            e[node.output] = out
        }
        return try e.enumerated().map { t, x in
            guard let x else { throw PlanError(node: -1, op: "graph", problem: "tensor \(t) is not computed from the input") }
            return x
        }
    }

    /// Where tensor coordinates (0, 0) of a sub-graph run on the input window starting at
    /// `origin` lie in the whole graph's tensors. A strided conv2d needs its input's origin
    /// to be a multiple of its stride (else the sub-graph samples other positions): nil then.
    package static func offsets(_ graph: IntegerGraph, origin: (row: Int, col: Int)) -> [(row: Int, col: Int)]? {
        guard let first = graph.inputs.first else { return nil }
        var o = [(row: Int, col: Int)?](repeating: nil, count: graph.tensors.count)
        o[first] = origin
        for node in graph.nodes {
            guard let x = node.inputs.first.flatMap({ o[$0] }) else { return nil }
            for t in node.inputs.dropFirst() {
                guard let y = o[t], y == x else { return nil }
            }
            switch node.op {
            case .conv2d(let p):
                guard x.row % p.stride == 0, x.col % p.stride == 0 else { return nil }
                o[node.output] = (x.row / p.stride, x.col / p.stride)
            case .convTranspose2d(let p):
                o[node.output] = (x.row * p.stride, x.col * p.stride)
            case .depthToSpace(let r):
                o[node.output] = (x.row * r, x.col * r)
            case .warp:
                return nil
            case .requantize, .add, .clamp, .concat, .lookup, .inverseGDN:
                o[node.output] = x
            }
        }
        var out: [(row: Int, col: Int)] = []
        for v in o { guard let v else { return nil }; out.append(v) }
        return out
    }

    /// The product of conv2d strides: an input origin that is a multiple of it keeps every
    /// strided convolution on the whole graph's sampling grid.
    package static func inputAlignment(_ graph: IntegerGraph) -> Int {
        graph.nodes.reduce(1) { a, n in
            if case .conv2d(let p) = n.op { return a * p.stride }
            return a
        }
    }

    /// The product of upsampling factors: output tiles on multiples of it start on whole
    /// input positions.
    package static func outputAlignment(_ graph: IntegerGraph) -> Int {
        graph.nodes.reduce(1) { a, n in
            switch n.op {
            case .convTranspose2d(let p): return a * p.stride
            case .depthToSpace(let r): return a * r
            default: return a
            }
        }
    }
}

import BackendABI
import BackendDescriptor

/// A graph as the runtime sees it: buffers (one per tensor, in the tensor's order, then one
/// per parameter array) and dispatches, one per node (concat one per input), each naming
/// the kernel variant for the storage widths of its operands.
struct OpenCLPlan {
    struct Dispatch {
        var kernel: String
        var buffers: [Int?]           // 4 arguments: x, y, parameter/second input, parameter
        var items: Int
        var params: [Int32]           // params[0] is set to the item count by the runtime
    }

    /// Storage width per tensor on this unit: 16 only where the certificate allows it and
    /// narrow storage is on; otherwise int32 (the values are the same, §2).
    let bits: [Int]
    var parameters: [[Int32]] = []    // buffers tensors.count..<tensors.count + parameters.count
    var dispatches: [Dispatch] = []

    init(_ spec: GraphSpec, narrow: Bool) throws {
        bits = spec.tensors.map { narrow && $0.bits == 16 ? 16 : 32 }
        for (k, node) in spec.nodes.enumerated() { try add(node, index: k, spec) }
    }

    /// Both convolutions' weights as [group][cin][kh][kw][8]: the 8 output channels of a
    /// group side by side per tap, so a kernel reads them with one vload8. Channels past
    /// cout are zero (computed, never stored). conv2d's source is w[o][c][u][v],
    /// conv_transpose2d's w[c][o][u][v].
    static func packedWeights(_ c: ConvSpec, cin: Int, cout: Int) -> [Int32] {
        let kernel = c.kernelH * c.kernelW
        let groups = (cout + 7) / 8
        var out = [Int32](repeating: 0, count: groups * cin * kernel * 8)
        for o in 0..<cout {
            let g = o / 8, lane = o % 8
            for ci in 0..<cin {
                let source = c.transposed ? (ci * cout + o) * kernel : (o * cin + ci) * kernel
                let target = (g * cin + ci) * kernel
                for t in 0..<kernel { out[(target + t) * 8 + lane] = Int32(c.weights[source + t]) }
            }
        }
        return out
    }

    private mutating func parameter(_ values: [Int32]) -> Int {
        parameters.append(values)
        return bits.count + parameters.count - 1
    }

    private func variant(_ op: String, x: Int, y: Int) -> String { "\(op)_x\(bits[x])_y\(bits[y])" }

    private mutating func add(_ node: NodeSpec, index: Int, _ spec: GraphSpec) throws {
        let y = node.output, x = node.inputs[0]
        let ty = spec.tensors[y], tx = spec.tensors[x]
        switch node.op {
        case .conv(let c):
            let groups = (ty.channels + 7) / 8
            // The kernels index weights in int: a convolution this large is refused, not wrapped.
            guard groups * 8 * tx.channels * c.kernelH * c.kernelW <= Int(Int32.max), groups * ty.plane <= Int(Int32.max) else {
                throw BackendFailure.unsupported("graph_prepare: node \(index) (\(node.op.name)): \(tx.channels)→\(ty.channels) channels with a \(c.kernelH)×\(c.kernelW) kernel exceed the opencl backend's 2^31 weight and item indices")
            }
            let w = parameter(Self.packedWeights(c, cin: tx.channels, cout: ty.channels))
            let b = parameter(c.bias + [Int32](repeating: 0, count: groups * 8 - ty.channels))
            dispatches.append(Dispatch(
                kernel: variant(c.transposed ? "conv_transpose2d" : "conv2d", x: x, y: y),
                buffers: [x, y, w, b], items: groups * ty.plane,
                params: [0, tx.channels, tx.height, tx.width, ty.height, ty.width, c.kernelH, c.kernelW, c.stride, c.pad,
                         ty.channels].map { Int32($0) }))
        case .requantize(let r):
            let m = parameter(r.multiplier), s = parameter(r.shift)
            dispatches.append(Dispatch(kernel: variant("requantize", x: x, y: y), buffers: [x, y, m, s],
                                       items: ty.count, params: [0, Int32(tx.plane), r.lo, r.hi]))
        case .add:
            let b = node.inputs[1]
            dispatches.append(Dispatch(kernel: "add_x\(bits[x])_b\(bits[b])_y\(bits[y])", buffers: [x, y, b, nil],
                                       items: ty.count, params: [0]))
        case let .clamp(lo, hi):
            dispatches.append(Dispatch(kernel: variant("clamp", x: x, y: y), buffers: [x, y, nil, nil],
                                       items: ty.count, params: [0, lo, hi]))
        case .depthToSpace(let r):
            dispatches.append(Dispatch(kernel: variant("depth_to_space", x: x, y: y), buffers: [x, y, nil, nil],
                                       items: ty.count, params: [0, Int32(tx.height), Int32(tx.width), Int32(r)]))
        case .concat:
            var offset = 0
            for part in node.inputs {
                let count = spec.tensors[part].count
                dispatches.append(Dispatch(kernel: variant("copy", x: part, y: y), buffers: [part, y, nil, nil],
                                           items: count, params: [0, Int32(offset)]))
                offset += count
            }
        case let .lookup(table, offset):
            let t = parameter(table)
            dispatches.append(Dispatch(kernel: variant("lookup", x: x, y: y), buffers: [x, y, t, nil],
                                       items: ty.count, params: [0, offset, Int32(table.count)]))
        case .inverseGDN(let g):
            let beta = parameter(g.beta), gamma = parameter(g.gamma)
            dispatches.append(Dispatch(kernel: variant("inverse_gdn", x: x, y: y), buffers: [x, y, beta, gamma],
                                       items: ty.count,
                                       params: [0, Int32(tx.channels), Int32(tx.plane), Int32(g.squareShift), Int32(g.outShift)]))
        }
    }
}

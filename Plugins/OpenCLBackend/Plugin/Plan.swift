import BackendABI
import BackendDescriptor

/// A graph as the runtime sees it: buffers (one per tensor, in the tensor's order, then one
/// per parameter array) and dispatches, one per node (concat one per input), each naming
/// the kernel variant for the storage widths of its operands.
struct OpenCLPlan {
    struct Dispatch {
        var kernel: String
        var buffers: [Int?]           // 6 arguments: x, y, then parameters (or add's second input)
        var items: Int
        var params: [Int32]           // params[0] is set to the item count by the runtime
    }

    /// Storage width per tensor on this unit: 16 only where the certificate allows it and
    /// narrow storage is on; otherwise int32 (the values are the same, §2).
    let bits: [Int]
    var parameters: [[Int32]] = []    // buffers tensors.count..<tensors.count + parameters.count
    var dispatches: [Dispatch] = []

    /// Tensors no kernel stores: a convolution's output that only a fused requantize reads.
    private(set) var unstored: Set<Int> = []

    init(_ spec: GraphSpec, narrow: Bool) throws {
        bits = spec.tensors.map { narrow && $0.bits == 16 ? 16 : 32 }
        let fusions = ConvTiling.fusions(spec)
        var k = 0
        while k < spec.nodes.count {
            let node = spec.nodes[k]
            // conv → requantize where nothing else sees the convolution's output: one kernel
            // that requantizes its accumulators before storing (the same integers, §4.3).
            if let r = fusions[k], case .requantize(let rq) = spec.nodes[r].op {
                try add(node, index: k, spec, fused: (rq, spec.nodes[r].output))
                unstored.insert(node.output)
                k = r + 1
            } else {
                try add(node, index: k, spec, fused: nil)
                k += 1
            }
        }
    }

    private mutating func parameter(_ values: [Int32]) -> Int {
        parameters.append(values)
        return bits.count + parameters.count - 1
    }

    private func variant(_ op: String, x: Int, y: Int) -> String { "\(op)_x\(bits[x])_y\(bits[y])" }

    private mutating func add(_ node: NodeSpec, index: Int, _ spec: GraphSpec,
                              fused: (RequantizeSpec, Int)?) throws {
        let x = node.inputs[0], y = fused?.1 ?? node.output
        let ty = spec.tensors[y], tx = spec.tensors[x]
        switch node.op {
        case .conv(let c):
            // docs/gpu-kernels.md: one tile of 64 items × 4 (phase) positions × 8 channels per work group.
            let tiling = ConvTiling(c, cin: tx.channels, cout: ty.channels, outH: ty.height, outW: ty.width)
            let items = tiling.workGroups * ConvTiling.workGroup
            // The kernels index weights and items in 32 bits: a convolution this large is refused, not wrapped.
            guard tiling.groups * 8 * tx.channels * c.kernelH * c.kernelW <= Int(Int32.max),
                  tiling.workGroups <= Int(Int32.max) / ConvTiling.workGroup else {
                throw BackendFailure.unsupported("graph_prepare: node \(index) (\(node.op.name)): \(tx.channels)→\(ty.channels) channels with a \(c.kernelH)×\(c.kernelW) kernel exceed the opencl backend's 2^31 weight and item indices")
            }
            let w = parameter(ConvTiling.packedWeights(c, cin: tx.channels, cout: ty.channels))
            let b = parameter(ConvTiling.padded(c.bias, cout: ty.channels))
            var buffers: [Int?] = [x, y, w, b, nil, nil]
            var epilogue: [Int32] = [0, 0, 0]
            if let (r, _) = fused {
                buffers[4] = parameter(r.multiplier)
                buffers[5] = parameter(r.shift)
                epilogue = [1, r.lo, r.hi]
            }
            let name = c.transposed ? "conv_transpose2d" : tiling.direct ? "conv2d_d1" : "conv2d_d0"
            dispatches.append(Dispatch(
                kernel: variant(name, x: x, y: y), buffers: buffers, items: items,
                params: [0, tx.channels, tx.height, tx.width, ty.height, ty.width, c.kernelH, c.kernelW, c.stride, c.pad,
                         ty.channels].map { Int32($0) } + epilogue + [Int32(tiling.chunk), Int32(tiling.blocks)]))
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
            let c = tx.channels, groups = (c + 7) / 8
            var gamma = [Int32](repeating: 0, count: groups * c * 8)
            for o in 0..<c {
                for k in 0..<c { gamma[((o / 8) * c + k) * 8 + o % 8] = g.gamma[o * c + k] }
            }
            let beta = parameter(g.beta + [Int32](repeating: 0, count: groups * 8 - c)), packed = parameter(gamma)
            dispatches.append(Dispatch(kernel: variant("inverse_gdn", x: x, y: y), buffers: [x, y, beta, packed],
                                       items: groups * ((tx.plane + 3) / 4),
                                       params: [0, Int32(c), Int32(tx.plane), Int32(g.squareShift), Int32(g.outShift)]))
        }
    }
}

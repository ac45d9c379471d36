import BackendABI
import BackendDescriptor
import VulkanRuntime

/// A graph as the runtime sees it: buffers (one per tensor, in the tensor's order, then one
/// per parameter array), kernel variants and dispatches. Every node becomes one dispatch
/// (concat one per input; a convolution with the requantize that alone reads it one), chosen
/// by the storage width of its operands.
struct VulkanPlan {
    struct Dispatch {
        var kernel: String
        var bindings: [Int?]          // 4 slots: x, y, parameter/second input, parameter
        var invocations: Int
        var push: [Int32]             // push[0] is filled in with the invocation count
    }

    /// Storage width per tensor on this unit: 16 only where the certificate allows it and
    /// the device has 16-bit storage; otherwise int32 (the values are the same, §2).
    let bits: [Int]
    var parameters: [[Int32]] = []    // buffers tensors.count..<tensors.count + parameters.count
    var dispatches: [Dispatch] = []

    /// Tensors no kernel stores: a convolution's output that only its fused requantize reads.
    private(set) var unstored: Set<Int> = []

    init(_ spec: GraphSpec, narrow: Bool) throws {
        bits = spec.tensors.map { narrow && $0.bits == 16 ? 16 : 32 }
        let fusions = ConvTiling.fusions(spec)
        var k = 0
        while k < spec.nodes.count {
            let node = spec.nodes[k]
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

    private mutating func add(_ node: NodeSpec, index: Int, _ spec: GraphSpec, fused: (RequantizeSpec, Int)?) throws {
        let x = node.inputs[0], y = fused?.1 ?? node.output
        let ty = spec.tensors[y], tx = spec.tensors[x]
        switch node.op {
        case .conv(let c):
            // docs/gpu-kernels.md: one tile of 64 invocations × 4 (phase) positions × 8 channels per work group.
            let tiling = ConvTiling(c, cin: tx.channels, cout: ty.channels, outH: ty.height, outW: ty.width)
            guard tiling.groups * 8 * tx.channels * c.kernelH * c.kernelW <= Int(Int32.max),
                  tiling.workGroups <= Int(Int32.max) / ConvTiling.workGroup else {
                throw BackendFailure.unsupported("graph_prepare: node \(index) (\(node.op.name)): \(tx.channels)→\(ty.channels) channels with a \(c.kernelH)×\(c.kernelW) kernel exceed the vulkan backend's 2^31 weight and invocation indices")
            }
            let w = parameter(ConvTiling.packedWeights(c, cin: tx.channels, cout: ty.channels))
            // Binding 3: bias, then the fused requantize's multipliers and shifts.
            var epilogue = ConvTiling.padded(c.bias, cout: ty.channels)
            var fusedPush: [Int32] = [0, 0, 0]
            if let (r, _) = fused {
                epilogue += ConvTiling.padded(r.multiplier, cout: ty.channels) + ConvTiling.padded(r.shift, cout: ty.channels)
                fusedPush = [1, r.lo, r.hi]
            }
            let b = parameter(epilogue)
            let name = c.transposed ? variant("conv_transpose2d", x: x, y: y)
                                    : variant("conv2d", x: x, y: y) + (tiling.direct ? "_d1" : "_d0")
            dispatches.append(Dispatch(
                kernel: name, bindings: [x, y, w, b], invocations: tiling.workGroups * ConvTiling.workGroup,
                push: [0, tx.channels, tx.height, tx.width, ty.height, ty.width, c.kernelH, c.kernelW, c.stride, c.pad,
                       ty.channels, tiling.chunk].map { Int32($0) } + fusedPush + [Int32(tiling.blocks)]))
        case .requantize(let r):
            let m = parameter(r.multiplier), s = parameter(r.shift)
            dispatches.append(Dispatch(kernel: variant("requantize", x: x, y: y), bindings: [x, y, m, s],
                                       invocations: ty.count, push: [0, Int32(tx.plane), r.lo, r.hi]))
        case .add:
            let b = node.inputs[1]
            dispatches.append(Dispatch(kernel: "add_x\(bits[x])_b\(bits[b])_y\(bits[y])", bindings: [x, y, b, nil],
                                       invocations: ty.count, push: [0]))
        case let .clamp(lo, hi):
            dispatches.append(Dispatch(kernel: variant("clamp", x: x, y: y), bindings: [x, y, nil, nil],
                                       invocations: ty.count, push: [0, lo, hi]))
        case .depthToSpace(let r):
            dispatches.append(Dispatch(kernel: variant("depth_to_space", x: x, y: y), bindings: [x, y, nil, nil],
                                       invocations: ty.count, push: [0, Int32(tx.height), Int32(tx.width), Int32(r)]))
        case .concat:
            var offset = 0
            for part in node.inputs {
                let count = spec.tensors[part].count
                dispatches.append(Dispatch(kernel: variant("copy", x: part, y: y), bindings: [part, y, nil, nil],
                                           invocations: count, push: [0, Int32(offset)]))
                offset += count
            }
        case let .lookup(table, offset):
            let t = parameter(table)
            dispatches.append(Dispatch(kernel: variant("lookup", x: x, y: y), bindings: [x, y, t, nil],
                                       invocations: ty.count, push: [0, offset, Int32(table.count)]))
        case .inverseGDN(let g):
            let beta = parameter(g.beta), gamma = parameter(g.gamma)
            dispatches.append(Dispatch(kernel: variant("inverse_gdn", x: x, y: y), bindings: [x, y, beta, gamma],
                                       invocations: ty.count,
                                       push: [0, Int32(tx.channels), Int32(tx.plane), Int32(g.squareShift), Int32(g.outShift)]))
        }
    }
}

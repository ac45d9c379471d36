import BackendABI
import BackendDescriptor
import VulkanRuntime

/// A graph as the runtime sees it: buffers (one per tensor, in the tensor's order, then one
/// per parameter array), kernel variants and dispatches. Every node becomes one dispatch
/// (concat one per input), chosen by the storage width of its operands.
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

    init(_ spec: GraphSpec, narrow: Bool) {
        bits = spec.tensors.map { narrow && $0.bits == 16 ? 16 : 32 }
        for node in spec.nodes { add(node, spec) }
    }

    /// conv2d w[o][c][u][v]: zero channels appended. conv_transpose2d w[c][o][u][v]: each
    /// input channel's block of cout kernels padded to coutPadded.
    static func paddedWeights(_ c: ConvSpec, cin: Int, cout: Int, coutPadded: Int) -> [Int32] {
        let kernel = c.kernelH * c.kernelW
        if !c.transposed {
            return c.weights.map { Int32($0) } + [Int32](repeating: 0, count: (coutPadded - cout) * cin * kernel)
        }
        var out = [Int32](repeating: 0, count: cin * coutPadded * kernel)
        for ci in 0..<cin {
            for k in 0..<(cout * kernel) { out[ci * coutPadded * kernel + k] = Int32(c.weights[ci * cout * kernel + k]) }
        }
        return out
    }

    private mutating func parameter(_ values: [Int32]) -> Int {
        parameters.append(values)
        return bits.count + parameters.count - 1
    }

    private func variant(_ op: String, x: Int, y: Int) -> String { "\(op)_x\(bits[x])_y\(bits[y])" }

    private mutating func add(_ node: NodeSpec, _ spec: GraphSpec) {
        let y = node.output, x = node.inputs[0]
        let ty = spec.tensors[y], tx = spec.tensors[x]
        switch node.op {
        case .conv(let c):
            // The kernels compute 8 output channels per invocation: weights and bias padded
            // with zero channels to a multiple of 8 (never stored).
            let groups = (ty.channels + 7) / 8, coutPadded = groups * 8
            let w = parameter(Self.paddedWeights(c, cin: tx.channels, cout: ty.channels, coutPadded: coutPadded))
            let b = parameter(c.bias + [Int32](repeating: 0, count: coutPadded - ty.channels))
            dispatches.append(Dispatch(
                kernel: variant(c.transposed ? "conv_transpose2d" : "conv2d", x: x, y: y),
                bindings: [x, y, w, b], invocations: groups * ty.plane,
                push: [0, tx.channels, tx.height, tx.width, ty.height, ty.width, c.kernelH, c.kernelW, c.stride, c.pad,
                       ty.channels, coutPadded].map { Int32($0) }))
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

/// The planning both GPU backends share (docs/gpu-kernels.md §6): a storage width per
/// tensor, parameter buffers after the tensors' buffers, and the dispatches of every node in
/// order — concat one per input, a convolution with the requantize that alone reads it as one
/// kernel (`ConvTiling.fusions`). The element-wise kernels take the same buffers and
/// parameters in both backends; each backend lowers the convolutions and inverse GDN itself
/// (`KernelLowering`), because their kernels and weight layouts differ.
package struct KernelPlan {
    package struct Dispatch {
        package var kernel: String
        /// Buffer per binding (Vulkan) or argument (OpenCL): x, y, then parameters (or
        /// add's second input); nil where the kernel has none.
        package var buffers: [Int?]
        /// Invocations (work items); the runtime also sets params[0] to it.
        package var items: Int
        package var params: [Int32]
        /// Vulkan only: specialization constants 0…3, and the weight window (§2) of
        /// buffers[2] — byte offset, and the bytes its uniform view spans (0: none).
        package var constants: [Int32] = [1, 1, 1, 1]
        package var windowOffset = 0, windowRange = 0
        /// OpenCL only: the `-D` constants of the convolution program the kernel is built in
        /// (docs/gpu-kernels.md §5); nil: the program of the element-wise kernels.
        package var options: String? = nil

        package init(kernel: String, buffers: [Int?], items: Int, params: [Int32]) {
            self.kernel = kernel
            self.buffers = buffers
            self.items = items
            self.params = params
        }
    }

    /// A convolution as the lowering sees it: the node, its input tensor and the tensor it
    /// stores (the fused requantize's output when `fused` is set).
    package struct ConvNode {
        package let index: Int
        package let conv: ConvSpec
        package let x: Int, y: Int
        package let input: TensorSpec, output: TensorSpec
        package let fused: RequantizeSpec?
    }

    /// Storage width per tensor on this unit: 16 only where the certificate allows it and
    /// narrow storage is on; otherwise int32 (the values are the same, docs/integer-ops.md §2).
    package let bits: [Int]
    /// Buffers tensors.count ..< tensors.count + parameters.count.
    package var parameters: [[Int32]] = []
    package var dispatches: [Dispatch] = []
    /// Tensors no kernel stores: a convolution's output that only its fused requantize reads.
    package private(set) var unstored: Set<Int> = []

    package init(_ spec: GraphSpec, narrow: Bool, lowering: some KernelLowering) throws {
        bits = spec.tensors.map { narrow && $0.bits == 16 ? 16 : 32 }
        let fusions = ConvTiling.fusions(spec)
        var k = 0
        while k < spec.nodes.count {
            let node = spec.nodes[k]
            if let r = fusions[k], case .requantize(let rq) = spec.nodes[r].op {
                try add(node, index: k, spec, fused: (rq, spec.nodes[r].output), lowering)
                unstored.insert(node.output)
                k = r + 1
            } else {
                try add(node, index: k, spec, fused: nil, lowering)
                k += 1
            }
        }
    }

    /// Registers a parameter array; returns its buffer index.
    package mutating func parameter(_ values: [Int32]) -> Int {
        parameters.append(values)
        return bits.count + parameters.count - 1
    }

    /// The kernel variant for the storage widths of x and y, e.g. "clamp_x16_y32".
    package func variant(_ op: String, x: Int, y: Int) -> String { "\(op)_x\(bits[x])_y\(bits[y])" }

    private mutating func add(_ node: NodeSpec, index: Int, _ spec: GraphSpec, fused: (RequantizeSpec, Int)?,
                              _ lowering: some KernelLowering) throws {
        let x = node.inputs[0], y = fused?.1 ?? node.output
        let ty = spec.tensors[y], tx = spec.tensors[x]
        switch node.op {
        case .conv(let c):
            try lowering.conv(ConvNode(index: index, conv: c, x: x, y: y, input: tx, output: ty, fused: fused?.0), into: &self)
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
            try lowering.inverseGDN(g, x: x, y: y, input: tx, into: &self)
        case .warp(let p):
            try lowering.warp(p, volume: x, flow: node.inputs[1], y: y, output: ty, index: index, into: &self)
        }
    }
}

/// What a backend plans itself: its convolution kernels and its inverse GDN.
package protocol KernelLowering {
    func conv(_ node: KernelPlan.ConvNode, into plan: inout KernelPlan) throws
    func inverseGDN(_ g: InverseGDNSpec, x: Int, y: Int, input: TensorSpec, into plan: inout KernelPlan) throws
    /// docs/integer-ops.md §4.10; a backend without a warp kernel throws `unsupported`, and
    /// per-op acceptance keeps it for every other op (docs/probe.md §2).
    func warp(_ w: WarpSpec, volume: Int, flow: Int, y: Int, output: TensorSpec, index: Int, into plan: inout KernelPlan) throws
}

extension KernelPlan {
    /// The warp's dispatch as both GPU kernels take it: volume in x, flow in the third
    /// buffer (add's layout), one item per output element; p: count, C, S, H, W, F.
    package mutating func warpDispatch(_ w: WarpSpec, volume: Int, flow: Int, y: Int, output ty: TensorSpec) {
        dispatches.append(Dispatch(kernel: "warp_x\(bits[volume])_b\(bits[flow])_y\(bits[y])", buffers: [volume, y, flow, nil],
                                   items: ty.count,
                                   params: [0, Int32(ty.channels), Int32(w.scales), Int32(ty.height), Int32(ty.width), Int32(w.fracBits)]))
    }
}

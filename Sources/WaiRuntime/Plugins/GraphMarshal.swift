import BackendABI

/// An IntegerGraph laid out as a wai_graph_desc. The description points into allocations
/// this object owns, so it stays valid exactly as long as the object lives: keep it alive
/// across graph_prepare (the ABI lets a backend read the arrays only during that call).
final class MarshalledGraph {
    private var allocations: [UnsafeMutableRawPointer] = []
    private var desc = wai_graph_desc()

    init(_ graph: IntegerGraph) throws {
        var tensors: [wai_tensor_desc] = []
        tensors.reserveCapacity(graph.tensors.count)
        for (i, t) in graph.tensors.enumerated() {
            var d = wai_tensor_desc()
            d.struct_size = MemoryLayout<wai_tensor_desc>.size
            d.channels = try Self.u32(t.shape.channels, "tensor \(i) channels")
            d.height = try Self.u32(t.shape.height, "tensor \(i) height")
            d.width = try Self.u32(t.shape.width, "tensor \(i) width")
            d.storage_bits = UInt32(t.storage.rawValue)
            d.lo = try Self.i32(t.interval.lo, "tensor \(i) interval low end")
            d.hi = try Self.i32(t.interval.hi, "tensor \(i) interval high end")
            tensors.append(d)
        }
        var nodes: [wai_node_desc] = []
        nodes.reserveCapacity(graph.nodes.count)
        for (i, node) in graph.nodes.enumerated() {
            nodes.append(try marshal(node, index: i))
        }
        desc.struct_size = MemoryLayout<wai_graph_desc>.size
        desc.n_tensors = try Self.u32(tensors.count, "tensor count")
        desc.tensors = own(tensors)
        desc.n_nodes = try Self.u32(nodes.count, "node count")
        desc.nodes = own(nodes)
        desc.n_inputs = try Self.u32(graph.inputs.count, "input count")
        desc.inputs = own(try graph.inputs.map { try Self.u32($0, "input index") })
        desc.n_outputs = try Self.u32(graph.outputs.count, "output count")
        desc.outputs = own(try graph.outputs.map { try Self.u32($0, "output index") })
    }

    deinit {
        for p in allocations { p.deallocate() }
    }

    /// The description, valid only inside `body`.
    func withDescription<R>(_ body: (UnsafePointer<wai_graph_desc>) throws -> R) rethrows -> R {
        try withUnsafePointer(to: &desc) { try body($0) }
    }

    private func marshal(_ node: Node, index: Int) throws -> wai_node_desc {
        var d = wai_node_desc()
        d.struct_size = MemoryLayout<wai_node_desc>.size
        d.n_inputs = try Self.u32(node.inputs.count, "node \(index) input count")
        d.inputs = own(try node.inputs.map { try Self.u32($0, "node \(index) input") })
        d.output = try Self.u32(node.output, "node \(index) output")
        d.op = node.op.kind.rawValue      // the op table's raw values are the wai_op values
        switch node.op {
        case .conv2d(let p), .convTranspose2d(let p):
            d.kernel_h = try Self.u32(p.kernelH, "node \(index) kernel height")
            d.kernel_w = try Self.u32(p.kernelW, "node \(index) kernel width")
            d.stride = try Self.u32(p.stride, "node \(index) stride")
            d.pad = try Self.u32(p.pad, "node \(index) pad")
            d.output_pad = try Self.u32(p.outputPad, "node \(index) output_pad")
            d.weights = own(p.weights)
            d.bias = own(p.bias)
        case .requantize(let p):
            d.multiplier = own(p.multiplier)
            d.shift = own(p.shift)
            d.clamp_lo = p.lo
            d.clamp_hi = p.hi
        case .add, .concat:
            break
        case let .clamp(lo, hi):
            d.clamp_lo = lo
            d.clamp_hi = hi
        case .depthToSpace(let block):
            d.block = try Self.u32(block, "node \(index) block")
        case .lookup(let p):
            d.table = own(p.table)
            d.table_len = try Self.u32(p.table.count, "node \(index) table length")
            d.table_offset = p.offset
        case .inverseGDN(let p):
            d.beta = own(p.beta)
            d.gamma = own(p.gamma)
            d.square_shift = try Self.u32(Int(p.squareShift), "node \(index) square_shift")
            d.out_shift = try Self.u32(Int(p.outShift), "node \(index) out_shift")
        case .warp(let p):
            // docs/backend-abi.md §6: the 1.0 members carry the warp's two parameters.
            d.block = try Self.u32(p.scales, "node \(index) scales")
            d.out_shift = try Self.u32(p.fracBits, "node \(index) frac_bits")
        }
        return d
    }

    /// Copies an array into memory owned by this object. Empty arrays still get a valid
    /// (one-element) allocation so no member the op names is ever NULL.
    private func own<T>(_ array: [T]) -> UnsafePointer<T> {
        let p = UnsafeMutablePointer<T>.allocate(capacity: max(array.count, 1))
        array.withUnsafeBufferPointer { src in
            if let base = src.baseAddress { p.initialize(from: base, count: src.count) }
        }
        allocations.append(UnsafeMutableRawPointer(p))
        return UnsafePointer(p)
    }

    private static func u32(_ v: Int, _ what: String) throws -> UInt32 {
        guard let r = UInt32(exactly: v) else {
            throw PluginError.graphNotRepresentable(reason: "\(what) \(v) does not fit uint32")
        }
        return r
    }

    private static func i32(_ v: Int64, _ what: String) throws -> Int32 {
        guard let r = Int32(exactly: v) else {
            throw PluginError.graphNotRepresentable(reason: "\(what) \(v) does not fit int32")
        }
        return r
    }
}

// Shared by the backend plugins written in Swift (CPU, Vulkan): the descriptor is read
// and validated once, the same way, whichever backend prepares it.

import BackendABI

/// Reads a wai_graph_desc into a GraphSpec, checking every size, count, index, parameter
/// range and shape of docs/integer-ops.md §1 and §4 before anything is allocated. Arrays of
/// structs are strided by their elements' struct_size (docs/backend-abi.md §2.3).
package enum DescriptorReader {
    package static let maxElements = 1 << 28

    package static func read(_ graph: UnsafePointer<wai_graph_desc>) throws -> GraphSpec {
        let raw = UnsafeRawPointer(graph)
        let size = raw.loadUnaligned(as: Int.self)
        guard size >= ABISize.graphDesc else {
            throw BackendFailure.invalid("graph_prepare: graph struct_size \(size) is smaller than the \(ABISize.graphDesc) bytes of ABI 1.0")
        }
        let g = ABISize.load(raw, size: size, as: wai_graph_desc.self)
        guard g.n_tensors >= 1 else { throw BackendFailure.invalid("graph_prepare: the graph has no tensors") }
        let tensorDescs: [wai_tensor_desc] = try structArray(g.tensors, Int(g.n_tensors), "tensors", minimum: ABISize.tensorDesc)
        var tensors: [TensorSpec] = []
        tensors.reserveCapacity(tensorDescs.count)
        for (i, t) in tensorDescs.enumerated() { tensors.append(try tensor(t, index: i)) }
        let n = tensors.count

        let inputs = try indexArray(g.inputs, Int(g.n_inputs), "inputs", tensors: n)
        let outputs = try indexArray(g.outputs, Int(g.n_outputs), "outputs", tensors: n)
        guard !inputs.isEmpty else { throw BackendFailure.invalid("graph_prepare: the graph has no inputs (docs/integer-ops.md §1)") }
        guard !outputs.isEmpty else { throw BackendFailure.invalid("graph_prepare: the graph has no outputs (docs/integer-ops.md §1)") }

        var written = [Bool](repeating: false, count: n)
        for t in inputs {
            guard !written[t] else { throw BackendFailure.invalid("graph_prepare: tensor \(t) is listed as a graph input twice") }
            written[t] = true
        }
        let nodeDescs: [wai_node_desc] = try structArray(g.nodes, Int(g.n_nodes), "nodes", minimum: ABISize.nodeDesc)
        var nodes: [NodeSpec] = []
        nodes.reserveCapacity(nodeDescs.count)
        for (k, d) in nodeDescs.enumerated() {
            let node = try NodeReader(desc: d, index: k, tensors: tensors).read()
            for t in node.inputs where !written[t] {
                throw BackendFailure.invalid("graph_prepare: node \(k) (\(node.op.name)) reads tensor \(t) before any node writes it (docs/integer-ops.md §1)")
            }
            guard !written[node.output] else {
                throw BackendFailure.invalid("graph_prepare: node \(k) (\(node.op.name)) writes tensor \(node.output), which is a graph input or already written (docs/integer-ops.md §1)")
            }
            written[node.output] = true
            nodes.append(node)
        }
        if let t = written.firstIndex(of: false) {
            throw BackendFailure.invalid("graph_prepare: tensor \(t) is neither a graph input nor written by any node (docs/integer-ops.md §1)")
        }
        return GraphSpec(tensors: tensors, nodes: nodes, inputs: inputs, outputs: outputs)
    }

    /// Elements of a host array of ABI structs, each at least the 1.0 size (`minimum`), all
    /// the same size; a larger element from a newer host is read up to what this build knows.
    package static func structArray<T: BitwiseCopyable>(_ pointer: UnsafePointer<T>?, _ count: Int, _ what: String,
                                                        minimum: Int) throws -> [T] {
        guard count > 0 else { return [] }
        guard let pointer else { throw BackendFailure.invalid("\(what): NULL array with \(count) elements") }
        let raw = UnsafeRawPointer(pointer)
        let stride = raw.loadUnaligned(as: Int.self)
        guard stride >= minimum else {
            throw BackendFailure.invalid("\(what)[0]: struct_size \(stride) is smaller than the \(minimum) bytes of ABI 1.0")
        }
        // Minors append a few members at a time; a size this large is a corrupt descriptor
        // (and i·stride below must not overflow).
        guard stride <= 1 << 16 else {
            throw BackendFailure.invalid("\(what)[0]: struct_size \(stride) is implausibly large")
        }
        var result: [T] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let offset = i * stride
            let size = raw.loadUnaligned(fromByteOffset: offset, as: Int.self)
            guard size == stride else {
                throw BackendFailure.invalid("\(what)[\(i)]: struct_size \(size) differs from element 0's \(stride) (docs/backend-abi.md §2.3)")
            }
            result.append(ABISize.load(raw + offset, size: stride, as: T.self))
        }
        return result
    }

    static func indexArray(_ pointer: UnsafePointer<UInt32>?, _ count: Int, _ what: String, tensors: Int) throws -> [Int] {
        guard count > 0 else { return [] }
        guard let pointer else { throw BackendFailure.invalid("graph_prepare: \(what) is NULL with \(count) elements") }
        return try (0..<count).map { k in
            let t = Int(pointer[k])
            guard t < tensors else {
                throw BackendFailure.invalid("graph_prepare: \(what)[\(k)] names tensor \(t); the graph has \(tensors) tensors")
            }
            return t
        }
    }

    static func tensor(_ d: wai_tensor_desc, index i: Int) throws -> TensorSpec {
        let c = Int(d.channels), h = Int(d.height), w = Int(d.width)
        guard c >= 1, h >= 1, w >= 1, c <= maxElements, h <= maxElements, w <= maxElements,
              c * h <= maxElements, c * h * w <= maxElements else {
            throw BackendFailure.invalid("graph_prepare: tensor \(i) has shape \(c)×\(h)×\(w); C, H, W must be ≥ 1 and C·H·W ≤ 2^28 (docs/integer-ops.md §1)")
        }
        guard d.lo <= d.hi else {
            throw BackendFailure.invalid("graph_prepare: tensor \(i) has the empty interval [\(d.lo), \(d.hi)]")
        }
        switch d.storage_bits {
        case 32: break
        case 16:
            guard d.lo >= -32768, d.hi <= 32767 else {
                throw BackendFailure.invalid("graph_prepare: tensor \(i) is narrow but its interval [\(d.lo), \(d.hi)] leaves int16 (docs/integer-ops.md §2)")
            }
        default:
            throw BackendFailure.invalid("graph_prepare: tensor \(i) has storage_bits \(d.storage_bits); 16 or 32 expected")
        }
        return TensorSpec(channels: c, height: h, width: w, lo: d.lo, hi: d.hi)
    }
}

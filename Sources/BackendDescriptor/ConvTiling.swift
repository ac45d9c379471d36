/// What both GPU backends' convolutions share besides `ConvPhases` (docs/gpu-kernels.md §4,
/// §6): bias and epilogue arrays padded to whole 8-channel groups, and the convolution →
/// requantize fusion.
package enum ConvTiling {
    package static let channels = ConvPhases.channels

    /// `values` padded with zeros to whole groups of 8 channels.
    package static func padded(_ values: [Int32], cout: Int) -> [Int32] {
        values + [Int32](repeating: 0, count: (cout + channels - 1) / channels * channels - cout)
    }

    /// conv → requantize pairs that run as one kernel (the requantize as the convolution's
    /// epilogue, the same integers, §4.3 of docs/integer-ops.md): the requantize reads only the
    /// convolution's output and nothing else sees it. Keys: conv node index; values: the
    /// requantize node index (always the next node).
    package static func fusions(_ spec: GraphSpec) -> [Int: Int] {
        var readers = [Int](repeating: 0, count: spec.tensors.count)
        for node in spec.nodes { for t in node.inputs { readers[t] += 1 } }
        let outputs = Set(spec.outputs)
        var result: [Int: Int] = [:]
        for (k, node) in spec.nodes.enumerated() where k + 1 < spec.nodes.count {
            guard case .conv = node.op, case .requantize = spec.nodes[k + 1].op else { continue }
            if spec.nodes[k + 1].inputs == [node.output], readers[node.output] == 1, !outputs.contains(node.output) {
                result[k] = k + 1
            }
        }
        return result
    }
}

// docs/integer-ops.md §5 rule 1: a graph input's declared interval is the contract every
// actual input must meet, because every other interval was derived from it.

/// Throws unless inputs match the graph's inputs in count and shape and every value lies in
/// the input tensor's declared interval (the input contract, docs/integer-ops.md §5).
public func checkInputContract(_ graph: IntegerGraph, _ inputs: [TensorValue]) throws {
    guard inputs.count == graph.inputs.count else {
        throw InputContractError.count(expected: graph.inputs.count, got: inputs.count)
    }
    for (k, t) in graph.inputs.enumerated() {
        guard t >= 0, t < graph.tensors.count else {
            throw GraphError.graph(problem: "input \(k) names tensor \(t); the graph has \(graph.tensors.count) tensors")
        }
        let spec = graph.tensors[t]
        let value = inputs[k]
        guard value.shape == spec.shape else {
            throw InputContractError.shape(input: k, tensor: t, name: spec.name, expected: spec.shape, got: value.shape)
        }
        guard value.values.count == spec.shape.count else {
            throw InputContractError.valueCount(input: k, tensor: t, name: spec.name,
                                                expected: spec.shape.count, got: value.values.count)
        }
        let (lo, hi) = (spec.interval.lo, spec.interval.hi)
        if let i = value.values.firstIndex(where: { Int64($0) < lo || Int64($0) > hi }) {
            throw InputContractError.value(input: k, tensor: t, name: spec.name, index: i,
                                           value: value.values[i], interval: spec.interval)
        }
    }
}

import BackendABI

/// A graph_run request that passed every check: the caller's data, one pointer per graph
/// input and output, in graph order.
package struct RunRequest {
    package let inputs: [UnsafeMutablePointer<Int32>]
    package let outputs: [UnsafeMutablePointer<Int32>]
}

/// docs/backend-abi.md §7: one request tensor per graph input and output, in graph order,
/// each naming its tensor with the right element count and data, and every input value
/// inside its tensor's interval (docs/integer-ops.md §5). `firstOutside` returns the index
/// of the first value outside [lo, hi], or the count when there is none.
package func checkRunRequest(tensors: [TensorSpec], inputs: [Int], outputs: [Int],
                             _ requestIn: UnsafePointer<wai_tensor>?, count nIn: UInt32,
                             _ requestOut: UnsafeMutablePointer<wai_tensor>?, count nOut: UInt32,
                             firstOutside: (UnsafePointer<Int32>, Int, Int32, Int32) -> Int = firstOutsideScan) throws -> RunRequest {
    guard Int(nIn) == inputs.count else {
        throw BackendFailure.invalid("graph_run: \(nIn) input tensors for a graph with \(inputs.count) inputs")
    }
    guard Int(nOut) == outputs.count else {
        throw BackendFailure.invalid("graph_run: \(nOut) output tensors for a graph with \(outputs.count) outputs")
    }
    let ins: [wai_tensor] = try DescriptorReader.structArray(requestIn, Int(nIn), "graph_run: inputs", minimum: ABISize.tensor)
    let outs: [wai_tensor] = try DescriptorReader.structArray(UnsafePointer(requestOut), Int(nOut), "graph_run: outputs",
                                                              minimum: ABISize.tensor)
    let inData = try pair(ins, with: inputs, tensors, role: "input")
    let outData = try pair(outs, with: outputs, tensors, role: "output")
    for (k, t) in inputs.enumerated() {
        let spec = tensors[t]
        let data = inData[k]
        let outside = firstOutside(UnsafePointer(data), spec.count, spec.lo, spec.hi)
        guard outside == spec.count else {
            throw BackendFailure.invalid("graph_run: input \(k) (tensor \(t)) element \(outside) = \(data[outside]) lies outside the tensor's interval [\(spec.lo), \(spec.hi)] (docs/integer-ops.md §5)")
        }
    }
    return RunRequest(inputs: inData, outputs: outData)
}

package func firstOutsideScan(_ values: UnsafePointer<Int32>, _ count: Int, _ lo: Int32, _ hi: Int32) -> Int {
    UnsafeBufferPointer(start: values, count: count).firstIndex { $0 < lo || $0 > hi } ?? count
}

/// Checks the pairing with the graph's list, the counts and the data pointers.
private func pair(_ request: [wai_tensor], with list: [Int], _ tensors: [TensorSpec], role: String) throws -> [UnsafeMutablePointer<Int32>] {
    try request.enumerated().map { k, r in
        let t = list[k]
        guard Int(r.tensor) == t else {
            throw BackendFailure.invalid("graph_run: \(role) \(k) names tensor \(r.tensor); the graph's \(role) \(k) is tensor \(t) (docs/backend-abi.md §7)")
        }
        guard r.count == tensors[t].count else {
            throw BackendFailure.invalid("graph_run: \(role) \(k) (tensor \(t)) has \(r.count) elements; its shape \(tensors[t].shapeText) has \(tensors[t].count)")
        }
        guard let data = r.data else { throw BackendFailure.invalid("graph_run: \(role) \(k) (tensor \(t)) data is NULL") }
        return data
    }
}

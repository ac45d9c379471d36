import WaiCrypto

/// A name for a graph in reports where it has none of its own: its output tensors' names
/// and a short hash of its structure and parameters, so two runs of the same model graph
/// are reported under the same name.
enum GraphIdentity {
    static func name(_ graph: IntegerGraph) -> String {
        let outputs = graph.outputs.map { graph.tensors[$0].name }.joined(separator: "+")
        return "\(outputs)@\(String(hash(graph).prefix(12)))"
    }

    /// SHA-256 over the graph's text form (shapes, storage, intervals, ops, parameters).
    static func hash(_ graph: IntegerGraph) -> String {
        var text = "inputs \(graph.inputs) outputs \(graph.outputs)\n"
        for t in graph.tensors { text += "\(t.name) \(t.shape) \(t.storage.rawValue) \(t.interval)\n" }
        for n in graph.nodes { text += "\(n.op) \(n.inputs) \(n.output)\n" }
        return SHA256.hex(Array(text.utf8))
    }
}

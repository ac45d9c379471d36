// Certificates are verified, never trusted (DESIGN invariant 3): the host recomputes every
// interval of docs/integer-ops.md §5 and refuses a model whose claim differs.

public enum CertificateVerifier {
    /// Structure + shapes (docs/integer-ops.md §1, §4) + interval recomputation (§5).
    /// Returns the interval of every tensor (a graph input's is its declared contract).
    /// Checks §5 rules 2 (storage) and 3 (intermediates); `verify` adds rule 1.
    public static func computeIntervals(_ graph: IntegerGraph) throws -> [Interval] {
        try GraphStructure.validate(graph)
        var intervals = graph.tensors.map(\.interval)
        for t in graph.inputs {
            let spec = graph.tensors[t]
            guard spec.storage.range.contains(spec.interval) else {
                throw GraphError.storage(node: nil, op: nil, tensor: t, name: spec.name,
                                         storage: spec.storage, interval: spec.interval)
            }
        }
        for (k, node) in graph.nodes.enumerated() {
            let out = node.output
            let spec = graph.tensors[out]
            let site = IntervalRules.Site(node: k, op: node.op.name, tensor: out, name: spec.name)
            let computed = try IntervalRules.interval(
                of: node.op, inputs: node.inputs.map { intervals[$0] },
                inputShape: graph.tensors[node.inputs[0]].shape, site: site)
            guard spec.storage.range.contains(computed) else {
                throw GraphError.storage(node: k, op: node.op.name, tensor: out, name: spec.name,
                                         storage: spec.storage, interval: computed)
            }
            intervals[out] = computed
        }
        return intervals
    }

    /// Refuses unless every declared interval equals the computed one and fits its storage.
    public static func verify(_ graph: IntegerGraph) throws {
        let computed = try computeIntervals(graph)
        for (k, node) in graph.nodes.enumerated() {
            let spec = graph.tensors[node.output]
            guard spec.interval == computed[node.output] else {
                throw GraphError.certificateMismatch(node: k, op: node.op.name, tensor: node.output,
                                                     name: spec.name, rule: node.op.name,
                                                     declared: spec.interval, computed: computed[node.output])
            }
        }
    }
}

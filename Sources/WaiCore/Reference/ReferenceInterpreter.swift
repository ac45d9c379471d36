// The reference interpreter: the right answer for every comparison (DESIGN invariant 2).
// It checks structure and the input contract itself, so an unverified or malformed graph
// makes it throw, never trap; on a verified graph every check below passes.

/// Literal, overflow-checked; the right answer for every comparison.
public enum ReferenceInterpreter {
    public static func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> [TensorValue] {
        try GraphStructure.validate(graph)
        try checkInputContract(graph, inputs)

        // Free each intermediate after its last reader so a whole synthesis fits in memory.
        var lastUse = [Int](repeating: -1, count: graph.tensors.count)
        for (k, node) in graph.nodes.enumerated() { for t in node.inputs { lastUse[t] = k } }
        for t in graph.outputs { lastUse[t] = Int.max }

        var values = [[Int32]?](repeating: nil, count: graph.tensors.count)
        for (k, t) in graph.inputs.enumerated() { values[t] = inputs[k].values }
        for (k, node) in graph.nodes.enumerated() {
            let out = node.output
            let spec = graph.tensors[out]
            let site = ReferenceSite(node: k, op: node.op.name, tensor: out, name: spec.name)
            var xs: [[Int32]] = []
            for t in node.inputs {
                guard let v = values[t] else { throw GraphError.node(index: k, op: node.op.name, problem: "input tensor \(t) has no value") }
                xs.append(v)
            }
            let xShape = graph.tensors[node.inputs[0]].shape
            let y: [Int32]
            switch node.op {
            case .conv2d(let p): y = try ReferenceKernels.conv2d(xs[0], xShape, p, spec.shape, site: site)
            case .convTranspose2d(let p): y = try ReferenceKernels.convTranspose2d(xs[0], xShape, p, spec.shape, site: site)
            case .requantize(let p): y = try ReferenceKernels.requantize(xs[0], xShape, p, site: site)
            case .add: y = try ReferenceKernels.add(xs[0], xs[1], site: site)
            case .clamp(let lo, let hi): y = ReferenceKernels.clamp(xs[0], lo: lo, hi: hi)
            case .depthToSpace(let r): y = ReferenceKernels.depthToSpace(xs[0], xShape, block: r)
            case .concat: y = ReferenceKernels.concat(xs)
            case .lookup(let p): y = try ReferenceKernels.lookup(xs[0], p, site: site)
            case .inverseGDN(let p): y = try ReferenceKernels.inverseGDN(xs[0], xShape, p, site: site)
            case .warp(let p):
                y = try ReferenceKernels.warp(xs[0], xShape, flow: xs[1], p, rows: 0..<xShape.height, cols: 0..<xShape.width, site: site)
            }
            try checkStored(y, spec: spec, site: site)
            values[out] = y
            for t in node.inputs where lastUse[t] == k { values[t] = nil }
            if lastUse[out] < 0 { values[out] = nil }
        }

        var results: [TensorValue] = []
        for t in graph.outputs {
            guard let v = values[t] else { throw GraphError.graph(problem: "output tensor \(t) has no value") }
            results.append(TensorValue(shape: graph.tensors[t].shape, values: v))
        }
        return results
    }

    /// §2: a narrow tensor's values fit int16; §5: every value lies in the certificate.
    private static func checkStored(_ y: [Int32], spec: TensorSpec, site: ReferenceSite) throws {
        let storage = spec.storage.range, cert = spec.interval
        for (k, v) in y.enumerated() {
            if !storage.contains(Int64(v)) {
                throw ReferenceError.narrowOverflow(node: site.node, op: site.op, tensor: site.tensor,
                                                    name: site.name, index: k, value: v)
            }
            if !cert.contains(Int64(v)) {
                throw ReferenceError.outsideCertificate(node: site.node, op: site.op, tensor: site.tensor,
                                                        name: site.name, index: k, value: v, interval: cert)
            }
        }
    }
}
